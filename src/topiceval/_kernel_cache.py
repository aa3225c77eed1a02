"""Where numba caches topiceval's compiled kernels: a directory keyed to the package's version
and to the source of every module of the package, so that a compiled kernel cannot outlive its
source (issue 46).

numba's own cache (``cache=True``) sits beside each source file, in ``__pycache__``, and checks
only the time and size of the file that defines the kernel.  It survives ``pip install`` of a new
version over the old one, and it does not see a change to a function the kernel calls from
another file (``_numba.logsumexp``): an upgraded package would return the previous version's
numbers.  ``KeyedCacheLocator``, put first in numba's list of cache locators by ``install``
(called by every module that defines kernels, before its first one), sends the cache of every
kernel of the package to ``cache_dir()``:

    <root>/<version>-<hash of the source of every module of the package>/<subpackage path>

``<root>`` is ``$NUMBA_CACHE_DIR/topiceval`` when the user set ``NUMBA_CACHE_DIR``, otherwise the
user's cache directory (``platformdirs.user_cache_path("topiceval") / "numba"``: on Linux
``~/.cache/topiceval/numba``), and a directory under the system's temporary directory when
neither can be written.  Every process of one installed source shares the directory (the tests,
the workflow's jobs), and any change to the package's source gives a new one.  Every module is
hashed, not only those that define kernels: a kernel freezes the constants it reads from other
modules (the settings' slots, the diagnostics' record layout) into its compiled code.  That is
about 1.5 MB, 10 milliseconds when the first kernel module is imported.  Removing the directory
clears the cache (docs/development.md#the-compiled-kernels-cache).
"""

from __future__ import annotations

import getpass
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from numba.core.caching import CacheImpl, _CacheLocator, _SourceFileBackedLocatorMixin

from topiceval import __version__

PACKAGE = Path(__file__).resolve().parent
KEY_CHARS = 16  # hexadecimal characters of the source hash in the directory's name


@cache
def source_key() -> str:
    """``<version>-<hash>``: the installed version and a SHA-256 of the path and bytes of every
    module of the package."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes()
                      + b"\0")
    return f"{__version__}-{digest.hexdigest()[:KEY_CHARS]}"


def cache_root() -> Path:
    """The directory holding one cache directory per key: ``$NUMBA_CACHE_DIR/topiceval`` when
    set, else the user's cache directory's ``topiceval/numba``."""
    user_set = os.environ.get("NUMBA_CACHE_DIR")
    if user_set:
        return Path(user_set) / "topiceval"
    import platformdirs

    return platformdirs.user_cache_path("topiceval") / "numba"


def fallback_root() -> Path:
    """A per-user directory under the system's temporary directory, for when ``cache_root()``
    cannot be written."""
    return Path(tempfile.gettempdir()) / f"topiceval-numba-{getpass.getuser()}"


def cache_dir() -> Path:
    """The directory the kernels of this installed source are cached in."""
    return cache_root() / source_key()


class KeyedCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """numba's cache locator for the package's kernels: ``cache_dir()``, then the same key under
    ``fallback_root()``; ``None`` (numba's own locators decide) for any other file."""

    def __init__(self, py_func, py_file: str, root: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(root / source_key() / relative)

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        if not path.is_file() or PACKAGE not in path.parents:
            return None
        for root in (cache_root(), fallback_root()):
            locator = cls(py_func, py_file, root)
            try:
                locator.ensure_cache_path()
            except OSError:
                continue
            return locator
        return None


def use_keyed_cache() -> None:
    """Put ``KeyedCacheLocator`` first in numba's cache locators (once per process)."""
    if KeyedCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, KeyedCacheLocator)


@contextmanager
def compile_lock() -> Iterator[None]:
    """Hold, across processes, the lock of this installed source's cache (``cache_dir()`` /
    ``.compile.lock``, an exclusive ``flock``): processes that compile under it compile each
    kernel once, the later ones loading what the first compiled.  Waiting is interruptible
    (Ctrl-C), and the lock goes with the process.  Where the directory cannot be written or the
    system or file system has no ``flock``, nothing is locked: the processes compile side by side, as
    without it."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        handle = open(cache_dir() / ".compile.lock", "a")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            yield
            return
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

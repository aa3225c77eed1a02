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
    """Put ``KeyedCacheLocator`` first in numba's cache locators and compile each of the
    package's kernels once across processes (``CompileOnce``), once per process."""
    if KeyedCacheLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, KeyedCacheLocator)
        CompileOnce.install()


class CompileOnce:
    """Each kernel of the package compiled by one process at a time, the others loading it
    (issue 47: the jobs of a workflow, started together on an empty cache, compiled the same
    kernels side by side; from a fresh clone, compiling took 0.86 of the main command's 1.43
    CPU-hours).

    numba's dispatcher looks a signature up in the cache (``load_overload``), compiles it on a
    miss and saves it (``save_overload``).  For the package's kernels (those with a
    ``KeyedCacheLocator``), a miss takes an exclusive ``flock`` on a lock file of that kernel and
    signature beside its cache and looks again: another process that was compiling it has saved
    it by then, and it loads.  A process that still misses compiles, holding the lock until it
    saves.  Locks are taken in the order kernels call each other (a caller's compilation
    compiles its callees), so processes cannot wait on each other in a cycle.  A compilation
    that fails keeps its lock until the process ends (the process itself does not take it
    twice); waiting is interruptible (Ctrl-C).  Where the lock file cannot be made or the file
    system has no ``flock``, nothing is locked and the processes compile side by side.
    """

    held: dict[tuple[str, str], object] = {}  # (cache path, signature) -> the open lock file

    @staticmethod
    def _key(cache, sig) -> tuple[str, str] | None:
        if not isinstance(cache._impl.locator, KeyedCacheLocator):
            return None
        return cache._cache_path, f"{cache._impl.filename_base}-{sig}"

    @classmethod
    def _lock(cls, key: tuple[str, str]) -> bool:
        """Take the lock of ``key`` (blocking); False where it cannot be taken."""
        if key in cls.held:
            return True
        try:
            import fcntl

            name = hashlib.sha256(key[1].encode()).hexdigest()[:KEY_CHARS]
            handle = open(Path(key[0]) / f"{name}.lock", "a")  # noqa: SIM115 (kept in held)
        except (ImportError, OSError):
            return False
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            handle.close()
            return False
        cls.held[key] = handle
        return True

    @classmethod
    def _unlock(cls, key: tuple[str, str]) -> None:
        handle = cls.held.pop(key, None)
        if handle is not None:
            handle.close()  # closing the file releases its flock

    @classmethod
    def install(cls) -> None:
        from numba.core.caching import FunctionCache

        load, save = FunctionCache.load_overload, FunctionCache.save_overload

        def load_overload(self, sig, target_context):
            found = load(self, sig, target_context)
            key = cls._key(self, sig)
            if found is not None or key is None or not cls._lock(key):
                return found
            found = load(self, sig, target_context)  # saved while this process waited?
            if found is not None:
                cls._unlock(key)
            return found

        def save_overload(self, sig, data):
            try:
                save(self, sig, data)
            finally:
                key = cls._key(self, sig)
                if key is not None:
                    cls._unlock(key)

        FunctionCache.load_overload = load_overload
        FunctionCache.save_overload = save_overload


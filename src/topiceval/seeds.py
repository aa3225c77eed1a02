"""The one seed-derivation scheme: a random stream is named by the configured seed and keys.

Every random stream of topiceval is named by ``(seed, key, ...)``: the seed a user configures and
keys that say what the stream is for (a purpose constant, a data set, a setting, a repeat, a
document position).  The name is hashed, never added to or offset, so streams with different
names are unrelated and a result depends only on the seed and on what it estimates, never on how
the work was cut into jobs, blocks or threads (docs/methods/implementation.md#random-streams).

* In Python (this module) the name is hashed by :class:`numpy.random.SeedSequence`:
  ``generator(seed, *keys)`` is a NumPy generator for that stream, ``derive_seed(seed, *keys)`` a
  63-bit integer seed for an API that takes one (an estimator or a sampler, which hashes it again
  into its per-task streams).
* In the numba kernels, which cannot call ``SeedSequence``, the same kind of name
  ``(seed, key0, key1, key2)`` is hashed by splitmix64 (``topiceval._numba.rng_state``).

Keys are non-negative integers, used as they are, or labels (strings, floats, tuples), which
enter as the CRC-32 of their text; ``bool`` is refused (``True`` would silently equal ``1``).
"""

from __future__ import annotations

import numbers
import zlib

import numpy as np

__all__ = ["derive_seed", "generator", "stream_key"]


def stream_key(key: object) -> int:
    """The integer a key enters the hash as.

    Parameters
    ----------
    key : int, str or other label
        A non-negative integer (used as it is) or a label (the CRC-32 of ``str(key)`` encoded
        as UTF-8).

    Returns
    -------
    int
        A non-negative integer for ``numpy.random.SeedSequence``.
    """
    if isinstance(key, (bool, np.bool_)):
        raise TypeError(f"a stream key must be an integer or a label, not a bool ({key!r})")
    if isinstance(key, numbers.Integral) and key >= 0:
        return int(key)
    return zlib.crc32(str(key).encode("utf-8"))


def _sequence(seed: int, keys: tuple) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), *(stream_key(k) for k in keys)])


def generator(seed: int, *keys: object) -> np.random.Generator:
    """The NumPy generator of the stream named ``(seed, *keys)``.

    Parameters
    ----------
    seed : int
        The configured seed (non-negative).
    *keys
        What the stream is for (see ``stream_key``).

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(SeedSequence([seed, *keys]))``.
    """
    return np.random.default_rng(_sequence(seed, keys))


def legacy_state(seed: int, *keys: object) -> np.random.RandomState:
    """:func:`generator`'s stream as the legacy ``numpy.random.RandomState`` (a Mersenne
    Twister seeded from ``SeedSequence([seed, *keys])``), for a library that takes nothing
    else (gensim's ``random_state``)."""
    return np.random.RandomState(np.random.MT19937(_sequence(seed, keys)))


def derive_seed(seed: int, *keys: object) -> int:
    """A 63-bit integer seed for the stream named ``(seed, *keys)``.

    Parameters
    ----------
    seed : int
        The configured seed (non-negative).
    *keys
        What the stream is for (see ``stream_key``).

    Returns
    -------
    int
        The first 64-bit word of ``SeedSequence([seed, *keys])`` shifted right by one bit.
    """
    state = _sequence(seed, keys).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))

"""The seed-derivation scheme of the experiments: every seed an experiment uses is derived here.

One configured seed (an integer) gives every random stream of a run, so that a result depends
only on the seed and on what it estimates, never on how the work was cut into jobs:

* ``derived_seed(seed, *labels)``: a 63-bit seed hashed (sha256) from the seed and labels such
  as (data set, setting, target) or (experiment, method, budget); settings get unrelated
  streams (Wallach et al. 2009 shards, Foulds & Smyth shards, bootstrap replicates);
* ``labelled_rng(seed, *labels)``: a generator seeded with ``derived_seed`` (the bootstrap of
  a group of rows);
* ``keyed_rng(seed, *keys)``: ``numpy.random.default_rng([seed, *keys])``, a generator for one
  purpose (``keys``: small integer constants naming it, e.g. the held-out sample);
* ``offset_seed(seed, k)``: seed + k, the k-th repeat or timing run of an estimator that
  hashes its seed itself (Capdevila et al. 2018 repeats, Table 1 timing repeats);
* ``document_seed(seed, repeat, doc)``: a 63-bit seed from ``numpy.random.SeedSequence`` of
  (seed, repeat, document position), so a document's estimate does not depend on its block.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["derived_seed", "document_seed", "keyed_rng", "labelled_rng", "offset_seed"]


def derived_seed(seed: int, *parts) -> int:
    """A 63-bit seed from ``seed`` and labels (sha256), so settings get unrelated streams."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def labelled_rng(seed: int, *labels) -> np.random.Generator:
    """A generator seeded with ``derived_seed(seed, *labels)``.

    Parameters
    ----------
    seed : int
        The configured seed.
    *labels
        What the stream is for (e.g. the keys of a group of rows).

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng(derived_seed(seed, *labels))


def keyed_rng(seed: int, *keys: int) -> np.random.Generator:
    """``numpy.random.default_rng([seed, *keys])``: the stream of one purpose.

    Parameters
    ----------
    seed : int
        The configured seed.
    *keys : int
        Non-negative integers naming the purpose (a module's constants).

    Returns
    -------
    numpy.random.Generator
    """
    return np.random.default_rng([int(seed), *keys])


def offset_seed(seed: int, k: int) -> int:
    """``seed + k``: the seed of the k-th repeat of an estimator run with base ``seed``.

    The estimators hash their seed into independent streams, so consecutive seeds give
    unrelated runs.

    Parameters
    ----------
    seed : int
        The base seed.
    k : int
        The repeat (or timing run) number.

    Returns
    -------
    int
    """
    return int(seed) + int(k)


def document_seed(seed: int, repeat: int, doc: int) -> int:
    """The seed of one document of one repeat: the first 64-bit word of
    ``numpy.random.SeedSequence([seed, repeat, doc])`` shifted right by one bit.

    Parameters
    ----------
    seed : int
        The configured seed.
    repeat : int
        The repeat number.
    doc : int
        The document's position in the evaluated list.

    Returns
    -------
    int
        A 63-bit seed that does not depend on the block of documents ``doc`` is run in.
    """
    state = np.random.SeedSequence([int(seed), int(repeat), int(doc)]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))

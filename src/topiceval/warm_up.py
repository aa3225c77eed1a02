"""Compile, once, the kernels a study's jobs will use, before the jobs fan out (issue 47).

numba compiles a kernel on its first use and caches it (``topiceval._kernel_cache``); later
calls, in any process, load it in under a second.  When a workflow starts several jobs at once
on an empty cache, each compiles the same kernels side by side: on two cores the first scoring
jobs of a study spent minutes compiling twice what one of them could compile for both.  Each
training and estimate job of a study calls ``warm_up`` first, under the cache's lock
(``topiceval._kernel_cache.compile_lock``): the first job compiles, the others wait for it and
then load.  (A workflow rule that compiled first, with the jobs taking its output as input,
reran every job whenever it ran again, and with ``ancient()`` hid the jobs' own reasons to
rerun from Snakemake; the lock keeps the workflow's graph as it was.)

``warm_up`` runs each piece of work on a problem of a few tokens with the same argument types
(integer token arrays, float64 matrices) and the same settings as the real jobs, so that numba
compiles the same specialisations; it costs the compile time and milliseconds besides.  What
it compiles is what the study's rules run: the trainers of this package (``gibbs``, ``vem``) and
the held-out estimator with its settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from topiceval._kernel_cache import compile_lock
from topiceval.compiling import compile_note
from topiceval.corpus import Corpus

TOPICS = 3
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
OWN_TRAINERS = ("gibbs", "vem")


def tiny_corpus() -> Corpus:
    """Four documents of five to seven tokens over ``WORDS`` (a fixed pattern: what is compiled
    depends on the types of the arrays, not on their values)."""
    return Corpus.from_tokens([[WORDS[(d * 5 + 3 * i) % len(WORDS)] for i in range(n)]
                               for d, n in enumerate((5, 6, 7, 5))], list(WORDS))


def warm_up(estimate: tuple[str, Mapping, int] | None, trainers: Sequence[str] = (),
            train_settings: Mapping[str, Mapping] | None = None, *, note: bool = True) -> None:
    """Compile the kernels of ``trainers`` (those of ``OWN_TRAINERS``, with their settings) and
    of the held-out ``estimate`` ``(method, settings, runs)``, saying so while numba compiles.

    Parameters
    ----------
    estimate : (str, mapping, int) or None
        The LDA estimator, its settings and runs, as the study's estimate jobs call it
        (``topiceval.experiments.study.estimate_method``); None: no estimator.
    trainers : sequence of str
        Trainer names; those not in ``OWN_TRAINERS`` (other libraries) compile nothing here.
    train_settings : mapping, optional
        Each trainer's settings; the number of sweeps or iterations is cut to 2, which does not
        change what is compiled.
    note : bool
        Print the compile note (``topiceval.compiling``) on standard error.

    Runs under ``compile_lock()``: a process that calls it while another compiles waits, then
    loads the kernels from the cache.
    """
    from topiceval.estimators import lda
    from topiceval.training.lda import fit_gibbs, fit_vem

    corpus = tiny_corpus()
    settings = dict(train_settings or {})
    with compile_lock(), compile_note(note, live=False):
        for trainer in trainers:
            if trainer == "gibbs":
                fit_gibbs(corpus, TOPICS, sweeps=2, seed=0, threads=1)
            elif trainer == "vem":
                tol = float(settings.get("vem", {}).get("tol", 1e-4))
                fit_vem(corpus, TOPICS, max_iter=2, tol=tol, seed=0, threads=1)
        if estimate is not None:
            method, method_settings, runs = estimate
            model = fit_gibbs(corpus, TOPICS, sweeps=2, seed=0, threads=1).model
            lda.estimate_runs(method, list(corpus), model.phi, model.alpha_m, runs=runs, seed=0,
                              doc_keys=np.arange(len(corpus)), work_limit=None,
                              **method_settings)

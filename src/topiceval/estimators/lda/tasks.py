"""The parallel driver: every sampling estimator runs as independent (document, run) tasks.

One ``prange`` over D x R tasks.  Task (d, r) seeds its own stream with
``seed_into(rng, seed, key, keys[d], run_keys[r])`` and calls the estimator's per-document
function, which returns (estimate, alternative estimate, site updates); the alternative is the
Wallach form (2.4) for the left-to-right estimators, BDMC's upper bound, and equals the estimate
otherwise.  The function also fills the task's record ``stats[d, r]`` of
``topiceval.diagnostics`` (its weights or its chain, by the method's ``Method.diagnostics``), from
the numbers it averages anyway.  AIS, AIS-DC and BDMC instead run one ``prange`` over documents,
the R runs of a document in lockstep (they share each tempered table; ``ais.ais_runs``), each
run on the same stream as above.  Results
are written to per-task slots, so they do not depend on the number of threads or on the
schedule.  Every estimator function also takes the stop flag of ``topiceval.interrupt`` and
returns at once (NaN, NaN, 0) when it is set; ``api.py`` calls ``run_tasks`` through
``interrupt.run``.  A single driver (rather than one parallel kernel per estimator) keeps the numba
compile time of the whole family to one parallel region.

numba's on-disk cache of ``run_tasks`` contains the compiled estimator functions; it is kept in a
directory keyed to the source of every module of the package (``topiceval._kernel_cache``), so
an edit to any estimator module compiles it again.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from topiceval._numba import seed_into
from topiceval.estimators.lda.ais import AIS_CODE, ais_runs
from topiceval.estimators.lda.bdmc import BDMC_CODE, bdmc_runs
from topiceval.estimators.lda.bridge_theta import BRIDGE_THETA_CODE, bridge_theta_document
from topiceval.estimators.lda.chib import CHIB_CODE, chib_document
from topiceval.estimators.lda.completion import (
    AIS_DC_CODE,
    ET_CODE,
    LR_DC_CODE,
    ais_dc_runs,
    et_document,
    lr_dc_document,
)
from topiceval.estimators.lda.hm import HM_CODE, hm_document
from topiceval.estimators.lda.is_prior import IS_PT_CODE, is_pt_document
from topiceval.estimators.lda.is_theta import IS_THETA_CODE, is_theta_document
from topiceval.estimators.lda.is_token import (
    IS_IP_CODE,
    IS_PZW_CODE,
    is_ip_document,
    is_pzw_document,
)
from topiceval.estimators.lda.lr import LR_CODE, lr_document
from topiceval.estimators.lda.settings import (
    BURNIN,
    DRAWS,
    ITERATIONS,
    PARTICLES,
    RESAMPLE,
    SAMPLES,
)
from topiceval.interrupt import stopped


@njit(parallel=True, cache=True, nogil=True)
def run_tasks(code, tab, ipar, tau, seed, key, run_keys, out, alt, sites, stats, stop):
    """Fill out/alt/sites (D, R) and the records ``stats`` (D, R, W) of ``diagnostics`` for
    estimator ``code`` (see the module docstring).

    ``code`` is a method's ``Method.code``, declared with it (``*_CODE``); ``ipar`` holds the
    integer settings at the slots of ``settings.py`` (``settings.int_settings``).  ``stop``:
    the stop flag (``topiceval.interrupt``), polled before every task and inside the
    estimators' loops; once it is set, the outputs are unfinished."""
    n_runs = run_keys.shape[0]
    n_docs = tab.doc_off.shape[0] - 1
    if n_runs == 0:
        return
    if code == AIS_CODE or code == AIS_DC_CODE or code == BDMC_CODE:
        for d in prange(n_docs):
            if stopped(stop):
                continue
            rngs = np.empty((n_runs, 4), np.uint64)
            for r in range(n_runs):
                seed_into(rngs[r], seed, key, tab.keys[d], run_keys[r])
            if code == BDMC_CODE:  # the upper bound goes to the alternative slot
                s = bdmc_runs(tab, d, tau, ipar[BURNIN], rngs, out[d], alt[d], stats[d, :, 0],
                              stop)
            else:
                if code == AIS_CODE:
                    s = ais_runs(tab, d, tau, rngs, out[d], stats[d, :, 0], stop)
                else:
                    s = ais_dc_runs(tab, d, ipar[BURNIN], tau, rngs, out[d], stats[d, :, 0],
                                    stop)
                alt[d, :] = out[d]
            sites[d, :] = s
        return
    for task in prange(n_docs * n_runs):
        if stopped(stop):
            continue
        d = task // n_runs
        r = task - d * n_runs
        rng = np.empty(4, np.uint64)
        seed_into(rng, seed, key, tab.keys[d], run_keys[r])
        rec = stats[d, r]
        if code == IS_PT_CODE:
            v, w, s = is_pt_document(tab, d, ipar[SAMPLES], rng, rec, stop)
        elif code == IS_PZW_CODE:
            v, w, s = is_pzw_document(tab, d, ipar[SAMPLES], rng, rec, stop)
        elif code == IS_IP_CODE:
            v, w, s = is_ip_document(tab, d, ipar[ITERATIONS], ipar[SAMPLES], rng, rec,
                                    stop)
        elif code == HM_CODE:
            v, w, s = hm_document(tab, d, ipar[BURNIN], ipar[SAMPLES], rng, rec, stop)
        elif code == CHIB_CODE:
            v, w, s = chib_document(tab, d, ipar[SAMPLES], ipar[BURNIN], ipar[ITERATIONS], rng,
                                    rec, stop)
        elif code == IS_THETA_CODE:
            v, w, s = is_theta_document(tab, d, ipar[SAMPLES], ipar[DRAWS], ipar[BURNIN], rng,
                                        rec, stop)
        elif code == BRIDGE_THETA_CODE:
            v, w, s = bridge_theta_document(tab, d, ipar[SAMPLES], ipar[DRAWS], ipar[BURNIN],
                                            rng, rec, stop)
        elif code == LR_CODE:
            v, w, s = lr_document(tab, d, ipar[PARTICLES], ipar[RESAMPLE] != 0, rng, rec, stop)
        elif code == ET_CODE:
            v, w, s = et_document(tab, d, ipar[BURNIN], ipar[SAMPLES], rng, rec, stop)
        elif code == LR_DC_CODE:
            v, w, s = lr_dc_document(tab, d, ipar[PARTICLES], ipar[RESAMPLE] != 0, rng, rec,
                                      stop)
        else:
            v, w, s = np.nan, np.nan, -1
        out[d, r] = v
        alt[d, r] = w
        sites[d, r] = s

"""``topiceval.warm_up`` compiles what a study's jobs run (issue 47: the first jobs of a study
compiled the same kernels side by side).

Checked by signatures, whatever the state of the cache: in a fresh process, after ``warm_up``,
training and estimating as the study's jobs do (another corpus, other sizes) adds no
(kernel, argument types) pair to any of the package's numba dispatchers.  A kernel that
``warm_up`` missed would be compiled (or loaded) by the job, adding its signature.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

SCRIPT = r"""
import importlib, pkgutil, sys
import numpy as np
import topiceval
from numba.core.registry import CPUDispatcher
from topiceval.corpus import Corpus
from topiceval.experiments.study import estimate_method, train_candidate
from topiceval.estimators import lda
from topiceval.warm_up import warm_up

def signatures():
    out = set()
    for info in pkgutil.walk_packages(topiceval.__path__, "topiceval."):
        module = sys.modules.get(info.name)
        for name, value in (vars(module) if module else {}).items():
            if isinstance(value, CPUDispatcher):
                out |= {(info.name, name, str(s)) for s in value.signatures}
    return out

estimate = estimate_method({"method": "auto", "seed": 0, "runs": 2,
                            "settings": {"samples": 30}})
warm_up(estimate, ["gibbs", "vem"], {"vem": {"tol": 1e-3}}, note=False)
before = signatures()
rng = np.random.default_rng(1)
words = [f"w{i}" for i in range(40)]
corpus = Corpus.from_tokens([[words[j] for j in rng.integers(40, size=rng.integers(8, 30))]
                             for _ in range(12)], words)
model, _ = train_candidate(corpus, "gibbs", 4, 3, {"sweeps": 5})
train_candidate(corpus, "vem", 4, 3, {"max_iter": 3, "tol": 1e-3})
method, settings, runs = estimate
lda.estimate_runs(method, list(corpus)[:3], model.phi, model.alpha_m, runs=runs, seed=5,
                  doc_keys=np.arange(3) + 7, work_limit=None, **settings)
added = signatures() - before
print(sorted(added))
sys.exit(1 if added else 0)
"""


def test_warm_up_compiles_what_the_study_jobs_run():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

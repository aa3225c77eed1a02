# Compile, once, the numba kernels a study's jobs use, before they fan out (topiceval.warm_up).
#
#   compile_kernels --> kernels/{key}/study-{name}.done --> study_train (gibbs, vem), study_estimate
#
# On an empty cache, jobs started together would each compile the same kernels (minutes each on
# a loaded machine); this job compiles them in one process and the others load them from the
# cache.  {key} is the installed source's (topiceval._kernel_cache.source_key), so an upgraded
# package compiles again; the trainers of other libraries do not wait for it.

from topiceval._kernel_cache import source_key
from topiceval.warm_up import OWN_TRAINERS

if STUDY:
    KERNELS_DONE = f"{RESULTS}/kernels/{source_key()}/study-{S_PLAN.name}.done"

    rule compile_kernels:
        output:
            KERNELS_DONE,
        message:
            "compiling the estimator's kernels once for the study's jobs (minutes on an empty "
            "cache; later runs load them)"
        params:
            estimate=S.estimate_method(S_PLAN.estimate),
            trainers=sorted({c.trainer for c in S_PLAN.trained} & set(OWN_TRAINERS)),
            settings=S_PLAN.train,
        threads: 1
        resources:
            runtime=lambda wc, attempt: 20 * attempt,
        log:
            f"{LOGS}/kernels/{source_key()}/study-{S_PLAN.name}.log",
        conda:
            ENV
        script:
            "../scripts/compile_kernels.py"

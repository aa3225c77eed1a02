# Seed 002 (Wallach, Murray, Salakhutdinov & Mimno 2009): held-out likelihood estimators.
#
#   corpus --wallach2009_train--> model (training split; MALLET-style alpha m, beta optimisation)
#   real data set:      corpus --wallach2009_heldout--> n_docs test documents
#   synthetic data set: model --wallach2009_synthetic--> n_docs generated documents (§9.2)
#   documents + model --wallach2009_shard--> estimates of one shard (data set x method x setting
#     x block with shards.by: setting; coarser with dataset or figure)
#   shards --wallach2009_summary--> tables/wallach2009-f{1,2,3}.csv (+ timings/)
#   table --wallach2009_figure--> figures/wallach2009-f{1,2,3}.{FIG} and .caption.{md,rst}
#   first synthetic document + model --wallach2009_t1--> timings/wallach2009-t1*.csv, caption
#   002-X1 (beyond the paper, x1.datasets): the same shard/summary/figure rules with figure x1
#
# The tasks and the shard names come from the config at DAG-build time
# (topiceval.experiments.wallach2009.workflow_shards).  Wall-clock seconds go to timings/ only.

import re

from topiceval.experiments import tasks as W2_tasks
from topiceval.experiments import wallach2009 as W2

W2_CFG = config["wallach2009"]
W2_SETS = W2.data_sets(W2_CFG)
W2_SHARDS = W2.workflow_shards(W2_CFG)
W2_FIGURES = list(dict.fromkeys(figure for figure, _ in W2_SHARDS))
W2_DIR = f"{RESULTS}/wallach2009"
W2_TIME = f"{RESULTS}/timings"
W2_MODEL = f"{RESULTS}/models/{{dataset}}/{{variant}}/{{trainer}}/T{{topics}}/seed{{seed}}/model.npz"
W2_SHARD = "{figure}/{shard}.csv"

# the report's subcategories (topiceval.experiments.wallach2009: 002-F1, F2, F3, T1)
W2_EXPERIMENTS = {
    "f1": "Figure 1: log probability of held-out documents by estimator",
    "f2": "Figure 2: document completion",
    "f3": "Figure 3: sensitivity to perturbed topics and prior",
    "t1": "Table 1: cost and timing of the estimators",
    "x1": "Beyond the paper: the unbiased estimators run to convergence against LR-W",
}
W2_experiment = lambda wc: W2_EXPERIMENTS[wc.figure]
W2_item = lambda wc: "(not in the paper)" if wc.figure == "x1" else f"Figure {wc.figure[1:]}"
W2_FIGURE = "f[123]|x1"  # the figures' wildcard: 002-F1, F2, F3 and the convergence study X1
W2_T1 = W2_CFG["t1"]["dataset"] is not None  # 002-T1 unless t1.dataset is null

W2_names = lambda synthetic: "|".join(
    re.escape(n) for n, s in W2_SETS.items() if s.synthetic == synthetic
) or "(?!)"
W2_model = lambda name: W2_MODEL.format(
    dataset=W2_SETS[name].dataset,
    variant=W2_SETS[name].variant,
    trainer=W2.TRAINER,
    topics=W2_SETS[name].topics,
    seed=W2_CFG["seed"],
)
W2_docs = lambda name: (
    f"{W2_DIR}/{'synthetic' if W2_SETS[name].synthetic else 'heldout'}/{name}.npz"
)
W2_shards = lambda figure: W2_tasks.shard_names(W2_SHARDS, figure)
W2_shard_tasks = lambda wc: W2_tasks.shard_tasks(W2_SHARDS, wc.figure, wc.shard)
W2_shard_sets = lambda wc: list(dict.fromkeys(t.dataset for t in W2_shard_tasks(wc)))


rule wallach2009_train:
    input:
        lambda wc: corpus_path(wc.dataset, wc.variant),
    output:
        W2_MODEL,
    params:
        train=W2_CFG["train"],
    wildcard_constraints:
        trainer=W2.TRAINER,
        topics=r"\d+",
        seed=r"\d+",
    threads: W2_CFG["train"]["blocks"]
    log:
        f"{LOGS}/wallach2009/models/{{dataset}}/{{variant}}/{{trainer}}-T{{topics}}-seed{{seed}}.log",
    benchmark:
        f"{BENCH}/wallach2009/models/{{dataset}}/{{variant}}/{{trainer}}-T{{topics}}-seed{{seed}}.tsv"
    conda:
        ENV
    script:
        "../scripts/wallach2009_train.py"


rule wallach2009_heldout:
    input:
        lambda wc: corpus_path(W2_SETS[wc.name].dataset, W2_SETS[wc.name].variant),
    output:
        f"{W2_DIR}/heldout/{{name}}.npz",
    params:
        n_docs=W2_CFG["n_docs"],
        seed=W2_CFG["seed"],
    wildcard_constraints:
        name=W2_names(False),
    log:
        f"{LOGS}/wallach2009/heldout/{{name}}.log",
    conda:
        ENV
    script:
        "../scripts/wallach2009_heldout.py"


rule wallach2009_synthetic:
    input:
        lambda wc: W2_model(wc.name),
    output:
        f"{W2_DIR}/synthetic/{{name}}.npz",
    params:
        n_docs=W2_CFG["n_docs"],
        doc_length=lambda wc: W2_SETS[wc.name].doc_length,
        seed=W2_CFG["seed"],
    wildcard_constraints:
        name=W2_names(True),
    log:
        f"{LOGS}/wallach2009/synthetic/{{name}}.log",
    conda:
        ENV
    script:
        "../scripts/wallach2009_synthetic.py"


rule wallach2009_shard:
    input:
        docs=lambda wc: [W2_docs(n) for n in W2_shard_sets(wc)],
        models=lambda wc: [W2_model(n) for n in W2_shard_sets(wc)],
    output:
        rows=f"{W2_DIR}/shards/{W2_SHARD}",
        timings=f"{W2_TIME}/wallach2009/shards/{W2_SHARD}",
    params:
        tasks=W2_shard_tasks,
        settings=lambda wc: {
            "seed": W2_CFG["seed"],
            "runs": W2_CFG["x1"]["runs"] if wc.figure == "x1" else W2_CFG["runs"],
            "perturbation_seed": W2_CFG["f3"]["perturbation_seed"],
            "concentration": W2_CFG["f3"]["concentration"],
        },
    wildcard_constraints:
        figure=W2_FIGURE,
        shard="[a-z0-9-]+",
    log:
        f"{LOGS}/wallach2009/shards/{{figure}}/{{shard}}.log",
    benchmark:
        f"{BENCH}/wallach2009/shards/{{figure}}/{{shard}}.tsv"
    conda:
        ENV
    script:
        "../scripts/wallach2009_shard.py"


rule wallach2009_summary:
    input:
        rows=lambda wc: expand(f"{W2_DIR}/shards/{W2_SHARD}", figure=wc.figure,
                               shard=W2_shards(wc.figure)),
        timings=lambda wc: expand(f"{W2_TIME}/wallach2009/shards/{W2_SHARD}", figure=wc.figure,
                                  shard=W2_shards(wc.figure)),
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/wallach2009-{{figure}}.csv",
            "wallach2009",
            W2_experiment,
            "wallach2009-table.rst",
            item=W2_item,
            output="table: data behind the figure",
        ),
        timings=f"{W2_TIME}/wallach2009-{{figure}}.csv",
    params:
        n_boot=W2_CFG["bootstrap"],
        seed=W2_CFG["seed"],
    wildcard_constraints:
        figure=W2_FIGURE,
    log:
        f"{LOGS}/wallach2009/summary-{{figure}}.log",
    benchmark:
        f"{BENCH}/wallach2009/summary-{{figure}}.tsv"
    conda:
        ENV
    script:
        "../scripts/wallach2009_summary.py"


rule wallach2009_figure:
    input:
        table=f"{RESULTS}/tables/wallach2009-{{figure}}.csv",
        stats=f"{RESULTS}/tables/corpus_stats.csv",  # the caption's Data line
    output:
        figure=in_report(
            f"{RESULTS}/figures/wallach2009-{{figure}}.{FIG}",
            "wallach2009",
            W2_experiment,
            "caption.rst",
            item=W2_item,
            output="figure",
        ),
        caption=f"{RESULTS}/figures/wallach2009-{{figure}}.caption.md",
        caption_rst=f"{RESULTS}/figures/wallach2009-{{figure}}.caption.rst",
    wildcard_constraints:
        figure=W2_FIGURE,
    log:
        f"{LOGS}/wallach2009/figure-{{figure}}.log",
    conda:
        ENV
    script:
        "../scripts/wallach2009_figure.py"


if W2_T1:

    rule wallach2009_t1:
        input:
            docs=W2_docs(W2_CFG["t1"]["dataset"]),
            model=W2_model(W2_CFG["t1"]["dataset"]),
        output:
            **table_in_report(
                "table",
                f"{W2_TIME}/wallach2009-t1.csv",
                "wallach2009",
                W2_EXPERIMENTS["t1"],
                "caption.rst",
                item="Table 1",
                output="table: cost per estimator",
            ),
            **table_in_report(
                "workload",
                f"{W2_TIME}/wallach2009-t1-workload.csv",
                "wallach2009",
                W2_EXPERIMENTS["t1"],
                "wallach2009-t1-workload.rst",
                item="Table 1",
                output="table: timing of the paper's workload",
            ),
            caption=f"{W2_TIME}/wallach2009-t1.caption.md",
            caption_rst=f"{W2_TIME}/wallach2009-t1.caption.rst",
        params:
            repeats=W2_CFG["t1"]["repeats"],
            seed=W2_CFG["seed"],
        log:
            f"{LOGS}/wallach2009/t1.log",
        benchmark:
            f"{BENCH}/wallach2009/t1.tsv"
        conda:
            ENV
        script:
            "../scripts/wallach2009_t1.py"


if W2_CFG["enabled"]:
    register_targets(
        *expand(f"{RESULTS}/tables/wallach2009-{{figure}}.csv", figure=W2_FIGURES),
        *expand(
            f"{RESULTS}/figures/wallach2009-{{figure}}.{{ext}}",
            figure=W2_FIGURES,
            ext=[FIG, "caption.md", "caption.rst"],
        ),
        *(
            [f"{W2_TIME}/wallach2009-t1.csv", f"{W2_TIME}/wallach2009-t1.caption.rst"]
            if W2_T1
            else []
        ),
    )

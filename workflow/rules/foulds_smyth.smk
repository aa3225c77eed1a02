# Seed 003 (Foulds & Smyth 2014): robust model comparison by ratio-AIS on NIPS.
#
#   corpus --foulds_smyth_train--> models/{dataset}/{variant}/gibbs/T{topics}/seed{seed}/model.npz
#     (collapsed Gibbs, fixed alpha m and beta, §5.5)
#   corpus + model --foulds_smyth_shard--> foulds_smyth/{perturbation}/shards/{shard}.csv: per
#     held-out document, log P(w | Phi) - log P(w | Phi_pert) by the standard method and by
#     ratio-AIS at the cheap and expensive budgets (one job per perturbation x method x budget x
#     block of documents with shards.by: task; per perturbation x block with perturbation)
#   shards --foulds_smyth_summary--> foulds_smyth/{perturbation}/rows.csv,
#     tables/foulds_smyth-{F1,X1}-{perturbation}.csv, timings/foulds_smyth-cost-{perturbation}.csv
#   rows + tables --foulds_smyth_figures--> figures/foulds_smyth-{F1,X1}-{perturbation}.{FIG}
#     and .caption.{md,rst}
#
# The shards come from the config at DAG-build time (topiceval.experiments.foulds_smyth
# .workflow_shards).  Wall-clock seconds go to timings/ only.

import re

from topiceval.experiments import foulds_smyth as FS
from topiceval.experiments import tasks as FS_tasks
from topiceval.plots import foulds_smyth as FS_plots

FS_CFG = config["foulds_smyth"]
FS_SHARDS = FS.workflow_shards(FS_CFG)
FS_DATASET, FS_VARIANT = FS_CFG["corpus"].split("/")
FS_DIR = f"{RESULTS}/foulds_smyth"
FS_TIME = f"{RESULTS}/timings"
FS_MODEL = f"{RESULTS}/models/{{dataset}}/{{variant}}/{{trainer}}/T{{topics}}/seed{{seed}}/model.npz"
FS_SHARD = "{perturbation}/shards/{shard}.csv"

if (FS_DATASET, FS_VARIANT) not in configured_corpora():
    raise WorkflowError(f"foulds_smyth.corpus {FS_CFG['corpus']!r} is not in config['corpora']")
if FS_CFG["docs"] > config["corpora"][FS_DATASET][FS_VARIANT].get("test_size", FS_CFG["docs"]):
    raise WorkflowError(
        f"foulds_smyth.docs = {FS_CFG['docs']} exceeds the test_size of corpus {FS_CFG['corpus']}"
    )

FS_corpus = corpus_path(FS_DATASET, FS_VARIANT)
FS_model = FS_MODEL.format(
    dataset=FS_DATASET,
    variant=FS_VARIANT,
    trainer=FS.TRAINER,
    topics=FS_CFG["train"]["topics"],
    seed=FS_CFG["train"]["seed"],
)
# the report's subcategories (topiceval.experiments.foulds_smyth: 003-F1, the reciprocal check)
FS_EXPERIMENTS = {
    "F1": "Figure 1: ratio-AIS against the standard method",
    "X1": "Reciprocal check: ratio-AIS in both directions",
}
FS_names = "|".join(re.escape(p) for p in FS_CFG["perturbations"])
FS_shards = lambda perturbation: FS_tasks.shard_names(FS_SHARDS, perturbation)
FS_note = lambda wc: FS_plots.perturbation_note(wc.perturbation, FS_CFG["headline"])


ruleorder: foulds_smyth_train > bechard2018_train


rule foulds_smyth_train:
    input:
        lambda wc: corpus_path(wc.dataset, wc.variant),
    output:
        FS_MODEL,
    params:
        train={k: v for k, v in FS_CFG["train"].items() if k not in ("topics", "seed")},
    wildcard_constraints:
        dataset=re.escape(FS_DATASET),
        variant=re.escape(FS_VARIANT),
        trainer=FS.TRAINER,
        topics=r"\d+",
        seed=r"\d+",
    threads: FS_CFG["train"]["blocks"]
    log:
        f"{LOGS}/foulds_smyth/models/{{dataset}}/{{variant}}/{{trainer}}-T{{topics}}-seed{{seed}}.log",
    benchmark:
        f"{BENCH}/foulds_smyth/models/{{dataset}}/{{variant}}/{{trainer}}-T{{topics}}-seed{{seed}}.tsv"
    conda:
        ENV
    script:
        "../scripts/foulds_smyth_train.py"


rule foulds_smyth_shard:
    input:
        corpus=FS_corpus,
        model=FS_model,
    output:
        rows=f"{FS_DIR}/{FS_SHARD}",
        timings=f"{FS_TIME}/foulds_smyth/{FS_SHARD}",
    params:
        tasks=lambda wc: FS_tasks.shard_tasks(FS_SHARDS, wc.perturbation, wc.shard),
        settings=lambda wc: {
            "docs": FS_CFG["docs"],
            "seed": FS_CFG["seed"],
            "perturbation": FS_CFG["perturbations"][wc.perturbation],
            "burnin": FS_CFG["burnin"],
            "threshold": FS_CFG["threshold"],
        },
    wildcard_constraints:
        perturbation=FS_names,
        shard="[a-z0-9-]+",
    log:
        f"{LOGS}/foulds_smyth/{FS_SHARD[:-4]}.log",
    benchmark:
        f"{BENCH}/foulds_smyth/{FS_SHARD[:-4]}.tsv"
    conda:
        ENV
    script:
        "../scripts/foulds_smyth_shard.py"


rule foulds_smyth_summary:
    input:
        rows=lambda wc: expand(
            f"{FS_DIR}/{FS_SHARD}", perturbation=wc.perturbation, shard=FS_shards(wc.perturbation)
        ),
        timings=lambda wc: expand(
            f"{FS_TIME}/foulds_smyth/{FS_SHARD}",
            perturbation=wc.perturbation,
            shard=FS_shards(wc.perturbation),
        ),
    output:
        rows=f"{FS_DIR}/{{perturbation}}/rows.csv",
        **table_in_report(
            "f1",
            f"{RESULTS}/tables/foulds_smyth-F1-{{perturbation}}.csv",
            "foulds_smyth",
            FS_EXPERIMENTS["F1"],
            "foulds_smyth-F1-table.rst",
            item="Figure 1",
            perturbation="{perturbation}",
            output="table: data behind the figure",
        ),
        **table_in_report(
            "x1",
            f"{RESULTS}/tables/foulds_smyth-X1-{{perturbation}}.csv",
            "foulds_smyth",
            FS_EXPERIMENTS["X1"],
            "foulds_smyth-X1-table.rst",
            item="reciprocal check",
            perturbation="{perturbation}",
            output="table: data behind the figure",
        ),
        **table_in_report(
            "cost",
            f"{FS_TIME}/foulds_smyth-cost-{{perturbation}}.csv",
            "foulds_smyth",
            FS_EXPERIMENTS["F1"],
            "foulds_smyth-cost.rst",
            item="Figure 1",
            perturbation="{perturbation}",
            output="table: cost and timing",
        ),
    params:
        projected_docs=FS_CFG["projected_docs"],
    wildcard_constraints:
        perturbation=FS_names,
    log:
        f"{LOGS}/foulds_smyth/{{perturbation}}/summary.log",
    conda:
        ENV
    script:
        "../scripts/foulds_smyth_summary.py"


rule foulds_smyth_figures:
    input:
        rows=f"{FS_DIR}/{{perturbation}}/rows.csv",
        f1=f"{RESULTS}/tables/foulds_smyth-F1-{{perturbation}}.csv",
        x1=f"{RESULTS}/tables/foulds_smyth-X1-{{perturbation}}.csv",
    output:
        f1=in_report(
            f"{RESULTS}/figures/foulds_smyth-F1-{{perturbation}}.{FIG}",
            "foulds_smyth",
            FS_EXPERIMENTS["F1"],
            "caption-f1.rst",
            item="Figure 1",
            perturbation="{perturbation}",
            output="figure",
        ),
        f1_caption=f"{RESULTS}/figures/foulds_smyth-F1-{{perturbation}}.caption.md",
        f1_caption_rst=f"{RESULTS}/figures/foulds_smyth-F1-{{perturbation}}.caption.rst",
        x1=in_report(
            f"{RESULTS}/figures/foulds_smyth-X1-{{perturbation}}.{FIG}",
            "foulds_smyth",
            FS_EXPERIMENTS["X1"],
            "caption-x1.rst",
            item="reciprocal check",
            perturbation="{perturbation}",
            output="figure",
        ),
        x1_caption=f"{RESULTS}/figures/foulds_smyth-X1-{{perturbation}}.caption.md",
        x1_caption_rst=f"{RESULTS}/figures/foulds_smyth-X1-{{perturbation}}.caption.rst",
    params:
        perturbation=lambda wc: FS_CFG["perturbations"][wc.perturbation],
        note=FS_note,
        threshold=FS_CFG["threshold"],
    wildcard_constraints:
        perturbation=FS_names,
    log:
        f"{LOGS}/foulds_smyth/{{perturbation}}/figures.log",
    conda:
        ENV
    script:
        "../scripts/foulds_smyth_figures.py"


if FS_CFG["enabled"]:
    register_targets(
        *expand(
            f"{RESULTS}/tables/foulds_smyth-{{table}}-{{perturbation}}.csv",
            table=["F1", "X1"],
            perturbation=FS_CFG["perturbations"],
        ),
        *expand(
            f"{RESULTS}/figures/foulds_smyth-{{figure}}-{{perturbation}}.{{ext}}",
            figure=["F1", "X1"],
            perturbation=FS_CFG["perturbations"],
            ext=[FIG, "caption.md", "caption.rst"],
        ),
        *expand(
            f"{FS_TIME}/foulds_smyth-cost-{{perturbation}}.csv",
            perturbation=FS_CFG["perturbations"],
        ),
    )

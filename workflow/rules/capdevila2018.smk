# Seed 004 (Capdevila, Cerquides, Torres, Petitjean & Buntine 2018): L2R for GaP-FA.
#
#   corpus (capdevila2018 recipe) --capdevila2018_train--> models/capdevila2018/{setting}/{dataset}
#     tractable: T = 5 on the 100-word crop (004-F2, F1); realistic: full vocabulary (004-F3)
#   model + cropped corpus --capdevila2018_accuracy--> f2/{dataset}/repeats{start}-{stop}.csv
#   released L2R model --capdevila2018_accuracy_released--> f2-released/{release}/repeats...csv
#   shards + cropped corpora --capdevila2018_accuracy_tables--> tables/capdevila2018-F2.csv, -F1.csv
#   model + corpus --capdevila2018_loglik--> f3/{dataset}/{method}/part{part}of{parts}.csv
#   shards --capdevila2018_loglik_table--> tables/capdevila2018-F3.csv and -F3-convergence.csv
#   full corpora --capdevila2018_t1--> tables/capdevila2018-T1.csv and .caption.{md,rst}
#   table --capdevila2018_figure_{f1,f2,f3}--> figures/capdevila2018-F{1,2,3}.{FIG}
#     and .caption.{md,rst}
#
# Shards (panel x block of repeats; collection x method x part i of K) are computed from the
# config at DAG-build time, K per (collection, method) from `realistic.parts` (C4.f3_parts).  A
# 004-F3 job cuts the collection's documents into its K parts itself, in order at equal predicted
# work (the estimators' own, C4.loglik_part), so the DAG needs no checkpoint.  Rows do not depend
# on the blocking (topiceval.experiments.capdevila2018).

from topiceval.experiments import capdevila2018 as C4
from topiceval.experiments import tasks as C4_tasks

C4_CFG = config["capdevila2018"]
C4_TR = C4_CFG["tractable"]
C4_RE = C4_CFG["realistic"]
C4_DIR = f"{RESULTS}/capdevila2018"
C4_SETTINGS = {"tractable": C4_TR, "realistic": C4_RE}
C4_VARIANT = {"tractable": C4_CFG["cropped"], "realistic": C4_CFG["corpus"]}
C4_REPEATS = C4_tasks.blocks(C4_TR["repeats"], C4_TR["repeats_per_shard"])
# 004-T1: the collections of the enabled halves
C4_T1 = [d for d in C4.DATASETS
         if any(d in half["collections"] for half in C4_SETTINGS.values() if half["enabled"])]

C4_model = lambda setting, dataset: f"{RESULTS}/models/capdevila2018/{setting}/{dataset}.npz"
C4_release = lambda name: next(
    p for p in raw_files("l2r_capdevila") if os.path.basename(p) == C4.RELEASES[name][0]
)
C4_PANELS = [
    *(f"f2/{d}" for d in C4_TR["collections"]),
    *(f"f2-released/{r}" for r in C4_TR["released"]),
]
C4_f2_shards = [f"{C4_DIR}/{p}/repeats{a}-{b}.csv" for p in C4_PANELS for a, b in C4_REPEATS]
C4_f3_shard = "f3/{dataset}/{method}/part{part}of{parts}"  # under C4_DIR, LOGS and BENCH
# collection, then method, then part: the table's row order follows the config's
C4_f3_shards = [
    f"{C4_DIR}/{C4_f3_shard}.csv".format(dataset=d, method=m, part=i, parts=k)
    for d in C4_RE["collections"]
    for m in C4_RE["methods"]
    for k in [C4.f3_parts(C4_RE["parts"], m, d)]
    for i in range(k)
]
C4_f2_params = lambda wc: {
    "samples": C4_TR["samples"],
    "checkpoints": C4_TR["checkpoints"],
    "spacing": C4_TR["spacing"],
    "first_repeat": int(wc.start),
    "repeats": int(wc.stop) - int(wc.start),
    "max_docs": C4_TR["max_docs"],
    "max_summands": float(C4_TR["max_summands"]),
    "methods": C4_TR["methods"],
    "settings": C4_TR["settings"],
    "seed": C4_CFG["seed"],
}
# the report's subcategories (topiceval.experiments.capdevila2018: 004-T1, F1, F2, F3)
C4_EXPERIMENTS = {
    "T1": "Table 1: the collections",
    "F1": "Figure 1: accuracy against document length",
    "F2": "Figure 2: accuracy on tractable documents",
    "F3": "Figure 3: convergence of the log-likelihood on whole collections",
}
C4_WILDCARDS = {
    "dataset": "|".join(C4.DATASETS),
    "release": "|".join(C4.RELEASES),
    "method": "|".join(C4_RE["methods"]),
}


rule capdevila2018_train:
    input:
        corpus=lambda wc: corpus_path(wc.dataset, C4_VARIANT[wc.setting]),
    output:
        C4_model("{setting}", "{dataset}"),
    params:
        settings=lambda wc: {
            "topics": C4_SETTINGS[wc.setting]["topics"],
            "iterations": C4_SETTINGS[wc.setting]["iterations"],
            "burnin": C4_SETTINGS[wc.setting]["burnin"],
            **C4_CFG["prior"],
            "seed": C4_CFG["seed"],
        },
    wildcard_constraints:
        setting="tractable|realistic",
        dataset=C4_WILDCARDS["dataset"],
    log:
        f"{LOGS}/capdevila2018/models/{{setting}}/{{dataset}}.log",
    benchmark:
        f"{BENCH}/capdevila2018/models/{{setting}}/{{dataset}}.tsv"
    conda:
        ENV
    script:
        "../scripts/capdevila2018_train.py"


rule capdevila2018_accuracy:
    input:
        corpus=lambda wc: corpus_path(wc.dataset, C4_CFG["cropped"]),
        model=C4_model("tractable", "{dataset}"),
    output:
        f"{C4_DIR}/f2/{{dataset}}/repeats{{start}}-{{stop}}.csv",
    params:
        collection=lambda wc: C4.DATASETS[wc.dataset],
        settings=C4_f2_params,
    wildcard_constraints:
        dataset=C4_WILDCARDS["dataset"],
        start=r"\d+",
        stop=r"\d+",
    log:
        f"{LOGS}/capdevila2018/f2/{{dataset}}/repeats{{start}}-{{stop}}.log",
    benchmark:
        f"{BENCH}/capdevila2018/f2/{{dataset}}/repeats{{start}}-{{stop}}.tsv"
    conda:
        ENV
    script:
        "../scripts/capdevila2018_accuracy.py"


rule capdevila2018_accuracy_released:
    input:
        release=lambda wc: C4_release(wc.release),
    output:
        f"{C4_DIR}/f2-released/{{release}}/repeats{{start}}-{{stop}}.csv",
    params:
        collection=lambda wc: C4.RELEASES[wc.release][1],
        settings=C4_f2_params,
    wildcard_constraints:
        release=C4_WILDCARDS["release"],
        start=r"\d+",
        stop=r"\d+",
    log:
        f"{LOGS}/capdevila2018/f2-released/{{release}}/repeats{{start}}-{{stop}}.log",
    benchmark:
        f"{BENCH}/capdevila2018/f2-released/{{release}}/repeats{{start}}-{{stop}}.tsv"
    conda:
        ENV
    script:
        "../scripts/capdevila2018_accuracy.py"


rule capdevila2018_accuracy_tables:
    input:
        shards=C4_f2_shards,
        cropped=[corpus_path(d, C4_CFG["cropped"]) for d in C4_TR["collections"]],
    output:
        **table_in_report(
            "f2",
            f"{RESULTS}/tables/capdevila2018-F2.csv",
            "capdevila2018",
            C4_EXPERIMENTS["F2"],
            "capdevila2018-F2-table.rst",
            item="Figure 2",
            output="table: data behind the figure",
        ),
        **table_in_report(
            "f1",
            f"{RESULTS}/tables/capdevila2018-F1.csv",
            "capdevila2018",
            C4_EXPERIMENTS["F1"],
            "capdevila2018-F1-table.rst",
            item="Figure 1",
            output="table: data behind the figure",
        ),
    params:
        collections=[C4.DATASETS[d] for d in C4_TR["collections"]],
    log:
        f"{LOGS}/capdevila2018/tables/accuracy.log",
    conda:
        ENV
    script:
        "../scripts/capdevila2018_accuracy_tables.py"


rule capdevila2018_loglik:
    input:
        corpus=lambda wc: corpus_path(wc.dataset, C4_CFG["corpus"]),
        model=C4_model("realistic", "{dataset}"),
    output:
        f"{C4_DIR}/{C4_f3_shard}.csv",
    params:
        collection=lambda wc: C4.DATASETS[wc.dataset],
        settings=lambda wc: {
            "method": wc.method,
            "part": int(wc.part),
            "parts": int(wc.parts),
            "docs": C4_RE["docs"],
            "every": C4_RE["every"],
            "samples": C4_RE["samples"],
            "checkpoints": C4_RE["checkpoints"],
            "spacing": C4_RE["spacing"],
            "repeats": C4_RE["repeats"],
            "settings": C4_RE["settings"],
            "seed": C4_CFG["seed"],
        },
    wildcard_constraints:
        dataset=C4_WILDCARDS["dataset"],
        method=C4_WILDCARDS["method"],
        part=r"\d+",
        parts=r"\d+",
    log:
        f"{LOGS}/capdevila2018/{C4_f3_shard}.log",
    benchmark:
        f"{BENCH}/capdevila2018/{C4_f3_shard}.tsv"
    conda:
        ENV
    script:
        "../scripts/capdevila2018_loglik.py"


rule capdevila2018_loglik_table:
    input:
        C4_f3_shards,
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/capdevila2018-F3.csv",
            "capdevila2018",
            C4_EXPERIMENTS["F3"],
            "capdevila2018-F3-table.rst",
            item="Figure 3",
            output="table: data behind the figure",
        ),
        **table_in_report(
            "convergence",
            f"{RESULTS}/tables/capdevila2018-F3-convergence.csv",
            "capdevila2018",
            C4_EXPERIMENTS["F3"],
            "capdevila2018-F3-convergence.rst",
            item="Figure 3",
            output="table: per-document convergence statistics",
        ),
    log:
        f"{LOGS}/capdevila2018/tables/loglik.log",
    conda:
        ENV
    script:
        "../scripts/capdevila2018_loglik_table.py"


rule capdevila2018_t1:
    input:
        [corpus_path(d, C4_CFG["corpus"]) for d in C4_T1],
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/capdevila2018-T1.csv",
            "capdevila2018",
            C4_EXPERIMENTS["T1"],
            "caption.rst",
            item="Table 1",
            output="table",
        ),
        caption=f"{RESULTS}/tables/capdevila2018-T1.caption.md",
        caption_rst=f"{RESULTS}/tables/capdevila2018-T1.caption.rst",
    params:
        collections=[C4.DATASETS[d] for d in C4_T1],
    log:
        f"{LOGS}/capdevila2018/tables/T1.log",
    conda:
        ENV
    script:
        "../scripts/capdevila2018_t1.py"


rule capdevila2018_figure:
    input:
        table=f"{RESULTS}/tables/capdevila2018-{{figure}}.csv",
        # 004-F3's verdicts are judged on per-document statistics (realistic.convergence)
        convergence=lambda wc: (
            [f"{RESULTS}/tables/capdevila2018-F3-convergence.csv"] if wc.figure == "F3" else []
        ),
    output:
        figure=in_report(
            f"{RESULTS}/figures/capdevila2018-{{figure}}.{FIG}",
            "capdevila2018",
            lambda wc: C4_EXPERIMENTS[wc.figure],
            "caption.rst",
            item=lambda wc: f"Figure {wc.figure[1:]}",
            output="figure",
        ),
        caption=f"{RESULTS}/figures/capdevila2018-{{figure}}.caption.md",
        caption_rst=f"{RESULTS}/figures/capdevila2018-{{figure}}.caption.rst",
    params:
        convergence=C4_RE["convergence"],
    wildcard_constraints:
        figure="F1|F2|F3",
    log:
        f"{LOGS}/capdevila2018/figures/{{figure}}.log",
    conda:
        ENV
    script:
        "../scripts/capdevila2018_figure.py"


# the figures of each half that is enabled (tractable: 004-F1, F2; realistic: 004-F3)
C4_FIGURES = [f for half, figures in (("tractable", ("F1", "F2")), ("realistic", ("F3",)))
              if C4_SETTINGS[half]["enabled"] for f in figures]

if C4_CFG["enabled"]:
    register_targets(
        f"{RESULTS}/tables/capdevila2018-T1.csv",
        f"{RESULTS}/tables/capdevila2018-T1.caption.md",
        f"{RESULTS}/tables/capdevila2018-T1.caption.rst",
        *([f"{RESULTS}/tables/capdevila2018-F3-convergence.csv"] if "F3" in C4_FIGURES else []),
        *[f"{RESULTS}/figures/capdevila2018-{f}.{FIG}" for f in C4_FIGURES],
        *[f"{RESULTS}/figures/capdevila2018-{f}.caption.{ext}" for f in C4_FIGURES
          for ext in ("md", "rst")],
    )

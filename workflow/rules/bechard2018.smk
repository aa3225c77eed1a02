# Seed 001 (Béchard & Gervet): LDA by variational EM and collapsed Gibbs on 20 Newsgroups.
#
#   corpus --bechard2018_train--> models/{dataset}/{variant}/{trainer}/T{T}/seed{seed}/model.npz
#                                 + bechard2018/.../perplexity.csv (train and test rows)
#     one job per trainer (vem | gibbs | sklearn) x T x seed of the config grid
#   model --bechard2018_honest--> bechard2018/.../honest.csv: P1 by Chib-style and left-to-right
#     (topiceval's own estimators, with Monte Carlo error) on a seeded subset of the test split
#   perplexity and honest rows --bechard2018_f4_tables--> tables/bechard2018-F4.csv,
#     -F4-minimum.csv
#   F4 table --bechard2018_f4_figure--> figures/bechard2018-F4.{FIG} and .caption.{md,rst}
#   VEM / Gibbs model of table_topics topics --bechard2018_topics--> tables/bechard2018-T{1,2}.csv
#     and .caption.{md,rst}
#
# The jobs come from the config at DAG-build time (topiceval.experiments.bechard2018
# .workflow_plan).  No wall-clock time is written to a table (the benchmark files hold it).

from topiceval.experiments import bechard2018 as B18

B18_CFG = config["bechard2018"]
B18_PLAN = B18.workflow_plan(B18_CFG)
B18_DIR = f"{RESULTS}/bechard2018"
B18_RUN = "{dataset}/{variant}/{trainer}/T{T}/seed{seed}"
B18_MODEL = f"{RESULTS}/models/{B18_RUN}/model.npz"
B18_ROWS = f"{B18_DIR}/{B18_RUN}/perplexity.csv"
B18_HONEST = f"{B18_DIR}/{B18_RUN}/honest.csv"
B18_HONEST_ON = bool(B18_PLAN.honest["methods"])

if (B18_PLAN.dataset, B18_PLAN.variant) not in configured_corpora():
    raise WorkflowError(
        f"bechard2018.corpus {B18_CFG['corpus']!r} is not in config['corpora']"
    )

B18_F4 = "Figure 4: perplexity against the number of topics"
B18_T = "Tables 1 and 2: top words of six labelled topics"
B18_path = lambda pattern, trainer, T, seed: pattern.format(
    dataset=B18_PLAN.dataset, variant=B18_PLAN.variant, trainer=trainer, T=T, seed=seed
)


rule bechard2018_train:
    input:
        lambda wc: corpus_path(wc.dataset, wc.variant),
    output:
        model=B18_MODEL,
        rows=B18_ROWS,
    params:
        settings=B18_PLAN.settings,
    wildcard_constraints:
        trainer="|".join(B18.TRAINERS),
        T=r"\d+",
        seed=r"\d+",
    threads: lambda wc: B18_PLAN.settings.get("gibbs_blocks", 1) if wc.trainer == "gibbs" else 1
    log:
        f"{LOGS}/bechard2018/train/{{dataset}}/{{variant}}/{{trainer}}-T{{T}}-seed{{seed}}.log",
    benchmark:
        f"{BENCH}/bechard2018/train/{{dataset}}/{{variant}}/{{trainer}}-T{{T}}-seed{{seed}}.tsv"
    conda:
        ENV
    script:
        "../scripts/bechard2018_train.py"


rule bechard2018_honest:
    input:
        corpus=lambda wc: corpus_path(wc.dataset, wc.variant),
        model=B18_MODEL,
    output:
        B18_HONEST,
    params:
        honest=B18_PLAN.honest,
    wildcard_constraints:
        trainer="|".join(B18.TRAINERS),
        T=r"\d+",
        seed=r"\d+",
    log:
        f"{LOGS}/bechard2018/honest/{{dataset}}/{{variant}}/{{trainer}}-T{{T}}-seed{{seed}}.log",
    benchmark:
        f"{BENCH}/bechard2018/honest/{{dataset}}/{{variant}}/{{trainer}}-T{{T}}-seed{{seed}}.tsv"
    conda:
        ENV
    script:
        "../scripts/bechard2018_honest.py"


rule bechard2018_f4_tables:
    input:
        [B18_path(B18_ROWS, *run) for run in B18_PLAN.runs],
        [B18_path(B18_HONEST, *run) for run in B18_PLAN.runs if B18_HONEST_ON],
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/bechard2018-F4.csv",
            "bechard2018",
            B18_F4,
            "bechard2018-F4-table.rst",
            item="Figure 4",
            output="table: perplexity per run",
        ),
        **table_in_report(
            "minimum",
            f"{RESULTS}/tables/bechard2018-F4-minimum.csv",
            "bechard2018",
            B18_F4,
            "bechard2018-F4-minimum.rst",
            item="Figure 4",
            output="table: minimum per trainer",
        ),
    log:
        f"{LOGS}/bechard2018/tables/F4.log",
    conda:
        ENV
    script:
        "../scripts/bechard2018_f4_tables.py"


rule bechard2018_f4_figure:
    input:
        f"{RESULTS}/tables/bechard2018-F4.csv",
    output:
        figure=in_report(
            f"{RESULTS}/figures/bechard2018-F4.{FIG}",
            "bechard2018",
            B18_F4,
            "caption.rst",
            item="Figure 4",
            output="figure",
        ),
        caption=f"{RESULTS}/figures/bechard2018-F4.caption.md",
        caption_rst=f"{RESULTS}/figures/bechard2018-F4.caption.rst",
    log:
        f"{LOGS}/bechard2018/figures/F4.log",
    conda:
        ENV
    script:
        "../scripts/bechard2018_f4_figure.py"


rule bechard2018_topics:
    input:
        lambda wc: B18_path(B18_MODEL, *B18_PLAN.tables[wc.table]),
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/bechard2018-{{table}}.csv",
            "bechard2018",
            B18_T,
            "caption.rst",
            item=lambda wc: f"Table {wc.table[1:]}",
            output="table",
        ),
        caption=f"{RESULTS}/tables/bechard2018-{{table}}.caption.md",
        caption_rst=f"{RESULTS}/tables/bechard2018-{{table}}.caption.rst",
    wildcard_constraints:
        table="|".join(B18.TABLE_TRAINERS),
    log:
        f"{LOGS}/bechard2018/tables/{{table}}.log",
    conda:
        ENV
    script:
        "../scripts/bechard2018_topics.py"


if B18_CFG["enabled"]:
    register_targets(
        f"{RESULTS}/tables/bechard2018-F4.csv",
        f"{RESULTS}/tables/bechard2018-F4-minimum.csv",
        f"{RESULTS}/figures/bechard2018-F4.{FIG}",
        f"{RESULTS}/figures/bechard2018-F4.caption.md",
        f"{RESULTS}/figures/bechard2018-F4.caption.rst",
        *[f"{RESULTS}/tables/bechard2018-{t}.{ext}" for t in B18.TABLE_TRAINERS
          for ext in ("csv", "caption.md", "caption.rst")],
    )

# Corpora: one preprocessing job per (dataset, variant) in config["corpora"], then the corpus
# statistics table (next to the papers' numbers) and the document-length figure with its caption
# (.caption.{md,rst}).


rule corpus:
    input:
        raw=lambda wc: raw_files(wc.dataset),
        nltk=NLTK_FILES,
    output:
        corpus_path("{dataset}", "{variant}"),
    params:
        options=corpus_options,
        paths=lambda wc: source_paths(wc.dataset),
    log:
        f"{LOGS}/corpora/{{dataset}}/{{variant}}.log",
    benchmark:
        f"{BENCH}/corpora/{{dataset}}/{{variant}}.tsv"
    conda:
        ENV
    script:
        "../scripts/corpus.py"


rule corpus_stats:
    input:
        [corpus_path(d, r) for d, r in configured_corpora()],
    output:
        **table_in_report(
            "table",
            f"{RESULTS}/tables/corpus_stats.csv",
            "corpora",
            "Corpus statistics",
            "corpus_stats.rst",
            item="the papers' corpus tables",
            output="table",
        ),
    log:
        f"{LOGS}/tables/corpus_stats.log",
    conda:
        ENV
    script:
        "../scripts/corpus_stats.py"


rule corpus_lengths_figure:
    input:
        [corpus_path(d, r) for d, r in configured_corpora()],
    output:
        figure=in_report(
            f"{RESULTS}/figures/corpus_lengths.{FIG}",
            "corpora",
            "Document lengths",
            "caption.rst",
            item="(not in the papers)",
            output="figure",
        ),
        caption=f"{RESULTS}/figures/corpus_lengths.caption.md",
        caption_rst=f"{RESULTS}/figures/corpus_lengths.caption.rst",
    log:
        f"{LOGS}/figures/corpus_lengths.log",
    conda:
        ENV
    script:
        "../scripts/corpus_lengths_figure.py"


register_targets(
    f"{RESULTS}/tables/corpus_stats.csv",
    *[f"{RESULTS}/figures/corpus_lengths.{ext}" for ext in (FIG, "caption.md", "caption.rst")],
)

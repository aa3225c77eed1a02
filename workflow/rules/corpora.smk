# Corpora: one preprocessing job per (dataset, variant) in config["corpora"], then the corpus
# statistics table (next to the papers' numbers) and the document-length figure.


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
        f"{RESULTS}/tables/corpus_stats.csv",
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
        f"{RESULTS}/figures/corpus_lengths.{FIG}",
    log:
        f"{LOGS}/figures/corpus_lengths.log",
    conda:
        ENV
    script:
        "../scripts/corpus_lengths_figure.py"


register_targets(
    f"{RESULTS}/tables/corpus_stats.csv", f"{RESULTS}/figures/corpus_lengths.{FIG}"
)

# Raw data: one download rule per source (from the canonical URL, or from `data_mirror` when
# set), each file checked against its accepted sha256 list and read to the end if an archive.
# A failed check stops the rule with a message naming the file, expected and actual checksum,
# and leaves no output behind (topiceval.data.download.fetch stages and verifies before moving).
# Every rule that reads a raw file checks its checksum again before it starts
# (topiceval.pipeline.rule_context), so a file damaged since its download is never read.
# Downloads are local rules: on a cluster they run on the submitting machine, which has the
# network (or the mirror) that compute nodes may lack.

for _source in config["sources"]:
    if _source == "nltk_data":
        continue

    rule:
        name:
            f"download_{_source}"
        localrule: True
        output:
            raw_files(_source),
        params:
            source=_source,
            files=config["sources"][_source]["files"],
            mirror=MIRROR,
        log:
            f"{LOGS}/download/{_source}.log",
        conda:
            ENV
        script:
            "../scripts/download.py"


rule nltk_data:
    localrule: True
    output:
        NLTK_FILES,
    params:
        mirror=MIRROR,
    log:
        f"{LOGS}/download/nltk_data.log",
    conda:
        ENV
    script:
        "../scripts/nltk_data.py"

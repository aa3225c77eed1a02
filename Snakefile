# topiceval: held-out likelihood evaluation of topic models, four papers end to end.
#
#   snakemake --cores N                                   # default reproduction (config/config.yaml)
#   snakemake --cores N --configfile config/quick.yaml    # minutes-scale run on small subsets
#   snakemake --cores N --configfile config/paper.yaml    # the papers' own sizes (cluster)
#   ... --config data_mirror=../shared/data               # read the corpora from a local mirror
#   snakemake --report report.html [the run's options]    # every figure and table, with captions
#   snakemake publish --config publish_dir=docs/results/NAME [the run's options]   # a compact copy
#   snakemake --cores N --configfile my-study.yaml        # a study of your own corpus and models
#                                                         # (config/study-example.yaml; papers left out)
#
# config/quick.yaml and config/paper.yaml are overlays on config/config.yaml.

import os

from snakemake.utils import min_version, validate

from topiceval.input_files import load_yaml

min_version("9.0")

# Snakemake keeps the last of a key written twice and names no file in its YAML errors: every
# configuration file is read strictly first (topiceval.input_files.load_yaml), each problem one
# line naming the file.  (A --configfile that is missing or not YAML stops Snakemake before the
# Snakefile runs; `topiceval study CONFIG` checks its file first.)
DEFAULT_CONFIG = "config/config.yaml"
if not os.path.exists(DEFAULT_CONFIG) and not workflow.overwrite_configfiles:
    raise WorkflowError(
        f"{os.path.abspath(DEFAULT_CONFIG)}: no such file; run snakemake in the repository's root "
        "(beside the Snakefile), or give the configuration with --configfile FILE"
    )
for _path in [p for p in (DEFAULT_CONFIG,) if os.path.exists(p)] + list(
    workflow.overwrite_configfiles
):
    try:
        load_yaml(_path)
    except ValueError as exc:
        raise WorkflowError(str(exc))


configfile: DEFAULT_CONFIG


validate(config, "workflow/schemas/config.schema.yaml")


# `snakemake --report report.html` with the run's options: every figure and table with its caption
# (a study's own front page when the configuration has a study: block)
report: "workflow/report/study.rst" if config.get("study") else "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/corpora.smk"
include: "workflow/rules/bechard2018.smk"
include: "workflow/rules/wallach2009.smk"
include: "workflow/rules/foulds_smyth.smk"
include: "workflow/rules/capdevila2018.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/study.smk"
include: "workflow/rules/publish.smk"


rule all:
    input:
        all_targets(),
    default_target: True

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

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


# `snakemake --report report.html` with the run's options: every figure and table with its caption
report: "workflow/report/workflow.rst"


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

# Publishing a run (`docs/results/<configuration>/` in the repository): every figure, caption and
# summary table of `rule all`, with provenance.json (commit, command, configuration, machine,
# versions, CPU and wall seconds per rule from the benchmark files).  Only with
# `--config publish_dir=DIR`, and only into a new directory or an earlier publication:
#
#   snakemake --cores N publish --config publish_dir=docs/results/default [the run's options]
#
# With a `study:` key it publishes the study's tables, figure and caption instead
# (docs/results/studies/<name>/).

import json
import sys

PUBLISH = config.get("publish_dir")

if PUBLISH:
    if os.path.exists(PUBLISH) and not os.path.exists(os.path.join(PUBLISH, "provenance.json")):
        raise WorkflowError(
            f"publish_dir={PUBLISH!r} exists and is not an earlier publication (it has no "
            "provenance.json); name a new directory"
        )

    localrules:
        publish,

    rule publish:
        input:
            all_targets(),
        output:
            directory(PUBLISH),
        params:
            results=RESULTS,
            root=workflow.basedir,
            command=" ".join(["snakemake", *sys.argv[1:]]),
            patterns={r.name: str(r.benchmark) for r in workflow.rules if r.benchmark},
            study=S_PLAN.name if STUDY else None,
            config=json.loads(json.dumps(config, default=str)),
        log:
            f"{LOGS}/publish.log",
        conda:
            ENV
        script:
            "../scripts/publish.py"

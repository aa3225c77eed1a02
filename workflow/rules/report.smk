# The report's guide: the long text that the front page (workflow/report/workflow.rst) leaves
# out, as a page of its own under "About this report": the four papers' references, the
# configurations and this run's settings, how to read the captions.  It is rendered from the
# template workflow/report/guide.rst with the run's configuration (topiceval.report), so a
# change of either rewrites it.

import json


localrules:
    report_guide,


rule report_guide:
    input:
        template=f"{workflow.basedir}/workflow/report/guide.rst",
    output:
        report(
            f"{REPORT_PAGES}/about.html",
            caption="../report/guide-caption.rst",
            category="About this report",
            subcategory="Guide",
            labels={"output": "guide", "in the paper": "(not in the papers)"},
        ),
    params:
        config=json.loads(json.dumps(config, default=str)),
    log:
        f"{LOGS}/report/about.log",
    conda:
        ENV
    script:
        "../scripts/report_guide.py"


register_targets(f"{REPORT_PAGES}/about.html")

# Shared settings, paths and target registry. Every stage's rule file registers its final
# targets with register_targets(); `rule all` asks for all of them.

import os

RESULTS = config["results_dir"].rstrip("/")
RESOURCES = config["resources_dir"].rstrip("/")
LOGS = f"{RESULTS}/logs"
BENCH = f"{RESULTS}/benchmarks"
MIRROR = config.get("data_mirror") or None
ENV = "../../environment.yml"
FIG = config["figure_format"]

if MIRROR and not os.path.isdir(MIRROR):
    raise WorkflowError(
        f"data_mirror={MIRROR!r} is not a directory (it should be laid out like shared/data)"
    )


wildcard_constraints:
    source=r"[A-Za-z0-9_-]+",
    dataset=r"[A-Za-z0-9_-]+",
    variant=r"[A-Za-z0-9_-]+",


_TARGETS = []
_STUDY_TARGETS = []
# With a `study:` key (a configuration of one's own corpus and models, config/study-example.yaml)
# the default target is the study's outputs only; the papers' experiments are left out.
STUDY = config.get("study") or None


def register_targets(*paths):
    _TARGETS.extend(paths)


def register_study_targets(*paths):
    _STUDY_TARGETS.extend(paths)


def all_targets():
    return list(dict.fromkeys(_STUDY_TARGETS if STUDY else _TARGETS))


# ----------------------------------------------------------------------------- data paths
RAW = f"{RESOURCES}/raw"
NLTK_DATA = f"{RESOURCES}/nltk_data"
NLTK_FILES = [f"{NLTK_DATA}/corpora/stopwords.zip", f"{NLTK_DATA}/corpora/wordnet.zip"]


def raw_files(source):
    """Local paths of a source's files, as its download rule writes them."""
    return [f"{RAW}/{entry['path']}" for entry in config["sources"][source]["files"]]


def source_paths(source):
    """Mirror-relative paths of a source's files."""
    return [entry["path"] for entry in config["sources"][source]["files"]]


# ----------------------------------------------------------------------------- corpora
def corpus_path(dataset, variant):
    """A corpus is a (dataset, variant); the variant names a recipe, or has a `recipe` option."""
    return f"{RESULTS}/corpora/{dataset}/{variant}.npz"


def configured_corpora():
    return [(d, v) for d, variants in config["corpora"].items() for v in variants]


def corpus_options(wildcards):
    """Options of one corpus; the global max_docs cap applies unless the entry sets its own."""
    try:
        options = dict(config["corpora"][wildcards.dataset][wildcards.variant])
    except KeyError:
        raise WorkflowError(
            f"corpus {wildcards.dataset}/{wildcards.variant} is not in config['corpora']"
        )
    options.setdefault("recipe", wildcards.variant)
    if config.get("max_docs") is not None:
        options.setdefault("max_docs", config["max_docs"])
    return options


# ----------------------------------------------------------------------------- report
# `snakemake --report report.html` (same options as the run): every figure and table of the
# papers is marked with report(), grouped by paper (category) and experiment (subcategory).
# A caption is a template in workflow/report/ (reStructuredText, rendered with Jinja2 and the
# job's `snakemake` object): a figure's includes the .caption.rst its job wrote beside it (the
# paper's finding, ours, agreement; a rule declaring outputs `caption` and `caption_rst` gets the
# second converted from the first by topiceval.pipeline.rule_context), a data table's describes
# its columns.  A browser shows a report item only if it is a picture, a PDF or an HTML page, so
# a data table is in the report as its page (table_in_report: REPORT_PAGES/<path>.html, written
# by rule_context from the CSV; topiceval.report), the CSV beside it in the page as a download.
# The report's front page, workflow/report/workflow.rst, is kept short (it opens centred and a
# longer one loses its top); the long text is the guide, workflow/report/guide.rst, a page of
# its own (workflow/rules/report.smk).
REPORT_PAGES = f"{RESULTS}/report"
PAPERS = {
    "corpora": "Corpora used by the four papers",
    "bechard2018": "Béchard & Gervet 2018: LDA by VEM and Gibbs sampling",
    "wallach2009": "Wallach et al. 2009: evaluation methods",
    "foulds_smyth": "Foulds & Smyth: robust evaluation of topic models",
    "capdevila2018": "Capdevila et al. 2018: left-to-right for Gamma-Poisson FA",
    "study": "Study: which of your models is best on your documents",
}


def in_report(path, paper, experiment, caption, *, output, item, **labels):
    """``path`` marked for the report: category the paper, subcategory the experiment (a string
    with wildcards or a function of them), caption the template workflow/report/<caption>;
    labels (the columns listing it in the report): ``output`` (figure or table), ``item`` (the
    figure or table of the paper it reproduces) and any further ``labels``.  Label values are
    strings with wildcards or functions of the wildcards."""
    labels = {"output": output, "in the paper": item, **labels}
    if any(callable(value) for value in labels.values()):
        fixed = labels
        labels = lambda wildcards: {
            key: value(wildcards) if callable(value) else value for key, value in fixed.items()
        }
    return report(
        path,
        caption=f"../report/{caption}",
        category=PAPERS[paper],
        subcategory=experiment,
        labels=labels,
    )


def table_in_report(name, path, paper, experiment, caption, *, output, item, **labels):
    """Outputs ``name``, the CSV table ``path`` (under RESULTS), and ``<name>_page``, its page
    REPORT_PAGES/<path under RESULTS>.html marked for the report as in_report() marks a file:
    unpack into a rule's output with ``**``."""
    relative = os.path.relpath(path, RESULTS)
    if relative.startswith("..") or not relative.endswith(".csv"):
        raise WorkflowError(f"table_in_report: {path!r} is not a CSV file under {RESULTS!r}")
    page = f"{REPORT_PAGES}/{relative.removesuffix('.csv')}.html"
    return {
        name: path,
        f"{name}_page": in_report(
            page, paper, experiment, caption, output=output, item=item, **labels
        ),
    }

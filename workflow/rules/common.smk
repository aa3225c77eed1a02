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
    recipe=r"[A-Za-z0-9_-]+",


_TARGETS = []


def register_targets(*paths):
    _TARGETS.extend(paths)


def all_targets():
    return list(dict.fromkeys(_TARGETS))


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
def corpus_path(dataset, recipe):
    return f"{RESULTS}/corpora/{dataset}/{recipe}.npz"


def configured_corpora():
    return [(d, r) for d, recipes in config["corpora"].items() for r in recipes]


def corpus_options(wildcards):
    """Options of one (dataset, recipe) corpus; the global max_docs cap applies unless set."""
    try:
        options = dict(config["corpora"][wildcards.dataset][wildcards.recipe])
    except KeyError:
        raise WorkflowError(
            f"corpus {wildcards.dataset}/{wildcards.recipe} is not in config['corpora']"
        )
    if config.get("max_docs") is not None:
        options.setdefault("max_docs", config["max_docs"])
    return options

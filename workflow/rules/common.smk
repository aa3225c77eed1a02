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

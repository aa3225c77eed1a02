"""The rules of docs/architecture.md that a test can enforce.

Each test names the rule it checks; a failure message says which file breaks it and what the
checklist in docs/architecture.md asks for instead.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "topiceval"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

# public names that several modules define on purpose, with the same meaning in each: the two
# estimator families' APIs mirror each other, each command module registers and runs itself,
# each GaP-FA method module runs its tasks, each paper module has its own figures.
PARALLEL_NAMES = {
    "Cost": "the cost of a call, LDA and GaP-FA",
    "Runs": "per-(document, run) results, LDA and GaP-FA",
    "estimate": "the estimator API, LDA and GaP-FA",
    "estimate_runs": "the estimator API, LDA and GaP-FA",
    "check_limits": "the estimator API, LDA and GaP-FA",
    "hm_document": "the harmonic mean's per-document kernel, LDA and GaP-FA",
    "State": "a training sampler's state, LDA and GaP-FA",
    "sweep": "one sweep of a training sampler, LDA and GaP-FA",
    "register": "a command module's parser",
    "run": "a command module's entry point, a GaP-FA method's task runner, a study from "
           "Python",
    "train_job": "a paper's training job",
    "train_model": "a paper's trained model",
    "run_shard": "a paper's shard of estimator runs",
    "evaluate_shard": "a paper's shard job",
    "workflow_shards": "a paper's shards of the workflow",
    "heldout_documents": "a paper's held-out documents",
    "f1_tasks": "a paper's figure-1 task grid",
    "plot_f1": "a paper's figure 1",
    "Task": "a paper's typed task row",
    "sample_documents": "synthetic documents drawn from a model, LDA and GaP-FA",
    "check_posterior": "the posterior samples BDMC's reverse runs start from, LDA and GaP-FA",
    "floor": "the floor of each document's log P(w), a certain lower bound, LDA and GaP-FA",
    "ceiling": "the ceiling of each document's log P(w), a certain upper bound, LDA and GaP-FA",
    "bounds": "the floor and the ceiling of each document's log P(w), LDA and GaP-FA",
}
PAPER_FIGURE = re.compile(r"^(caption|plot)_[a-z]\d+$|^caption_reciprocal$")


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _public_definitions(path: Path) -> set[str]:
    out = set()
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            out.add(node.name)
    return out


def test_public_names_are_unique_unless_parallel():
    """Names: no two public functions or classes of the same name with different meanings.  A
    name defined in several modules must be one of the documented parallel names."""
    seen: dict[str, list[str]] = {}
    for path in _modules():
        for name in _public_definitions(path):
            seen.setdefault(name, []).append(_module_name(path))
    clashes = {name: where for name, where in seen.items()
               if len(where) > 1 and name not in PARALLEL_NAMES
               and not PAPER_FIGURE.match(name)}
    assert not clashes, f"rename one of each (docs/architecture.md#rules): {clashes}"


def test_training_and_evaluation_packages_are_distinct():
    """Names: models are trained in topiceval.training, evaluated in topiceval.estimators."""
    assert (SRC / "training" / "lda").is_dir() and (SRC / "training" / "gapfa").is_dir()
    assert not (SRC / "lda").exists() and not (SRC / "gapfa").exists()
    gibbs = [p.relative_to(SRC) for p in _modules() if p.name == "gibbs.py"]
    assert gibbs == [Path("training/lda/gibbs.py")], gibbs


# ------------------------------------------------------------------ one declaration per method
def _declarations():
    from topiceval.estimators.gapfa import registry as gapfa_registry
    from topiceval.estimators.lda import registry as lda_registry
    from topiceval.logistic_normal import registry as logistic_normal_registry

    for family, table in (("lda", lda_registry.ESTIMATE), ("lda", lda_registry.COMPLETE),
                          ("gapfa", gapfa_registry.METHODS),
                          ("logistic_normal", logistic_normal_registry.METHODS)):
        for name, method in table.items():
            yield family, name, method


def _declaring_module(family: str, method) -> str | None:
    package = SRC / family if family == "logistic_normal" else SRC / "estimators" / family
    for path in sorted(package.glob("*.py")):
        if path.stem in {"registry", "__init__", "api"}:
            continue
        module = importlib.import_module(_module_name(path))
        if any(value is method for value in vars(module).values()):
            return module.__name__
    return None


@pytest.mark.parametrize("family, name, method", list(_declarations()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_each_method_is_declared_in_its_kernel_module(family, name, method):
    """Adding a method: its declaration lives in the module of its kernel, complete."""
    from topiceval.estimators.method import Method

    assert isinstance(method, Method) and method.name == name
    module = _declaring_module(family, method)
    assert module is not None, f"{name}: declare it in its kernel's module, not in a registry"
    assert method.nature and method.formula_for(method.resolve({})), name
    names = {s.name for s in method.settings}
    assert method.budget is None or method.budget in names, (name, method.budget)
    if family == "lda" and method.code:
        kernel = inspect.getsource(importlib.import_module("topiceval.estimators.lda.tasks"))
        code_name = next(k for k, v in vars(importlib.import_module(module)).items()
                         if k.endswith("_CODE") and v == method.code)
        assert code_name in kernel, f"{name}: tasks.run_tasks needs a branch on {code_name}"
    if family == "gapfa":
        assert callable(method.run), name


def test_method_declarations_are_built_only_in_estimator_modules():
    """Adding a method: nothing outside the estimator modules constructs a Method."""
    offenders = []
    for path in _modules():
        rel = path.relative_to(SRC)
        if (rel.parts[0] in ("estimators", "logistic_normal")
                and path.stem not in {"registry", "__init__", "api"}):
            continue
        for node in ast.walk(_tree(path)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "Method"):
                offenders.append(str(rel))
    assert not offenders, offenders


def test_dispatch_codes_are_unique_per_kernel():
    """A dispatch code names one kernel branch; methods share one only as the two forms of one
    kernel (``alternative``)."""
    by_code: dict[int, list] = {}
    for family, _, method in _declarations():
        if family == "lda" and method.code:
            by_code.setdefault(method.code, []).append(method)
    for code, methods in by_code.items():
        plain = {m.name for m in methods if not m.alternative}
        assert len(plain) == 1, (code, [m.name for m in methods])


# ------------------------------------------------------------------ one validation, one seed scheme
SEED_FUNCTIONS = {"default_rng", "SeedSequence", "RandomState", "seed"}


def _is_seed(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name == "seed" or name.endswith("_seed")


def _seed_derivations(path: Path) -> list[str]:
    out = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            random = isinstance(func, ast.Attribute) and "random" in ast.unparse(func.value)
            if name in SEED_FUNCTIONS - {"seed"} or (name == "seed" and random):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            if _is_seed(node.left) or _is_seed(node.right):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_every_seed_is_derived_in_topiceval_seeds():
    """Seeds: no generator is built and no seed derived (``seed + k``) outside
    topiceval.seeds, in the package or the workflow scripts."""
    paths = [p for p in _modules() if p.name != "seeds.py"]
    paths += sorted((ROOT / "workflow" / "scripts").glob("*.py"))
    offenders = [o for p in paths for o in _seed_derivations(p)]
    assert not offenders, offenders


def test_seed_names_hash_apart():
    """Seeds: different names give different streams; the scheme reproduces the data splits'
    historical streams (a seed and a purpose constant)."""
    import numpy as np

    from topiceval.seeds import derive_seed, generator, stream_key

    assert derive_seed(0, "accuracy", 1) != derive_seed(0, "accuracy", 2) != derive_seed(1, 1)
    assert generator(5, 3).random() == np.random.default_rng([5, 3]).random()
    assert stream_key("nips") == stream_key("nips") and stream_key(7) == 7
    with pytest.raises(TypeError, match="bool"):
        stream_key(True)


VALIDATOR = re.compile(r"^_?(check_(integer|seed|threads|positive|count)|integer|count|index|"
                       r"positive)$")


def test_basic_validators_live_in_one_module():
    """Validation: integers, seeds, thread counts and positive numbers are checked by
    topiceval.validation only."""
    offenders = []
    for path in _modules():
        if path.name == "validation.py":
            continue
        for node in _tree(path).body:
            if isinstance(node, ast.FunctionDef) and VALIDATOR.match(node.name):
                offenders.append(f"{path.relative_to(SRC)}: {node.name}")
    assert not offenders, offenders


def test_no_function_imports_from_its_own_package_init():
    """Layers: a module never imports, inside a function, names from the ``__init__`` of the
    package it belongs to (a hidden import cycle: the package imports the module).  Deferred
    imports of submodules or of other layers (the command line loading numba on use) are
    allowed."""
    offenders = []
    for path in _modules():
        if path.name == "__init__.py":
            continue
        package = _module_name(path).rsplit(".", 1)[0]
        directory = path.parent
        for func in ast.walk(_tree(path)):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.module == package:
                    names = [a.name for a in node.names
                             if not (directory / f"{a.name}.py").exists()
                             and not (directory / a.name).is_dir()]
                    if names:
                        offenders.append(f"{path.relative_to(SRC)}:{node.lineno}: {names}")
    assert not offenders, offenders


# ------------------------------------------------------------------ experiments, corpora, importers
SHARED_EXPERIMENT_MODULES = {"__init__", "bootstrap", "paired", "rows", "tasks", "timings",
                             "trained"}


def _papers() -> list[str]:
    return sorted(p.stem for p in (SRC / "experiments").glob("*.py")
                  if p.stem not in SHARED_EXPERIMENT_MODULES)


@pytest.mark.parametrize("paper", _papers())
def test_each_experiment_has_its_files(paper):
    """Adding an experiment: the checklist's files exist."""
    need = [SRC / "plots" / f"{paper}.py", ROOT / "workflow" / "rules" / f"{paper}.smk",
            ROOT / "workflow" / "schemas" / f"{paper}.schema.yaml",
            ROOT / "tests" / f"test_{paper}_workflow.py"]
    missing = [str(p.relative_to(ROOT)) for p in need if not p.exists()]
    assert not missing, missing
    assert f"## {paper}\n" in (ROOT / "docs" / "methods" / "experiments.md").read_text()
    assert f"include: \"workflow/rules/{paper}.smk\"" in (ROOT / "Snakefile").read_text()


@pytest.mark.parametrize("paper", _papers())
def test_paper_modules_do_not_borrow_from_each_other(paper):
    """Adding an experiment: what two papers share goes into the shared experiment modules."""
    others = set(_papers()) - {paper}
    for node in ast.walk(_tree(SRC / "experiments" / f"{paper}.py")):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.rsplit(".", 1)[-1] not in others, (paper, node.module)
            assert not (node.module == "topiceval.experiments"
                        and {a.name for a in node.names} & others), (paper, node.module)


def test_each_corpus_is_wired_through():
    """Adding a corpus: a reader, a DatasetSpec, a schema entry and staged sources."""
    from topiceval.data.prepare import DATASETS

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    text = (ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text()
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert schema
    for name in DATASETS:
        assert re.search(rf"\b{re.escape(name)}\b", text), f"{name}: add it to the schema enum"
        assert name in config["sources"], f"{name}: list its files under sources in config.yaml"


def test_each_importer_is_on_the_command_line_and_tested():
    """Adding an importer: a from_<library> in topiceval.adapters, a --from choice, a test and
    a recipe on the documentation's page "Score a model you trained elsewhere"."""
    from topiceval import adapters

    cli = (SRC / "commands" / "import_model.py").read_text()
    tests = (ROOT / "tests" / "test_adapters.py").read_text()
    recipes = (ROOT / "docs" / "score-a-model.md").read_text()
    for name in adapters.__all__:
        if not name.startswith("from_"):
            continue
        assert f"adapters.{name}(" in cli, f"{name}: topiceval import --from needs it"
        assert f"{name}(" in tests, f"{name}: tests/test_adapters.py needs a test"
        assert f"{name}(" in recipes, f"{name}: docs/score-a-model.md needs a recipe"


def test_architecture_page_names_existing_files():
    """docs/architecture.md stays true: every path it names exists."""
    text = ARCHITECTURE.read_text()
    paths = set(re.findall(r"`((?:src|tests|workflow|config|docs|benchmarks)/[\w./-]+)`", text))
    assert paths, "docs/architecture.md names no files"
    missing = sorted(p for p in paths
                     if not any(ROOT.glob(p.replace("<paper>", "*").replace("<name>", "*"))))
    assert not missing, missing

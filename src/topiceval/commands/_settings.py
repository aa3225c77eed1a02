"""Estimator settings as command-line options, shared by ``estimate`` and ``evaluate``.

The options are read from the methods' declarations (``topiceval.estimators.method.Setting``, in
``topiceval.estimators.lda.registry``, ``topiceval.estimators.gapfa.registry`` and
``topiceval.logistic_normal.registry``): one option
per setting name, parsed with the setting's type, with its choices and, in the help, its meaning
in each method that takes it.  Only the options given on the command line are passed on; the
others keep the estimator's defaults, and the estimator refuses a setting its method does not
take (naming the allowed ones) or a value outside its bounds.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from topiceval.commands import wrapped
from topiceval.estimators.method import Method, Setting


def method_tables() -> dict[str, dict[str, Method]]:
    """The declared methods by family label: LDA estimate, LDA completion, GaP-FA,
    logistic-normal."""
    from topiceval.estimators.gapfa import registry as gapfa_registry
    from topiceval.estimators.lda import registry as lda_registry
    from topiceval.logistic_normal import registry as logistic_normal_registry

    return {"LDA": lda_registry.ESTIMATE, "LDA --complete": lda_registry.COMPLETE,
            "GaP-FA": gapfa_registry.METHODS,
            "logistic-normal": logistic_normal_registry.METHODS}


def declared_settings() -> dict[str, tuple[Setting, str]]:
    """Each setting name: its first declaration and a help text naming, for each meaning, the
    methods that take it."""
    first: dict[str, Setting] = {}
    uses: dict[str, dict[str, dict[str, list[str]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    for label, methods in method_tables().items():
        for method in methods.values():
            for setting in method.settings:
                first.setdefault(setting.name, setting)
                uses[setting.name][setting.help][label].append(method.name)
    out = {}
    for name, setting in first.items():
        meanings = []
        for text, by in uses[name].items():
            methods = "; ".join(f"{label}: {', '.join(names)}" for label, names in by.items())
            meanings.append(f"{text} ({methods})")
        out[name] = (setting, "; ".join(meanings))
    return out


def add_setting_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "estimator settings", wrapped(
            "only the settings given are passed; the rest keep the method's defaults (the "
            "settings column of the output holds them all)"))
    for name, (setting, text) in declared_settings().items():
        option = f"--{name.replace('_', '-')}"
        if setting.kind is bool:
            group.add_argument(option, dest=name, action=argparse.BooleanOptionalAction,
                               default=None, help=text)
        else:
            group.add_argument(option, dest=name, type=setting.kind,
                               choices=setting.choices or None, help=text)


def settings_from(args: argparse.Namespace) -> dict:
    """The settings given on the command line."""
    return {name: getattr(args, name) for name in declared_settings()
            if getattr(args, name, None) is not None}


def work_limit(text: str):
    """``--work-limit``: a positive number of work units, ``none`` or ``default``."""
    if text.lower() in ("none", "default"):
        return None if text.lower() == "none" else "default"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def add_limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--work-limit", type=work_limit, default="default", metavar="UNITS",
        help="the most work of the whole command, all documents and runs (LDA: Gibbs site "
             "updates, default 2.4e9, two to four minutes of one core; GaP-FA: topic-word site "
             "updates, default 6e9, up to a minute; logistic-normal: work units proportional "
             "to CPU time, default 1.4e11, about a minute); a larger call is refused before it "
             "starts, with its predicted time and the runs, setting or documents that would fit; "
             "'none' lifts the limit")

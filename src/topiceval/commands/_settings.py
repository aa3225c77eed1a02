"""Estimator settings as command-line options, shared by ``estimate`` and ``evaluate``.

Only the options given on the command line are passed on; the others keep the estimator's
defaults, and the estimator refuses a setting its method does not take (naming the allowed
ones).  The names are those of ``topiceval.estimators.lda.registry`` and
``topiceval.estimators.gapfa.registry``.
"""

from __future__ import annotations

import argparse

from topiceval.commands import wrapped

# (name, type, help)
OPTIONS = (
    ("samples", int, "samples S (LDA: is_*, hm, chib; GaP-FA: every sampled method)"),
    ("burnin", int, "burn-in sweeps B (LDA: hm, chib, et, completion ais; GaP-FA: hm)"),
    ("iterations", int, "iterations I (LDA: is_ip, chib's ICM passes)"),
    ("temperatures", int, "annealing temperatures (LDA: ais)"),
    ("particles", int, "particles R (LDA: lr, lr_wallach)"),
    ("max_work", int, "work limit of the exact LDA recursion"),
    ("inner_samples", int, "inner importance samples S' (GaP-FA: l2r)"),
    ("gibbs", int, "Gibbs iterations G per sample (GaP-FA: l2r, l2r_exact, l2r_seq)"),
    ("proposal", str, "L2R proposal, 'paper' or 'code' (GaP-FA: l2r)"),
    ("max_terms", float, "term limit of the exact GaP-FA marginal"),
    ("algorithm", str, "exact GaP-FA algorithm: auto, enumerate or dp"),
)


def add_setting_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "estimator settings", wrapped(
            "only the settings given are passed; the rest keep the method's defaults (the "
            "settings column of the output holds them all)"))
    for name, kind, text in OPTIONS:
        group.add_argument(f"--{name.replace('_', '-')}", type=kind, dest=name, help=text)
    group.add_argument("--resample", action=argparse.BooleanOptionalAction, default=None,
                       help="left-to-right rejuvenation sweeps (LDA: lr, lr_wallach; default on)")


def settings_from(args: argparse.Namespace) -> dict:
    """The settings given on the command line."""
    out = {name: getattr(args, name) for name, _, _ in OPTIONS if getattr(args, name) is not None}
    if args.resample is not None:
        out["resample"] = args.resample
    return out


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
        help="the most work one document and run may take (LDA: Gibbs site updates, default "
             "1e10; GaP-FA: topic-word site updates, default 1e11; a few minutes of one core); "
             "a larger call is refused before it starts, naming the setting that would fit; "
             "'none' lifts the limit")

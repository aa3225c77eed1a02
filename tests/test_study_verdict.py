"""A study's verdict checks what it assumes (issue 45, item 2): the best at an edge of the grid
of topics says so, and a verdict that changes without the untrusted documents is not settled.

The document rows are made up (``rows``): 40 documents, each candidate's log-likelihoods a
fixed shift of one shared profile plus seeded noise, so the paired differences and their
standard errors are known in advance.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from topiceval.experiments.study import Candidate, check_assumptions

ROOT = Path(__file__).resolve().parents[1]  # the clone: its workflow, also when testing a wheel

DOCS = 40


def rows(shift: float, noise: float, untrusted: tuple[int, ...] = (), seed: int = 0,
         changed: dict[int, float] | None = None) -> pd.DataFrame:
    """One candidate's rows: logp = profile + shift + noise (+ ``changed`` documents moved)."""
    rng = np.random.default_rng(seed)
    profile = np.random.default_rng(99).normal(-400, 50, DOCS)
    logp = profile + shift + rng.normal(0, noise, DOCS)
    for doc, by in (changed or {}).items():
        logp[doc] += by
    trusted = np.ones(DOCS, bool)
    trusted[list(untrusted)] = False
    return pd.DataFrame({"doc": np.arange(DOCS), "logp": logp, "stderr": 0.1,
                         "tokens": 100, "trusted": trusted})


def table(by: dict[str, pd.DataFrame], topics: dict[str, int], best: str,
          ties: tuple[str, ...] = ()) -> pd.DataFrame:
    return pd.DataFrame({"candidate": list(by), "trainer": "gibbs",
                         "topics": [topics[n] for n in by],
                         "verdict": ["best" if n == best else "tie" if n in ties else "worse"
                                     for n in by]})


def candidates(topics: dict[str, int]) -> list[Candidate]:
    return [Candidate(n, "topiceval", "gibbs", t, 0) for n, t in topics.items()]


def test_a_best_at_the_largest_number_of_topics_says_so():
    topics = {"T10": 10, "T25": 25, "T50": 50}
    by = {"T10": rows(-30, 1, seed=1), "T25": rows(-15, 1, seed=2), "T50": rows(0, 1, seed=3)}
    out = check_assumptions(table(by, topics, "T50"), by, candidates(topics))
    assert out.set_index("candidate")["grid_edge"].to_dict() == {
        "T10": "", "T25": "", "T50": "largest T"}
    assert out["settled"].all()  # no untrusted document: nothing to recompute


def test_a_best_inside_the_grid_is_not_at_an_edge():
    topics = {"T10": 10, "T25": 25, "T50": 50}
    by = {"T10": rows(-30, 1, seed=1), "T25": rows(0, 1, seed=2), "T50": rows(-15, 1, seed=3)}
    out = check_assumptions(table(by, topics, "T25"), by, candidates(topics))
    assert (out["grid_edge"] == "").all()


def test_a_verdict_that_changes_without_the_untrusted_documents_is_not_settled():
    """A is ahead of B by about 120 nats only through 3 documents B's estimate is untrusted on
    (each 100 nats too low): without them B is ahead by about 166 nats (4.5 a document), far
    beyond its paired standard error (about 6 nats)."""
    topics = {"A": 10, "B": 20}
    bad = (3, 7, 11)
    by = {"A": rows(0, 1, seed=1),
          "B": rows(4.5, 1, bad, seed=2, changed=dict.fromkeys(bad, -100.0))}
    assert by["A"]["logp"].sum() > by["B"]["logp"].sum()
    out = check_assumptions(table(by, topics, "A"), by, candidates(topics)).set_index(
        "candidate")
    assert out["verdict_trusted_only"].to_dict() == {"A": "worse", "B": "best"}
    assert not out["settled"].any() and (out["untrusted_by_any"] == 3).all()


def test_a_verdict_that_holds_without_the_untrusted_documents_is_settled():
    topics = {"A": 10, "B": 20}
    by = {"A": rows(0, 1, seed=1), "B": rows(-10, 1, (3, 7), seed=2)}
    out = check_assumptions(table(by, topics, "A"), by, candidates(topics))
    assert out["settled"].all()
    assert out["verdict_trusted_only"].tolist() == ["best", "worse"]


def test_the_caption_names_the_edge_and_the_unsettled_verdict():
    from topiceval.plots.study import assumption_lines

    topics = {"A": 10, "B": 20}
    bad = (3, 7, 11)
    by = {"A": rows(0, 1, seed=1),
          "B": rows(4.5, 1, bad, seed=2, changed=dict.fromkeys(bad, -100.0))}
    out = check_assumptions(table(by, topics, "A"), by, candidates(topics))
    said = " ".join(assumption_lines(out, out.iloc[0]))
    assert "**The best is at the edge of the grid:** A has the smallest number of topics " \
           "trained (T = 10)" in said
    assert "**Not settled:** without the 3 scored documents" in said
    assert "(A best -> worse, B worse -> best)" in said


def test_the_study_command_prints_the_verdict_when_the_run_ends(tmp_path, monkeypatch, capsys):
    import subprocess

    import yaml

    from topiceval.cli import main

    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump({"study": {"name": "mine"}}))
    monkeypatch.setattr("topiceval.commands.study.check_plan", lambda args, root: None)
    folder = tmp_path / "results" / "studies" / "mine"
    folder.mkdir(parents=True)
    (folder / "perplexity.caption.md").write_text("**Study mine: A is the best**\n")
    monkeypatch.setattr(subprocess, "run",
                        lambda cmd, cwd: subprocess.CompletedProcess(cmd, 0))
    assert main(["study", str(config), "--results", str(tmp_path / "results"),
                 "--workflow", str(ROOT)]) == 0
    assert "Study mine: A is the best" in capsys.readouterr().out


def candidate_table() -> pd.DataFrame:
    """A made-up candidates.csv of three candidates (the columns the figure and caption read)."""
    ppl = np.array([1000.0, 1010.0, 1100.0])
    return pd.DataFrame({
        "candidate": ["gibbs-T10-seed0", "gibbs-T20-seed0", "gibbs-T50-seed0"],
        "library": "topiceval", "trainer": "gibbs", "topics": [10, 20, 50], "seed": 0,
        "vocabulary": 500, "documents": 40, "heldout_documents": 40, "tokens": 4000,
        "log_likelihood": -4000 * np.log(ppl), "nats_per_token": -np.log(ppl),
        "perplexity": ppl, "perplexity_low": ppl - 1, "perplexity_high": ppl + 1,
        "perplexity_docs_low": ppl - 80, "perplexity_docs_high": ppl + 90,
        "dominant_error": "Monte Carlo", "method": "is_z", "runs": 4,
        "verdict": ["best", "tie", "worse"], "difference_to_best": [0.0, 40.0, 381.0],
        "difference_se": [0.0, 25.0, 30.0], "z": [0.0, 1.6, 12.7], "grid_edge": "smallest T",
        "untrusted_documents": 0, "untrusted_by_any": 0, "settled": True,
        "verdict_trusted_only": ["best", "tie", "worse"], "tokens_dropped": 0,
        "own_perplexity": np.nan, "own_kind": "", "own_split": "", "own_nats_per_token": np.nan})


def test_the_caption_gives_both_intervals_and_the_words_follow_the_rule(tmp_path):
    from topiceval.plots.study import plot_study, study_caption

    cands = candidate_table()
    text = study_caption(cands, pd.DataFrame(), pd.DataFrame(), "made-up")
    assert ("held-out perplexity 1,000.0, +/- 2 s.e. allowing for which documents were held "
            "out [920.0, 1,090.0], Monte Carlo error alone [999.0, 1,001.0]") in text
    assert ("a tie when z <= 2, worse when z > 2. Ties: gibbs-T20-seed0 (z = 1.6). Worse: "
            "gibbs-T50-seed0 (by 12.7 s.e.).") in text
    plot_study(cands, tmp_path / "figure.png")
    assert (tmp_path / "figure.png").stat().st_size > 10_000


def test_the_report_front_page_states_the_study_without_a_docutils_error():
    from docutils.core import publish_parts

    from topiceval.plots.study import front_page, study_caption

    cands = candidate_table().assign(rank=[1, 2, 3])
    caption = study_caption(cands, pd.DataFrame(), pd.DataFrame(), "made-up")
    rst = front_page(cands, caption, "made-up", {"texts": "my/folder"},
                     {"fraction": 0.1, "seed": 0})
    html = publish_parts(rst, writer="html",
                         settings_overrides={"report_level": 1})["html_body"]
    assert "System Message" not in html and "papers" not in html
    assert "which of 3 topic models is best on held-out documents" in html
    assert "<strong>Corpus:</strong> texts my/folder; held out: fraction 0.1, seed 0" in html
    assert html.count("<tr") == 4  # the table of candidates: its header and three rows

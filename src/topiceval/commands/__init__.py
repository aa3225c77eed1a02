"""Sub-commands of the ``topiceval`` command, one module each.

``OUTPUT_COLUMNS`` below is the one place where the columns of every command's output table are
defined (name and meaning, units included); ``topiceval COMMAND --help`` prints that command's
columns after its options (``epilog``), and the tests check that each command writes exactly
these columns, in this order.  Log-probabilities are natural logs, in nats, of one document
(``_nats`` in a column name); ``seconds`` means the same in every command (``SECONDS``).
"""

from __future__ import annotations

import argparse
import textwrap

from topiceval._docs import page

SECONDS = (
    "wall-clock seconds spent in the estimator kernels (compilation excluded) by the calls that "
    "produced this row, shared equally among the rows those calls produced: the kernels time "
    "blocks of documents run in parallel, not single documents, so the column sums to the "
    "command's total kernel time; 'work' is the per-row cost")
SETTINGS = ("the estimator's settings as JSON, resolved: defaults included, as well as those "
            "given on the command line (keyed by method when the default scored documents "
            "with two: 'method' says which scored the row)")
WORK = ("the row's cost: Gibbs site updates (LDA), topic-word site updates (GaP-FA sampled "
        "methods) or terms summed (GaP-FA exact); it does not depend on the machine")

OUTPUT_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "estimate": (
        ("family", "model family: lda or gapfa"),
        ("method", "estimator (--method)"),
        ("target", "estimate: log P(w_d | model); complete: log P(w2_d | w1_d, model), the "
                   "document's tokens after the first --completion-split given those"),
        ("doc", "position of the document among those evaluated (0-based, after --split)"),
        ("name", "the document's name in the corpus"),
        ("tokens", "tokens in the document after out-of-vocabulary words were dropped"),
        ("run", "independent run, 0 .. --runs - 1 (each run has its own random streams)"),
        ("logp_nats", "the run's estimate of the log-probability of the document (or of its "
                      "second part, for target complete), in nats; for bdmc its stochastic "
                      "lower bound"),
        ("upper_nats", "bdmc: the run's stochastic upper bound on the log-probability, in nats "
                       "(reverse annealing; approximate without exact posterior samples); "
                       "empty for the other methods"),
        ("work", WORK),
        ("seconds", SECONDS),
        ("seed", "--seed"),
        ("settings", SETTINGS),
    ),
    "evaluate": (
        ("doc", "position of the document (0-based, in the order of --docs)"),
        ("name", "the document's name: from the corpus, the MALLET line, or 'line N'"),
        ("tokens_scored", "tokens scored: the document's words found in the model's vocabulary"),
        ("oov_tokens_dropped", "tokens left out because the model does not know the word"),
        ("logp_nats", "log P(document | model) in nats: the runs averaged in probability, then "
                      "logged; empty for a skipped document"),
        ("stderr_nats", "standard error of logp_nats from the spread of the runs (delta "
                        "method), in nats; 0 for the exact method, empty with one run"),
        ("logp_per_token_nats", "logp_nats / tokens_scored"),
        ("upper_nats", "--method bdmc: the stochastic upper bound on log P(document | model), "
                       "in nats (the runs' reverse weights averaged; approximate: started from "
                       "the forward runs' final states); empty for the other methods"),
        ("gap_nats", "upper_nats - logp_nats: how far from converged the estimate can be; "
                     "empty for the other methods"),
        ("runs", "independent runs of the document (--runs; with --target, as many as it "
                 "needed)"),
        ("target_reached", "with --target: True if the document reached it within the work "
                           "limit and its estimate is trusted (column trusted); empty "
                           "otherwise"),
        ("method", "estimator (--method, or the family's default)"),
        ("work", "the document's cost summed over its runs: " + WORK),
        ("khat", "Pareto shape k-hat of the largest importance weights, pooled over the runs "
                 "(above 1 - 1/log10 of their number, or 0.7, the mean and its standard error "
                 "cannot be trusted; empty where the method has no weights or too few); L2R: "
                 "the median over runs of its largest factor's (" + page("trust.md") + ")"),
        ("ess", "effective sample size of the pooled weights (Chib-style: of the chains)"),
        ("rhat", "Chib-style: split R-hat of the chains' log-likelihoods over the runs (near "
                 "1 when the runs agree; empty for other methods)"),
        ("runs_spread", "the share of the runs' probability average carried by the largest "
                        "run (1/runs when they agree, near 1 when one run dominates)"),
        ("repeats", "the share of importance draws whose weight repeats the draw's before "
                    "(near 1: the proposal keeps drawing one state)"),
        ("heavy_factor_sd", "GaP-FA L2R: the standard deviation, in nats, that the factors "
                            "whose k-hat is above PSIS's threshold carry in a run's log "
                            "estimate (median over runs; above 0.1 the estimate is not "
                            "trusted); empty for other methods"),
        ("floor", "sampling methods: in nats, the probability terms of the allocations of "
                  "the document's counts to topics near one found by hill climbing, summed, "
                  "which the log-likelihood cannot be below (an estimate more than 0.1 nats "
                  "under it is not trusted; " + page("trust.md#the-floor") + "); empty for "
                  "exact methods; for document completion, of log P(w2 | w1): w's floor less "
                  "w1's ceiling"),
        ("ceiling", "sampling methods: in nats, an upper bound on the log-likelihood, the "
                    "probability terms of every allocation of the document's counts to "
                    "topics, each bounded from above (an estimate more than 0.1 nats over it "
                    "is not trusted; " + page("trust.md#the-ceiling") + "); empty for exact "
                    "methods; for document completion, w's ceiling less w1's floor"),
        ("trusted", "True when the estimate passed the diagnostics, or lies within 0.1 nats "
                    "of both the floor and the ceiling and so of the log-likelihood ("
                    + page("trust.md#the-rule") + ")"),
        ("reason", "why it is not trusted (empty when trusted)"),
        ("seconds", SECONDS + "; 0 for a skipped document"),
        ("seed", "--seed"),
        ("settings", SETTINGS),
    ),
    "compare": (
        ("method", "ratio_ais: ratio-AIS; standard: the difference of two independent AIS "
                   "estimates"),
        ("doc", "position of the document among those compared (0-based, after --split)"),
        ("name", "the document's name in the corpus"),
        ("tokens", "tokens in the document after out-of-vocabulary words were dropped"),
        ("log_ratio_nats", "estimate of log P(w_d | A) - log P(w_d | B) in nats (> 0: the "
                           "document prefers model A); with --completion, of the tokens after "
                           "the first --completion-split given those"),
        ("reverse_nats", "ratio-AIS annealing the other way: estimate of log P(w_d | B) - "
                         "log P(w_d | A), in nats; empty for standard rows and with "
                         "--no-reciprocal"),
        ("reciprocal_gap_nats", "-(log_ratio_nats + reverse_nats), in nats: >= 0 in "
                                "expectation, large when a run did not converge"),
        ("suspect", "True when |reciprocal_gap_nats| exceeds --threshold"),
        ("site_updates", "Gibbs site updates of the row's runs (empty for standard rows)"),
        ("seconds", SECONDS),
        ("samples", "importance samples per run (--samples)"),
        ("temperatures", "annealing temperatures (--temperatures)"),
        ("seed", "--seed"),
        ("settings", "the comparison's settings as JSON, resolved: defaults included"),
    ),
    "train": (
        ("sweep", "gibbs: the sweep after which the log joint was recorded (0: the random "
                  "start)"),
        ("log_joint_nats", "gibbs: the collapsed log joint log P(w, z) of the training "
                           "documents, in nats"),
        ("iteration", "vem: the EM iteration"),
        ("elbo_nats", "vem: the evidence lower bound on log P(w) of the training documents, "
                      "in nats"),
    ),
    "coherence": (
        ("topic", "the topic's row in the model (0-based), or 'mean': the mean over topics"),
        ("top_words", "the topic's most probable words, max(--top-n) of them, in rank order"),
        ("absent_words", "those top words that no window of the reference holds (their pairs "
                         "score NPMI -1 and UMass 0, " + page("coherence.md")
                         + "); empty when none"),
        ("npmi", "NPMI of the topic's top words over the reference, averaged over the pairs "
                 "of its top n words and over n in --top-n (between -1 and 1; higher is more "
                 "coherent)"),
        ("npmi_low", "lower end of the basic bootstrap interval of npmi (reference "
                     "documents resampled, --replicates, --level)"),
        ("npmi_high", "upper end of that interval"),
        ("umass", "UMass (gensim's form: mean over pairs of log((p(w_i, w_j) + 1e-12) / "
                  "p(w_j)), w_j ranked higher), averaged over n in --top-n; for comparison"),
        ("umass_low", "lower end of the basic bootstrap interval of umass"),
        ("umass_high", "upper end of that interval"),
        ("c_v", "with --c-v: C_V as gensim computes it, averaged over n in --top-n; not "
                "recommended (" + page("coherence.md") + "); empty otherwise"),
        ("c_v_low", "with --c-v: lower end of the basic bootstrap interval of c_v"),
        ("c_v_high", "with --c-v: upper end of that interval"),
        ("window", "what co-occurrence means: 'document' or 'sliding N' (--window)"),
        ("top_n", "the cardinalities averaged over (--top-n)"),
        ("reference_documents", "documents in the reference (after --split)"),
        ("reference_windows", "windows counted in the reference (documents, for 'document')"),
        ("replicates", "bootstrap replicates (--replicates)"),
        ("level", "coverage of the intervals (--level)"),
        ("seed", "--seed"),
    ),
    "corpus-stats": (
        ("path", "the corpus file"),
        ("split", "all, or one split label of the corpus"),
        ("D", "documents"),
        ("V", "vocabulary size (word types)"),
        ("tokens", "tokens in all the documents"),
        ("mean_length", "mean tokens per document"),
        ("sd_length", "standard deviation of the tokens per document"),
    ),
}
OUTPUT_NAMES = {"estimate": "the CSV (--out)", "evaluate": "the per-document CSV (--out)",
                "compare": "the CSV (--out)", "coherence": "the CSV (--out)",
                "train": "the training objective CSV (--trace)",
                "corpus-stats": "the tab-separated table on standard output"}
WIDTH = 78


def columns_epilog(command: str) -> str:
    """The output columns of ``command`` as text for its ``--help`` (after the options)."""
    lines = [f"output columns of {OUTPUT_NAMES[command]}:"]
    for name, meaning in OUTPUT_COLUMNS[command]:
        lines += textwrap.wrap(f"{name}: {meaning}", WIDTH, initial_indent="  ",
                               subsequent_indent="      ")
    return "\n".join(lines)


def warning_line(command: str, message: object) -> str:
    """A warning during ``topiceval COMMAND``, as the one line printed on standard error."""
    text = " ".join(line.strip() for line in str(message).splitlines() if line.strip())
    return f"topiceval {command}: warning: {text}"


def wrapped(text: str) -> str:
    """A description paragraph wrapped for ``RawDescriptionHelpFormatter``."""
    return textwrap.fill(" ".join(text.split()), WIDTH)


def add_command(subparsers, name: str, *, help: str, description: str | None = None,
                columns: bool = True, **kwargs) -> argparse.ArgumentParser:
    """``subparsers.add_parser`` with the command's output columns (if any, and ``columns``)
    as its epilog."""
    return subparsers.add_parser(
        name, help=help, description=wrapped(description or help[:1].upper() + help[1:] + "."),
        epilog=columns_epilog(name) if columns and name in OUTPUT_COLUMNS else None,
        formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)

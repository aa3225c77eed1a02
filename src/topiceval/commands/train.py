"""``topiceval train lda|gapfa``: fit a model to a saved corpus and write it as a model file.

    topiceval train lda --corpus C.npz --topics T --trainer gibbs|vem --out M.npz [options]
    topiceval train gapfa --corpus C.npz --topics T --out M.npz [options]

The LDA trainers are :func:`topiceval.training.lda.fit_gibbs` and
:func:`topiceval.training.lda.fit_vem`; ``--trace`` writes their objective trace (collapsed log
joint (1.7) or ELBO) as CSV.  The GaP-FA trainer is :func:`topiceval.training.gapfa.fit_gapfa` on
the document-word count matrix.  ``--split`` selects the documents to train on (default: all).
Output files are written atomically, and ``--out`` and ``--trace`` together: both or neither.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from topiceval import tokenizer
from topiceval.commands import add_command, columns_epilog, wrapped
from topiceval.corpus import Corpus
from topiceval.io import atomic_paths, write_csv_atomic
from topiceval.models import save_model

if TYPE_CHECKING:
    import pandas as pd

    from topiceval.training.lda import GibbsResult, VemResult

# --variant of ``train lda --trainer vem``: the command's names -> ``fit_vem``'s
VEM_VARIANTS = {"bechard2018": "seed001", "full": "full"}
VEM_ALIASES = {"seed001": "bechard2018"}  # fit_vem's own name, still accepted


def register(subparsers) -> None:
    parser = add_command(
        subparsers, "train", help="fit a topic model to a corpus file", columns=False,
        description="Fit a topic model to the documents of a corpus file (topiceval corpus "
                    "format) and write it as a model file; 'topiceval train lda --help' and "
                    "'topiceval train gapfa --help' list each family's options.")
    families = parser.add_subparsers(dest="family", metavar="FAMILY", required=True)

    lda = families.add_parser(
        "lda", help="LDA by collapsed Gibbs sampling or variational EM",
        description=wrapped("Fit LDA by collapsed Gibbs sampling (--trainer gibbs) or by "
                            "variational EM (--trainer vem)."),
        epilog=columns_epilog("train"), formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(lda, threads="gibbs: B, the blocks of the parallel sampler (default 1, the exact "
                         "serial chain): a given B gives a bit-identical model on every "
                         "machine, another B another, equally valid, chain; vem: numba threads, "
                         "which change the speed only")
    lda.add_argument("--trainer", choices=("gibbs", "vem"), required=True,
                     help="gibbs: collapsed Gibbs sampling (point estimate of the final state, "
                          "or an average with --save-states); vem: variational EM")
    lda.add_argument("--trace", help="write the training objective here, as CSV (columns below)")
    gibbs = lda.add_argument_group("gibbs", "options of --trainer gibbs")
    gibbs.add_argument("--sweeps", type=int, default=1000,
                       help="Gibbs sweeps over every token after the random start (default "
                            "1000)")
    gibbs.add_argument("--alpha-m", type=float, default=None,
                       help="αm_t per topic (default 50/T)")
    gibbs.add_argument("--beta", type=float, default=0.01,
                       help="per-word pseudo-count βu_v (default 0.01)")
    gibbs.add_argument("--optimize", choices=("mallet2009", "mallet2012", "minka"),
                       help="optimise asymmetric αm and β with this form of MALLET's update "
                            "(default: fixed hyperparameters)")
    gibbs.add_argument("--optimize-burnin", type=int, default=200,
                       help="with --optimize: sweeps before the first optimisation "
                            "(default 200)")
    gibbs.add_argument("--optimize-interval", type=int, default=10,
                       help="with --optimize: sweeps between optimisations (default 10)")
    gibbs.add_argument("--save-states", type=int, nargs=2, metavar=("START", "LAG"),
                       help="average the point estimates over the states after sweeps START, "
                            "START+LAG, ... (LAG >= 10; default: the final state only)")
    gibbs.add_argument("--record-every", type=int, default=10,
                       help="record the collapsed log joint in the trace every this many "
                            "sweeps (default 10; also after sweep 0 and the last)")
    vem = lda.add_argument_group("vem", "options of --trainer vem")
    vem.add_argument("--variant", choices=tuple(VEM_VARIANTS), default="bechard2018",
                     type=lambda name: VEM_ALIASES.get(name, name),
                     help="bechard2018 (default): one E pass per document per iteration, as "
                          "Béchard & Gervet's Algorithm 1; full: each document's E-step "
                          "iterated to convergence, as Blei et al. (2003)")
    vem.add_argument("--alpha", type=float, default=None,
                     help="fixed α_t per topic (default 1/T)")
    vem.add_argument("--max-iter", type=int, default=200,
                     help="most EM iterations (default 200)")
    vem.add_argument("--tol", type=float, default=1e-5,
                     help="stop when the relative change of the evidence lower bound falls "
                          "below this (default 1e-5)")
    lda.set_defaults(func=run_lda)

    gap = families.add_parser(
        "gapfa", help="beta-gamma Poisson factor analysis (Capdevila et al. 2018)",
        description=wrapped("Fit beta-gamma Poisson factor analysis by Gibbs sampling; the "
                            "defaults are the settings of Capdevila et al. (2018)."),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(gap, threads="numba threads (default 1); the model is bit-identical whatever it is")
    gap.add_argument("--iterations", type=int, default=1000,
                     help="Gibbs iterations (default 1000)")
    gap.add_argument("--burnin", type=int, default=500,
                     help="iterations discarded before the estimates are averaged (default "
                          "500; less than --iterations)")
    gap.add_argument("--a-phi", type=float, default=0.1,
                     help="parameter of the symmetric Dirichlet prior of every topic "
                          "(default 0.1)")
    gap.add_argument("--r", type=float, default=1.0,
                     help="gamma shape of theta, fixed and shared by the topics (default 1)")
    gap.add_argument("--c", type=float, default=1.0,
                     help="concentration of the beta prior of p_t (default 1)")
    gap.add_argument("--epsilon", type=float, default=None,
                     help="mean of the beta prior of p_t, in (0, 1) (default 1/T)")
    gap.set_defaults(func=run_gapfa)


def _common(parser: argparse.ArgumentParser, *, threads: str) -> None:
    parser.add_argument("--corpus", required=True, help="corpus .npz file")
    parser.add_argument("--split", default=None, help="train on this split only (default: all)")
    parser.add_argument("--topics", type=int, required=True, help="number of topics T")
    parser.add_argument("--out", required=True, help="model .npz file to write")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of every random stream (default 0)")
    parser.add_argument("--threads", type=int, default=1, help=threads)


def _load(args: argparse.Namespace) -> tuple[Corpus, dict]:
    """The training documents, and what the model records about where they came from.

    ``source_checksum`` and ``split`` let ``topiceval evaluate`` recognise the training
    documents inside the whole corpus file; ``tokenizer`` is how the corpus's text was split
    into words (``topiceval.tokenizer``), for held-out text.
    """
    corpus = Corpus.load(args.corpus)
    source = {"source_checksum": corpus.checksum(), "split": args.split,
              "tokenizer": tokenizer.of_corpus(corpus.meta)}
    if args.split is not None:
        corpus = corpus.select_split(args.split)
    if corpus.n_tokens == 0:
        which = "" if args.split is None else f" with --split {args.split}"
        raise ValueError(f"{args.corpus}: no tokens to train on (documents{which}: "
                         f"{corpus.n_docs}, all empty)")
    return corpus, source


def run_lda(args: argparse.Namespace) -> int:
    corpus, source = _load(args)
    # --out and --trace are written together, and only if training and both writes succeed;
    # their directories are made (or refused) before training starts.
    with atomic_paths(args.out, args.trace) as (model_file, trace_file):
        result, trace = _fit_lda(args, corpus)
        result.model.meta.update(source)
        result.model.meta["seconds"] = result.seconds
        save_model(model_file, result.model)
        if trace_file is not None:
            write_csv_atomic(trace_file, trace)
    print(f"trained {args.trainer} LDA, T={args.topics}, on {corpus.n_docs} documents "
          f"({corpus.n_tokens} tokens) in {result.seconds:.1f} s -> {args.out}")
    return 0


def _fit_lda(args: argparse.Namespace,
             corpus: Corpus) -> tuple[GibbsResult | VemResult, pd.DataFrame]:
    """The fit (``fit_gibbs`` or ``fit_vem`` result) and its objective trace for ``--trace``."""
    from topiceval.training.lda import fit_gibbs, fit_vem

    if args.trainer == "gibbs":
        optimize = None
        if args.optimize is not None:
            optimize = {"form": args.optimize, "burnin": args.optimize_burnin,
                        "interval": args.optimize_interval}
        save_states = None
        if args.save_states is not None:
            save_states = {"start": args.save_states[0], "lag": args.save_states[1]}
        result = fit_gibbs(corpus, args.topics, sweeps=args.sweeps, alpha_m=args.alpha_m,
                           beta=args.beta, optimize=optimize, threads=args.threads,
                           seed=args.seed, record_every=args.record_every,
                           save_states=save_states)
        return result, result.log_joint.rename(columns={"log_joint": "log_joint_nats"})
    result = fit_vem(corpus, args.topics, variant=VEM_VARIANTS[args.variant], alpha=args.alpha,
                     max_iter=args.max_iter, tol=args.tol, seed=args.seed, threads=args.threads)
    return result, result.elbo.rename(columns={"elbo": "elbo_nats"})


def run_gapfa(args: argparse.Namespace) -> int:
    from topiceval.training.gapfa import fit_gapfa

    corpus, source = _load(args)
    model = fit_gapfa(corpus.counts(), args.topics, iterations=args.iterations,
                      burnin=args.burnin, a_phi=args.a_phi, r=args.r, c=args.c,
                      epsilon=args.epsilon, seed=args.seed, threads=args.threads)
    model.meta.update({"corpus_checksum": corpus.checksum(), **source})
    if model.vocab is None and corpus.has_words:
        model = type(model)(model.phi, model.p, model.r, corpus.vocab, model.meta)
    save_model(args.out, model)
    print(f"trained GaP-FA, T={args.topics}, on {corpus.n_docs} documents -> {args.out}")
    return 0

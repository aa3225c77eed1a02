"""The models of the experiments: LDA trained on a corpus's training split, and a corpus read
back matched word by word to a saved model.

``gibbs_model`` is collapsed Gibbs sampling (``topiceval.training.lda.fit_gibbs``) on the
training split with the model's provenance in its meta data; the papers choose the priors and
whether alpha m and beta are optimised (Wallach et al. 2009: MALLET's optimisation; Foulds &
Smyth: fixed).  ``load_matched`` reads a corpus and a model file and aligns the corpus to the
model's words.
"""

from __future__ import annotations

import os

from topiceval.corpus import Corpus
from topiceval.models import LDAModel, load_model
from topiceval.training.lda import fit_gibbs

__all__ = ["gibbs_model", "load_matched"]


def gibbs_model(corpus: Corpus, topics: int, *, trainer_name: str, sweeps: int,
                alpha_m: float, beta: float, optimize: dict | None = None, blocks: int = 1,
                seed: int = 0) -> LDAModel:
    """Collapsed Gibbs on the training split of ``corpus``; the model of the final state.

    Parameters
    ----------
    corpus : Corpus
        The corpus; its documents of split "train" are used.
    topics : int
        Number of topics T.
    trainer_name : str
        Recorded in the model's meta data (``trainer_name``).
    sweeps : int
        Gibbs sweeps.
    alpha_m : float
        Symmetric prior weight alpha m_t (the start of the optimisation when ``optimize``).
    beta : float
        Symmetric topic-word prior beta u_v.
    optimize : dict or None
        ``fit_gibbs``'s hyperparameter optimisation, None for fixed priors.
    blocks : int
        Sampler blocks: the model is bit-identical for given ``blocks`` whatever the threads.
    seed : int
        The sampler's seed.

    Returns
    -------
    LDAModel
        With meta ``trainer_name``, ``split``, ``corpus`` (dataset, variant) and
        ``final_log_joint``.
    """
    result = fit_gibbs(corpus.select_split("train"), topics, sweeps=sweeps, alpha_m=alpha_m,
                       beta=beta, optimize=optimize, threads=blocks, seed=seed)
    model = result.model
    model.meta.update({"trainer_name": trainer_name, "split": "train",
                       "corpus": {k: corpus.meta.get(k) for k in ("dataset", "variant")},
                       "final_log_joint": float(result.log_joint["log_joint"].iloc[-1])})
    return model


def load_matched(corpus_path: str | os.PathLike, model_path: str | os.PathLike, family: str,
                 why: str) -> tuple[Corpus, object]:
    """(the corpus aligned to the model's words, the model) of two files.

    Parameters
    ----------
    corpus_path, model_path : path
        A corpus ``.npz`` and a model file.
    family : str
        The model family the experiment needs ("lda", "gapfa").
    why : str
        The end of the error message for another family (e.g. "Foulds & Smyth compare LDA
        models").

    Returns
    -------
    (Corpus, model)
        Every word of the corpus must be in the model's vocabulary.
    """
    corpus, model = Corpus.load(corpus_path), load_model(model_path)
    if model.family != family:
        raise ValueError(f"{model_path}: a {model.family} model; {why}")
    return corpus.align(model, oov="error"), model  # by word: the model's ids are its own words

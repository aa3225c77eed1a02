"""Perplexity definitions (docs/methods/lda.md#perplexity), each named for what it is.

All of them pool log-probabilities and token counts over documents before exponentiating (P5):
never average per-document perplexities.

* :func:`marginal_perplexity` (P1): exp(−Σ_d log P̂(w_d | Φ, αm) / Σ_d N_d), from per-document log
  marginals given by an estimator of §2 (an unbiased P̂ gives an estimate of the true perplexity;
  a lower bound such as the ELBO (1.14) gives an upper bound on it).
* :func:`plugin_perplexity` (P2, Béchard & Gervet eq. 18): log p(w_d) ≈ Σ_v c_{dv} log Σ_t θ̂_{dt}
  φ̂_{v|t} with θ̂ fitted on the same document (fold-in, §1.5).  It re-uses the test words to fit
  θ̂, so it is OPTIMISTIC and is not an estimate of (1.4).  Training perplexity uses training θ̂
  (1.8).
* :func:`completion_perplexity` (P3): exp(−Σ_d log P̂(w_d^{(2)} | w_d^{(1)}) / Σ_d N_d^{(2)}).
* :func:`sklearn_bound_perplexity` (P4): scikit-learn's ``LatentDirichletAllocation.perplexity``,
  exp(−bound(X)/ΣX), where the bound is the fold-in ELBO plus the corpus-level topic term (1.15),
  added for the training and the test set alike (Béchard & Gervet Fig. 4).
"""

from __future__ import annotations

import numpy as np

from topiceval.training.lda.documents import prepare_documents

_CHUNK_CELLS = 4_000_000


def pooled_perplexity(log_probs, n_tokens) -> float:
    """exp(−Σ log_probs / Σ n_tokens) (P5); the common core of P1, P2 and P3.

    Parameters
    ----------
    log_probs : (D,) array of float
        Per-document log probabilities (natural logs).
    n_tokens : (D,) array of int
        The tokens each log probability is of.
    """
    log_probs = np.asarray(log_probs, dtype=np.float64).reshape(-1)
    n_tokens = np.asarray(n_tokens).reshape(-1)
    if log_probs.shape != n_tokens.shape:
        raise ValueError(
            f"{log_probs.shape[0]} log-probabilities but {n_tokens.shape[0]} token counts"
        )
    if log_probs.size == 0:
        raise ValueError("no documents to compute a perplexity on")
    if not np.all(np.isfinite(log_probs)):
        raise ValueError("log-probabilities must be finite")
    if not np.issubdtype(n_tokens.dtype, np.integer) or np.any(n_tokens <= 0):
        raise ValueError("token counts must be positive integers (no empty documents)")
    return float(np.exp(-log_probs.sum() / n_tokens.sum()))


def marginal_perplexity(log_probs, lengths) -> float:
    """P1: held-out perplexity from per-document log P̂(w_d | Φ, αm) and lengths N_d.

    Parameters
    ----------
    log_probs : (D,) array of float
        log P-hat(w_d | Phi, alpha m) of each held-out document (natural logs).
    lengths : (D,) array of int
        The tokens of each document, N_d.
    """
    return pooled_perplexity(log_probs, lengths)


def completion_perplexity(log_probs, second_lengths) -> float:
    """P3: document-completion perplexity from log P̂(w^{(2)} | w^{(1)}) and N^{(2)}.

    Parameters
    ----------
    log_probs : (D,) array of float
        log P-hat of each document's second half given its first (natural logs).
    second_lengths : (D,) array of int
        The tokens of each second half, N^(2).
    """
    return pooled_perplexity(log_probs, second_lengths)


def plugin_log_likelihood(docs, theta, phi) -> np.ndarray:
    """Per-document Σ_n log Σ_t θ̂_{dt} φ̂_{w_n|t} (eq. 1.18, the P2 building block).

    Parameters
    ----------
    docs : sequence of token-id sequences, or Corpus
        The documents (ids of phi's columns), none empty.
    theta : (D, T) array of float
        Each document's topic proportions.
    phi : (T, V) array of float
        The topics.
    """
    phi = np.asarray(phi, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64)
    if phi.ndim != 2 or theta.ndim != 2 or theta.shape[1] != phi.shape[0]:
        raise ValueError(
            f"theta (D x T) and phi (T x V) do not match: {theta.shape} and {phi.shape}"
        )
    if not (np.all(np.isfinite(theta)) and np.all(theta >= 0) and np.all(phi >= 0)):
        raise ValueError("theta and phi must be finite and non-negative")
    offsets, tokens, _, _, _ = prepare_documents(docs, phi.shape[1], allow_empty=False)
    n_docs = offsets.shape[0] - 1
    if theta.shape[0] != n_docs:
        raise ValueError(f"theta has {theta.shape[0]} rows for {n_docs} documents")
    out = np.empty(n_docs)
    step = max(1, _CHUNK_CELLS // phi.shape[1])
    for d0 in range(0, n_docs, step):
        d1 = min(n_docs, d0 + step)
        mix = theta[d0:d1] @ phi
        sl = slice(offsets[d0], offsets[d1])
        doc_of = np.repeat(np.arange(d1 - d0), np.diff(offsets[d0:d1 + 1]))
        with np.errstate(divide="ignore"):
            logp = np.log(mix[doc_of, tokens[sl]])
        if not np.all(np.isfinite(logp)):
            raise ValueError("a token has zero probability under theta @ phi")
        out[d0:d1] = np.bincount(doc_of, weights=logp, minlength=d1 - d0)
    return out


def plugin_perplexity(docs, theta, phi) -> float:
    """P2 (OPTIMISTIC when θ̂ was fitted on ``docs``): pooled (1.18).

    Parameters
    ----------
    docs : sequence of token-id sequences, or Corpus
        The documents (ids of phi's columns), none empty.
    theta : (D, T) array of float
        Each document's topic proportions.
    phi : (T, V) array of float
        The topics.
    """
    offsets, _, _, _, _ = prepare_documents(docs, np.asarray(phi).shape[1], allow_empty=False)
    return pooled_perplexity(plugin_log_likelihood(docs, theta, phi), np.diff(offsets))


def sklearn_bound_perplexity(estimator, X) -> float:
    """P4: ``estimator.perplexity(X)`` of a fitted sklearn ``LatentDirichletAllocation``.

    Parameters
    ----------
    estimator : sklearn.decomposition.LatentDirichletAllocation
        The fitted estimator.
    X : (D, V) count matrix
        The documents, over the estimator's columns.
    """
    if not hasattr(estimator, "components_") or not hasattr(estimator, "perplexity"):
        raise ValueError("expected a fitted sklearn LatentDirichletAllocation")
    return float(estimator.perplexity(X))

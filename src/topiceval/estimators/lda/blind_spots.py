"""The named blind spots of LDA's estimators (docs/trust.md#blind-spots): documents on which a
method's own numbers (its weights, its chains, the spread of its runs) cannot show its error.
An estimate there is not trusted unless the floor and the ceiling certify it
(``topiceval.diagnostics.trust``), and the advice for untrusted estimates does not name the
method for them.

One mode of many: with a tiny prior (every alpha m_t at most ``TINY_PRIOR``) the posterior of a
document of two or more tokens splits into one mode per topic, and a Gibbs chain crosses between
them with a probability of about alpha m_t per sweep.  IS-IP's iterated proposal settles on one
mode, and Chib-style's z* and chain stay in one: every run reports that mode's probability,
the runs agree, and nothing they compute shows the modes they missed (issue 46: 0.07-0.09 nats
low with a standard error of 0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

# the largest alpha m_t at which a short document's posterior has one mode per topic
# (docs/trust.md#what-the-diagnostics-measure, R-hat: "alpha m_t around 1e-3 and below")
TINY_PRIOR = 1e-3
BLIND = "blind spot"  # the start of the reason (``topiceval.diagnostics.LABELS``)


def one_mode(method: str) -> Callable[[Sequence, np.ndarray], np.ndarray]:
    """The blind spot of ``method`` (a display name) whose runs stay in one mode of a
    multimodal posterior: ``blind(docs, alpha_m)`` -> (D,) reasons, "" outside it."""

    def blind(docs: Sequence, alpha_m: np.ndarray) -> np.ndarray:
        out = np.full(len(docs), "", dtype=object)
        if alpha_m.size < 2 or float(np.max(alpha_m)) > TINY_PRIOR:
            return out
        reason = (f"{BLIND}: at alpha m <= {TINY_PRIOR:g} this document's posterior has one "
                  f"mode per topic, and {method}'s runs stay in one, where nothing they "
                  "compute shows the others")
        for d, doc in enumerate(docs):
            if len(doc) >= 2:
                out[d] = reason
        return out

    return blind

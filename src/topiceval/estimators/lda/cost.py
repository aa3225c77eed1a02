"""``Cost``: the work of one LDA estimator call, in the units of Wallach et al. 2009 Table 1."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cost:
    """Work of one call: Gibbs site updates (Table 1 units) and wall-clock seconds.

    Attributes
    ----------
    site_updates : int
        Gibbs site updates of the call.
    seconds : float
        Its wall-clock seconds.
    """

    site_updates: int
    seconds: float

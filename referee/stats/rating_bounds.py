"""One-sided intervals for the players whose maximum likelihood rating is infinite.

A group above its component's core (never beaten by it) has its likelihood largest at +inf, so
no interval around a point can be drawn; what the games do say is how low the group can be. Its
bound is where the log-likelihood of the group's games against the players whose ratings are
finite (the core), as a function of a shift t of the whole group (the core's ratings, the
advantage and the margin where the fit put them), falls by chi2(1, level) / 2 below its
supremum: the likelihood-ratio bound, from the games alone (no prior, no resampling). Games
against other infinite groups are left out (`referee.stats.rating` chooses the cells): those
groups are placed by the prior, and the likelihood puts them at +-inf, where the games between
them and this group say nothing. The group never lost to the games' other players (it would
then be in the core), so the supremum is the limit 0 at +inf. Below the core, mirrored. A
component without a core has no finite rating: its players' bounds read all their games, against
where the others were placed. With no such games at all there is no bound (None).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from referee.stats.rating_input import Cells, Mask
from referee.stats.rating_terms import SCALE, Floats, cell_terms

_FAR = 1e5  # Elo: further than any finite answer


def _log_likelihood(cells: Cells, base: Floats, sign: Floats, margin: Floats, t: float) -> float:
    terms = cell_terms(SCALE * (base + sign * t), SCALE * margin, cells.counts)
    return terms.log_l


def group_bound(
    cells: Cells,
    ratings: Floats,
    advantage: Floats,
    margin: Floats,
    members: Mask,
    above: bool,
    chi2: float,
) -> float | None:
    """The shift t (Elo, from where the group was placed) at the group's bound: t <= 0 for a
    group above (its lower bound), t >= 0 below (its upper bound); None when the likelihood
    never falls that far (too few games to bound it at all)."""
    inside_first, inside_second = members[cells.first], members[cells.second]
    across = inside_first != inside_second
    part = cells.where(across)
    sign = np.where(inside_first[across], 1.0, -1.0)
    base = ratings[part.first] - ratings[part.second] + advantage[part.kind]
    d = margin[part.kind]

    def value(t: float) -> float:
        return _log_likelihood(part, base, sign, d, t)

    direction = 1.0 if above else -1.0
    # The group never lost (won, below) a game read here: the supremum is the limit 0 at +inf
    # (-inf below). Walk from 0 towards the finite side until the likelihood has fallen far
    # enough.
    target = -chi2 / 2

    def excess(t: float) -> float:
        return value(t) - target

    step = 100.0
    near = 0.0
    while excess(near) < 0 and abs(near) < _FAR:  # already below: come back up
        near += direction * step
        step *= 2
    step = 100.0
    far = near - direction * step
    while excess(far) > 0:
        if abs(far) > _FAR:
            return None
        step *= 2
        far = near - direction * step
    if not math.isfinite(excess(near)) or excess(near) < 0:
        return None
    return float(brentq(excess, min(near, far), max(near, far), xtol=1e-6))

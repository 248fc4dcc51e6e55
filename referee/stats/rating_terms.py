"""The rating model's likelihood per cell (docs/ratings.md): BayesElo's Bradley-Terry model
with a draw margin and a first-move advantage, and the numbers every part of `rating_*` shares.

A game of kind k is played by a first mover f and a second mover s. With x = r_f - r_s + a_k
on the Elo scale and F(z) = 1 / (1 + 10^(-z/400)):

    first mover wins: F(x - d_k)     second mover wins: F(-x - d_k)     draw: the rest

where a_k is kind k's first-move advantage and d_k >= 0 its draw margin: the wider it is, the
more games are drawn. Results are counted per (first, second, kind) cell, one column per
outcome (FIRST_WINS, DRAW, SECOND_WINS).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import expit, log_expit

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

SCALE = math.log(10) / 400  # natural units per Elo point
FIRST_WINS, DRAW, SECOND_WINS = 0, 1, 2


def _log_draw(u: Floats, delta: Floats) -> Floats:
    """log(F(u + delta) - F(u - delta)) in natural units, without cancellation for large |u|."""
    big = np.abs(u)
    found: Floats = np.log(expit(delta - big) - expit(-delta - big))
    return found


@dataclass(frozen=True)
class CellTerms:
    """Each cell's log-likelihood and its first and second derivatives in u and delta."""

    log_l: float
    du: Floats
    dd: Floats
    duu: Floats
    dud: Floats
    ddd: Floats


def cell_terms(u: Floats, delta: Floats, counts: Floats) -> CellTerms:
    """The cells' log-likelihood and derivatives at u (natural units: SCALE times x) and delta
    (SCALE times the draw margin); `counts` holds each cell's first wins, draws, second wins."""
    w, dr, lo = counts[:, 0], counts[:, 1], counts[:, 2]
    big, little = expit(u + delta), expit(u - delta)  # A = F(u + delta), B = F(u - delta)
    a1, b1 = big * (1 - big), little * (1 - little)
    a2, b2 = a1 * (1 - 2 * big), b1 * (1 - 2 * little)
    log_l = float(w @ log_expit(u - delta) + lo @ log_expit(-u - delta))
    du = w * (1 - little) - lo * big
    dd = -w * (1 - little) - lo * big
    duu = -w * b1 - lo * a1
    dud = w * b1 - lo * a1
    ddd = -w * b1 - lo * a1
    drawn = dr > 0
    if drawn.any():  # the draw terms, only where there are draws (D may underflow elsewhere)
        c, ud, dl = dr[drawn], u[drawn], delta[drawn]
        p = np.exp(_log_draw(ud, dl))
        log_l += float(c @ np.log(p))
        sa1, sb1, sa2, sb2 = a1[drawn], b1[drawn], a2[drawn], b2[drawn]
        gu, gd = (sa1 - sb1) / p, (sa1 + sb1) / p
        du[drawn] += c * gu
        dd[drawn] += c * gd
        duu[drawn] += c * ((sa2 - sb2) / p - gu * gu)
        dud[drawn] += c * ((sa2 + sb2) / p - gu * gd)
        ddd[drawn] += c * ((sa2 - sb2) / p - gd * gd)
    return CellTerms(log_l, du, dd, duu, dud, ddd)

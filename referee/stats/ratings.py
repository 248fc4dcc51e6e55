"""Elo ratings by maximum likelihood: the Bradley-Terry model with draws (Davidson's model).

Each player i has a strength pi_i = exp(theta_i), and a game between i and j ends

    i wins: pi_i / Z      j wins: pi_j / Z      draw: nu * sqrt(pi_i * pi_j) / Z

with Z the sum of the three and nu >= 0 a draw parameter fitted with the strengths (nu is 0 when
no game was drawn: plain Bradley-Terry). Ratings are theta on the Elo scale (400 / ln 10 per unit,
so a 400-point gap means 10:1 odds), anchored so that the chosen player is at 0 or the mean is 0.
The 95% confidence intervals come from the inverse of the observed information (the negative
Hessian of the log-likelihood) at the maximum.

For two players this gives exactly 400 * log10(wins / losses) whatever the draws. The maximum
exists only when the players cannot be split into two groups one of which never won against the
other; otherwise (a bot that lost every game, a tournament just begun) a weak normal
prior on each theta (standard deviation `prior_sd` Elo) keeps ratings finite, and the result says
so. Games that no bot could start (double forfeits) tell nothing about strength and are left out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from protocols.base import Reason, Side
from referee.stats.linalg import inverse, solve

ELO_PER_UNIT = 400 / math.log(10)
Z95 = 1.959963984540054
DEFAULT_PRIOR_SD = 1000.0  # Elo: weak enough to matter only when the maximum does not exist


class GameResult(Protocol):
    """A finished game as the fit needs it (the tournament's `standings.GameResult` is one):
    `winner` None is a draw, or a double forfeit when the reason is a bot's fault."""

    @property
    def blue(self) -> str: ...
    @property
    def orange(self) -> str: ...
    @property
    def winner(self) -> Side | None: ...
    @property
    def reason(self) -> Reason: ...


@dataclass(frozen=True, slots=True)
class Rating:
    name: str
    elo: float | None  # None: played no rated game
    low: float | None  # 95% confidence interval
    high: float | None
    games: int


@dataclass(frozen=True, slots=True)
class Ratings:
    ratings: list[Rating]  # best first; unrated players last
    anchor: str  # a player's name, or "mean"
    draw_parameter: float  # nu
    method: str  # "maximum likelihood", or how a prior was needed

    def by_name(self) -> dict[str, Rating]:
        return {r.name: r for r in self.ratings}


@dataclass
class _Pair:
    i: int
    j: int
    wins: int = 0  # i beat j
    losses: int = 0
    draws: int = 0

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.draws


def fit_ratings(
    players: list[str],
    results: Iterable[GameResult],
    anchor: str | None = None,
    prior_sd: float = DEFAULT_PRIOR_SD,
) -> Ratings:
    """Fit ratings to finished games; `anchor` is a player at 0 (None: the mean is 0)."""
    if anchor is not None and anchor not in players:
        raise ValueError(f"anchor {anchor!r} is not one of the players")
    pairs, games = _tally(players, results)
    rated = [k for k, name in enumerate(players) if games[name] > 0]
    index = {k: m for m, k in enumerate(rated)}
    model = _Model([_Pair(index[p.i], index[p.j], p.wins, p.losses, p.draws) for p in pairs])
    n = len(rated)
    prior = None if _ml_exists(n, model.pairs) else prior_sd / ELO_PER_UNIT
    theta, cov = model.fit(n, prior) if n >= 2 else ([0.0] * n, [[0.0] * n for _ in range(n)])
    # An anchor without rated games yet (early in a tournament) falls back to the mean.
    anchor_at = index.get(players.index(anchor)) if anchor is not None else None
    elos, halfwidths = _anchored(theta, cov, anchor_at)
    out = []
    for k, name in enumerate(players):
        if k not in index:
            out.append(Rating(name, None, None, None, games[name]))
            continue
        m = index[k]
        out.append(
            Rating(name, elos[m], elos[m] - halfwidths[m], elos[m] + halfwidths[m], games[name])
        )
    out.sort(key=lambda r: (r.elo is None, -(r.elo or 0.0), r.name))
    method = "maximum likelihood"
    if prior is not None:
        method = (
            f"maximum a posteriori, normal prior (sd {prior_sd:g} Elo): "
            "without it some ratings would be infinite"
        )
    anchored_at = anchor if anchor is not None and anchor_at is not None else "mean"
    return Ratings(out, anchored_at, model.nu, method)


def _tally(players: list[str], results: Iterable[GameResult]) -> tuple[list[_Pair], dict[str, int]]:
    position = {name: k for k, name in enumerate(players)}
    pairs: dict[tuple[int, int], _Pair] = {}
    games = {name: 0 for name in players}
    for game in results:
        if game.winner is None and game.reason.is_bot_fault:
            continue  # a double forfeit
        a, b = position[game.blue], position[game.orange]
        i, j = min(a, b), max(a, b)
        pair = pairs.setdefault((i, j), _Pair(i, j))
        if game.winner is None:
            pair.draws += 1
        elif position[game.blue if game.winner is Side.BLUE else game.orange] == i:
            pair.wins += 1
        else:
            pair.losses += 1
        games[game.blue] += 1
        games[game.orange] += 1
    return list(pairs.values()), games


def _ml_exists(n: int, pairs: list[_Pair]) -> bool:
    """Ford's condition on wins: the "won against" graph is strongly connected.

    Draws do not count: with draws in the model, a player who never won against a group can be
    pushed infinitely far below it while the draw parameter grows to keep the draws likely (two
    wins and two draws against a player who never won have no finite maximum)."""
    if n < 2:
        return True
    beats: list[set[int]] = [set() for _ in range(n)]
    for p in pairs:
        if p.wins:
            beats[p.i].add(p.j)
        if p.losses:
            beats[p.j].add(p.i)
    beaten_by: list[set[int]] = [set() for _ in range(n)]
    for i, targets in enumerate(beats):
        for j in targets:
            beaten_by[j].add(i)
    return _reaches_all(beats, n) and _reaches_all(beaten_by, n)


def _reaches_all(edges: list[set[int]], n: int) -> bool:
    seen, todo = {0}, [0]
    while todo:
        for j in edges[todo.pop()] - seen:
            seen.add(j)
            todo.append(j)
    return len(seen) == n


class _Model:
    """The log-likelihood of Davidson's model and its Newton maximisation."""

    def __init__(self, pairs: list[_Pair]) -> None:
        self.pairs = pairs
        self.with_draws = any(p.draws for p in pairs) and any(p.wins or p.losses for p in pairs)
        self.nu = 0.0

    def fit(self, n: int, prior: float | None) -> tuple[list[float], list[list[float]]]:
        """Maximise; returns theta (natural units) and its covariance matrix."""
        # Without a prior theta_0 is fixed at 0 (the model only sees differences).
        free = list(range(n)) if prior is not None else list(range(1, n))
        size = len(free) + (1 if self.with_draws else 0)
        x = [0.0] * size
        for _ in range(200):
            value, grad, hess = self._evaluate(x, n, free, prior)
            moved, step = self._step(x, value, grad, hess, n, free, prior)
            if moved == x or max(map(abs, step), default=0.0) < 1e-10:
                x = moved
                break
            x = moved
        _, _, hess = self._evaluate(x, n, free, prior)
        information_inverse = inverse([[-h for h in row] for row in hess])
        theta = [0.0] * n
        cov = [[0.0] * n for _ in range(n)]
        for a, ka in enumerate(free):
            theta[ka] = x[a]
            for b, kb in enumerate(free):
                cov[ka][kb] = information_inverse[a][b]
        self.nu = math.exp(x[-1]) if self.with_draws else 0.0
        return theta, cov

    def _step(
        self,
        x: list[float],
        value: float,
        grad: list[float],
        hess: list[list[float]],
        n: int,
        free: list[int],
        prior: float | None,
    ) -> tuple[list[float], list[float]]:
        """One damped Newton step uphill: the likelihood is not concave in the draw parameter
        everywhere, so where the plain Newton step does not climb, the information matrix is
        damped (Levenberg-Marquardt) until it does; returns the new x and the step taken."""
        for damping in (0.0, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4):
            matrix = [
                [-h + (damping if a == b else 0.0) for b, h in enumerate(row)]
                for a, row in enumerate(hess)
            ]
            try:
                step = solve(matrix, grad)
            except ZeroDivisionError:
                continue
            if sum(g * d for g, d in zip(grad, step, strict=True)) <= 0:
                continue  # not uphill
            moved = self._line_search(x, step, value, n, free, prior)
            if moved != x:
                return moved, step
        return x, [0.0] * len(x)

    def _line_search(
        self,
        x: list[float],
        step: list[float],
        value: float,
        n: int,
        free: list[int],
        prior: float | None,
    ) -> list[float]:
        scale = 1.0
        while scale > 1e-6:
            trial = [xi + scale * si for xi, si in zip(x, step, strict=True)]
            if self._evaluate(trial, n, free, prior)[0] >= value - 1e-12:
                return trial
            scale /= 2
        return x

    def _evaluate(
        self, x: list[float], n: int, free: list[int], prior: float | None
    ) -> tuple[float, list[float], list[list[float]]]:
        theta = [0.0] * n
        for a, k in enumerate(free):
            theta[k] = x[a]
        u = x[-1] if self.with_draws else -math.inf
        if self.with_draws and abs(u) > 300:  # nu beyond any data: outside the search
            return -math.inf, [0.0] * len(x), [[0.0] * len(x) for _ in x]
        e = math.exp(u) if self.with_draws else 0.0
        slot = {k: a for a, k in enumerate(free)}
        size = len(x)
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        value = 0.0
        for p in self.pairs:
            half = (theta[p.i] - theta[p.j]) / 2
            if abs(half) > 300:
                return -math.inf, grad, hess
            c, s = math.cosh(half), math.sinh(half)
            g = 2 * c + e
            value += (p.wins - p.losses) * half - p.n * math.log(g)
            d_delta = (p.wins - p.losses) / 2 - p.n * s / g
            dd = -p.n * (c / 2 * g - s * s) / (g * g)
            _add_pair(grad, hess, slot.get(p.i), slot.get(p.j), d_delta, dd)
            if self.with_draws:
                value += p.draws * u
                du = len(x) - 1
                grad[du] += p.draws - p.n * e / g
                hess[du][du] += -p.n * e * 2 * c / (g * g)
                cross = p.n * s * e / (g * g)
                for at, sign in ((slot.get(p.i), 1), (slot.get(p.j), -1)):
                    if at is not None:
                        hess[at][du] += sign * cross
                        hess[du][at] += sign * cross
        if prior is not None:
            for a in range(len(free)):
                value -= x[a] ** 2 / (2 * prior**2)
                grad[a] -= x[a] / prior**2
                hess[a][a] -= 1 / prior**2
        return value, grad, hess


def _add_pair(
    grad: list[float], hess: list[list[float]], i: int | None, j: int | None, d: float, dd: float
) -> None:
    """Add one pair's derivatives in delta = theta_i - theta_j (a fixed theta has no slot)."""
    for a, sa in ((i, 1), (j, -1)):
        if a is None:
            continue
        grad[a] += sa * d
        for b, sb in ((i, 1), (j, -1)):
            if b is not None:
                hess[a][b] += sa * sb * dd


def _anchored(
    theta: list[float], cov: list[list[float]], anchor: int | None
) -> tuple[list[float], list[float]]:
    """Elo ratings shifted to the anchor, and the half-widths of their 95% intervals."""
    n = len(theta)
    if n == 0:
        return [], []
    # theta' = A theta with A = I - 1 e_anchor^T, or I - 1 1^T / n for the mean.
    weights = [1.0 if k == anchor else 0.0 for k in range(n)] if anchor is not None else [1 / n] * n
    shift = sum(w * t for w, t in zip(weights, theta, strict=True))
    cov_w = [sum(cov[i][k] * weights[k] for k in range(n)) for i in range(n)]
    w_cov_w = sum(weights[i] * cov_w[i] for i in range(n))
    elos, halves = [], []
    for i in range(n):
        variance = max(0.0, cov[i][i] - 2 * cov_w[i] + w_cov_w)
        elos.append((theta[i] - shift) * ELO_PER_UNIT)
        halves.append(Z95 * math.sqrt(variance) * ELO_PER_UNIT)
    return elos, halves

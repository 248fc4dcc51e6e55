"""Check a rated league against an independent fit: the same model (Bradley-Terry with draws and
a first-move advantage per game, normal prior), its likelihood written game by game in plain
Python from the model's probabilities and maximised without derivatives (Powell), sharing no code
with `referee.stats.elo_fit`. Prints both ratings of every version with the league's interval,
and exits 1 if any independent rating falls outside it.

    python scripts/league_check.py LEAGUE_DIR
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from referee.league.config import load_league
from referee.league.index import open_index

FIRST_WINS, DRAW, SECOND_WINS = 0, 1, 2


def independent_fit(
    rows: list[tuple[int, int, int, int]], players: int, kinds: int, prior_sd: float
) -> np.ndarray:
    """(ratings, advantages, draw margins) maximising the posterior of (first, second, kind,
    outcome) games."""

    def minus_log_posterior(theta: np.ndarray) -> float:
        r, a = theta[:players], theta[players : players + kinds]
        d = np.abs(theta[players + kinds :])
        total = 0.0
        for first, second, kind, outcome in rows:
            x = r[first] - r[second] + a[kind]
            win = 1 / (1 + 10 ** ((d[kind] - x) / 400))
            loss = 1 / (1 + 10 ** ((d[kind] + x) / 400))
            p = {FIRST_WINS: win, SECOND_WINS: loss, DRAW: 1 - win - loss}[int(outcome)]
            total -= math.log(max(p, 1e-300))
        return total + float(np.sum(theta[: players + kinds] ** 2) + np.sum(d**2)) / (
            2 * prior_sd**2
        )

    start = np.concatenate([np.zeros(players + kinds), np.full(kinds, 100.0)])
    found = minimize(
        minus_log_posterior,
        start,
        method="Powell",
        options={"xtol": 1e-6, "ftol": 1e-12, "maxfev": 2_000_000},
    )
    theta = np.asarray(found.x)
    theta[players + kinds :] = np.abs(theta[players + kinds :])
    return theta


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("league", type=Path)
    args = parser.parse_args()
    prior_sd = load_league(args.league).fit.prior_sd
    index = open_index(args.league, writer=False)
    try:
        games = index.rated_games()
        ours = index.db.execute(
            "SELECT r.version, b.game, b.name, v.content_hash, r.rating, r.low, r.high"
            " FROM ratings r JOIN versions v ON v.id = r.version JOIN bots b ON b.id = v.bot"
            " ORDER BY b.game, r.rank"
        ).fetchall()
    finally:
        index.close()
    players = {row[0]: k for k, row in enumerate(ours)}
    kinds = {game: k for k, game in enumerate(sorted({row[1] for row in ours}))}
    outcome = {"blue": FIRST_WINS, "draw": DRAW, "orange": SECOND_WINS}
    rows = [(players[g.blue], players[g.orange], kinds[g.game], outcome[g.result]) for g in games]
    theta = independent_fit(rows, len(players), len(kinds), prior_sd)
    outside = 0
    print(f"{len(rows)} games, {len(players)} versions, {len(kinds)} games kinds")
    print(f"{'game':14} {'bot':22} {'league':>8} {'independent':>12} {'interval':>16}")
    for version, game, name, content, rating, low, high in ours:
        other = theta[players[version]]
        inside = low is None or low <= other <= high
        outside += not inside
        label = f"{name} {content[:6]}"
        interval = "" if low is None else f"{low:+.0f} .. {high:+.0f}"
        flag = "" if inside else "  OUTSIDE"
        print(f"{game:14} {label:22} {rating:+8.1f} {other:+12.1f} {interval:>16}{flag}")
    largest = max(abs(theta[players[v]] - r) for v, _, _, _, r, _, _ in ours)
    print(f"largest difference {largest:.2f} Elo; {outside} outside the league's intervals")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())

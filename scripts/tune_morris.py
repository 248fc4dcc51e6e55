"""Fit the Lasker Morris evaluation's weights to game results (the Texel method).

    python scripts/tune_morris.py --games 2500 --depth 4 --positions positions.jsonl

1. Self-play: the engine (compiled core, fixed depth, current weights) plays itself from
   openings of `--random-plies` random moves; every position of every game is kept with the
   game's result for the side to move (1, 1/2, 0). Positions go to `--positions` (JSON lines),
   and an existing file is read instead of playing again.
2. Fit: the score is linear in the weights (`bots.morris.evaluation.features`), so the weights
   that make `sigmoid(score / SCALE)` predict the results best (least squares, as Texel does)
   are found by gradient descent (`--rounds`, `--rate`) on the first `--sample` positions,
   starting from the current ones; SCALE is first fitted to the current weights. The new
   weights are printed as a `WEIGHTS` tuple, rounded.

A fitted set replaces the old one only after `referee match --sprt` shows it stronger
(docs/strength.md).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

from bots.clock import unlimited
from bots.morris import native
from bots.morris.board import from_state
from bots.morris.engine import MorrisSearch
from bots.morris.evaluation import FADE, SLOW, TERMS, WEIGHTS, features
from bots.solvers import cache
from protocols.lasker_morris.rules import GAME

Sample = tuple[int, list[float], float]  # phase, scaled terms, result for the side to move


def play_games(games: int, depth: int, random_plies: int, seed: int) -> list[list[int]]:
    """Rows (own, opp, own_hand, opp_hand, counter, result*2) of self-play games."""
    path = native.find(cache.search_dirs()) or native.build(cache.cache_dir())
    library = native.load(path) if path is not None else None
    if library is None:
        raise SystemExit("the compiled core is needed: python -m bots.solvers.cache --build")
    rng = random.Random(seed)
    rows: list[list[int]] = []
    for game in range(games):
        search = MorrisSearch(native.NativeCore(library, 20, 3, table_bits=18), seed + game)
        state, seen = GAME.initial_state(), []
        while GAME.outcome(state) is None:
            seen.append(state)
            if state.ply < random_plies:
                move = rng.choice(list(GAME.legal_moves(state)))
            else:
                move = search.choose(state, unlimited(), depth).move
            state = GAME.apply(state, move)
        outcome = GAME.outcome(state)
        assert outcome is not None
        for position in seen:
            won = outcome.winner is position.to_move
            result = 1 if outcome.winner is None else 2 if won else 0
            rows.append([*from_state(position)[0], result])
        if (game + 1) % 100 == 0:
            print(f"{game + 1} games, {len(rows)} positions", file=sys.stderr)
    return rows


def samples(rows: list[list[int]]) -> list[Sample]:
    found = []
    for *pos, result in rows:
        phase, terms, fade = features((pos[0], pos[1], pos[2], pos[3], pos[4]), 20)
        scaled = [t * fade / FADE if i < SLOW else float(t) for i, t in enumerate(terms)]
        found.append((phase, scaled, result / 2))
    return found


def loss(data: list[Sample], weights: list[list[float]], scale: float) -> float:
    total = 0.0
    for phase, terms, result in data:
        score = sum(w * t for w, t in zip(weights[phase], terms, strict=True))
        total += (result - 1 / (1 + math.exp(-score / scale))) ** 2
    return total / len(data)


def fit_scale(data: list[Sample], weights: list[list[float]]) -> float:
    return min((loss(data, weights, s), s) for s in (25, 50, 75, 100, 150, 200, 300, 400))[1]


def descend(
    data: list[Sample], weights: list[list[float]], scale: float, rounds: int, rate: float
) -> list[list[float]]:
    for round_ in range(rounds):
        grad = [[0.0] * len(TERMS) for _ in weights]
        for phase, terms, result in data:
            score = sum(w * t for w, t in zip(weights[phase], terms, strict=True))
            p = 1 / (1 + math.exp(-score / scale))
            common = -2 * (result - p) * p * (1 - p) / scale
            row = grad[phase]
            for i, t in enumerate(terms):
                row[i] += common * t
        for phase in range(len(weights)):
            for i in range(len(TERMS)):
                weights[phase][i] -= rate * grad[phase][i] / len(data)
        if round_ % 50 == 0:
            print(f"round {round_}: loss {loss(data, weights, scale):.5f}", file=sys.stderr)
    return weights


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--random-plies", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--rate", type=float, default=3e4)
    parser.add_argument("--sample", type=int, default=40_000, help="fit on the first N positions")
    parser.add_argument("--positions", type=Path, default=Path("morris-positions.jsonl"))
    args = parser.parse_args()
    if args.positions.exists():
        rows = [json.loads(line) for line in args.positions.read_text().splitlines()]
    else:
        rows = play_games(args.games, args.depth, args.random_plies, args.seed)
        args.positions.write_text("".join(json.dumps(row) + "\n" for row in rows))
    data = samples(rows[: args.sample])
    weights = [[float(w) for w in row] for row in WEIGHTS]
    scale = fit_scale(data, weights)
    print(f"{len(data)} positions; scale {scale}; loss {loss(data, weights, scale):.5f}")
    weights = descend(data, weights, scale, args.rounds, args.rate)
    print(f"fitted loss {loss(data, weights, scale):.5f}")
    fitted = tuple(tuple(round(w) for w in row) for row in weights)
    print("WEIGHTS =", fitted)
    wins = sum(1 for *_, r in rows if r == 2) / max(1, len(rows))
    print(f"share of positions whose side to move won: {wins:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

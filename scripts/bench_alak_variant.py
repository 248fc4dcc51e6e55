"""What the traditional variant costs Baljeu's Alak per ply: `python scripts/bench_alak_variant.py`.

Plays the same random 40-ply line of Baljeu's rules through `BALJEU` (the rules alone, what a
search calls once it has chosen its game) and through `GAME` (the registered game, which tests
each state's class and hands it on: what the referee calls per move), and a traditional line
through `TRADITIONAL`. Each ply is legal_moves + outcome + apply. Prints medians in
microseconds per ply as key=value lines, and the ratio GAME / BALJEU.
"""

from __future__ import annotations

import argparse
import random
import statistics
import timeit
from collections.abc import Callable
from typing import Any

from protocols.alak.options import AlakOptions
from protocols.alak.rules import BALJEU, GAME, TRADITIONAL


def line_runner(game: Any, start: Any, plies: int = 40) -> tuple[Callable[[], None], int]:
    rng, state, moves = random.Random(1), start, []
    for _ in range(plies):
        legal = game.legal_moves(state)
        if not legal or game.outcome(state) is not None:
            break
        moves.append(legal[rng.randrange(len(legal))])
        state = game.apply(state, moves[-1])

    def run() -> None:
        state = start
        for move in moves:
            game.legal_moves(state)
            game.outcome(state)
            state = game.apply(state, move)

    return run, len(moves)


def per_ply(game: Any, start: Any) -> float:
    run, plies = line_runner(game, start)
    return min(timeit.repeat(run, number=200, repeat=3)) / 200 / plies * 1e6


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()  # --help
    baljeu_start = BALJEU.initial_state(None)
    traditional_start = TRADITIONAL.initial_state(AlakOptions(variant="traditional"))
    samples: dict[str, list[float]] = {"baljeu_object": [], "game": [], "traditional": []}
    for _ in range(11):
        samples["baljeu_object"].append(per_ply(BALJEU, baljeu_start))
        samples["game"].append(per_ply(GAME, baljeu_start))
        samples["traditional"].append(per_ply(TRADITIONAL, traditional_start))
    medians = {key: statistics.median(values) for key, values in samples.items()}
    for key, value in medians.items():
        print(f"{key}_us_per_ply={value:.3f}")
    print(f"game_over_baljeu_ratio={medians['game'] / medians['baljeu_object']:.3f}")


if __name__ == "__main__":
    main()

"""How many games `referee match --sprt` takes to decide, for common Elo bounds: the table in
docs/match.md.

For each pair of bounds (elo0, elo1), alpha = beta = 0.05 and the logistic model, it prints the
average number of games at three true differences (elo0, the midway point where the test is
slowest, and elo1), by the Brownian formula of `referee.stats.sprt.expected_samples`, for game
pairs whose two games are independent and drawn with probability `--draws` (pairs that cancel
the first move's advantage decide sooner). With `--simulate N` it also plays N simulated
matches for each cell with the production SPRT (`sprt_decision` after every pair: seeded
random games, no processes) and prints their mean length and how often they accepted H1.

    python scripts/sprt_games.py                       # the formula, no draws
    python scripts/sprt_games.py --draws 0.3
    python scripts/sprt_games.py --simulate 200 --bounds 0,50 0,100 0,200

Output is `key=value` lines, one per cell.
"""

from __future__ import annotations

import argparse
import random
import statistics

from referee.stats.elo import score_of_elo
from referee.stats.match import sprt_decision
from referee.stats.sprt import Sprt, expected_samples, pair_variance

DEFAULT_BOUNDS = ["0,5", "0,10", "0,20", "0,50", "0,100", "0,200"]


def simulate(sprt: Sprt, elo: float, draws: float, seed: int, most: int) -> tuple[int, str]:
    """One simulated match: the games it took and its decision ('none' if none by `most`)."""
    rng = random.Random(seed)
    score = score_of_elo(elo)
    win = score - draws / 2  # the chance of a win, so that wins + draws / 2 = score
    scores: dict[int, float] = {}
    for number in range(1, most + 1):
        r = rng.random()
        scores[number] = 1.0 if r < win else (0.5 if r < win + draws else 0.0)
        if number % 2 == 0:
            decision = sprt_decision(scores, sprt, "pentanomial")
            if decision is not None:
                return number, decision
    return most, "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bounds", nargs="*", default=DEFAULT_BOUNDS, metavar="ELO0,ELO1")
    parser.add_argument("--draws", type=float, default=0.0, help="draw ratio of a game (0)")
    parser.add_argument("--simulate", type=int, default=0, metavar="N", help="matches per cell")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for text in args.bounds:
        elo0, elo1 = (float(x) for x in text.split(","))
        sprt = Sprt(elo0, elo1)
        for elo in (elo0, (elo0 + elo1) / 2, elo1):
            pairs = expected_samples(sprt, elo, pair_variance(elo, args.draws))
            line = f"elo0={elo0:g} elo1={elo1:g} true={elo:g} draws={args.draws:g} "
            line += f"formula_games={2 * pairs:.0f}"
            if args.simulate:
                runs = [
                    simulate(sprt, elo, args.draws, args.seed + i, 200 * round(pairs) + 2000)
                    for i in range(args.simulate)
                ]
                mean = statistics.fmean(games for games, _ in runs)
                h1 = sum(decision == "H1" for _, decision in runs) / len(runs)
                line += f" simulated_games={mean:.0f} runs={len(runs)} accepted_h1={h1:.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()

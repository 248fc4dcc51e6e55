"""Solve the L game by retrograde analysis and print the counts: `python scripts/solve_lgame.py`.

It then shows one position (the start unless --blue/--orange/--neutrals/--to-move say otherwise),
its value for the player to move and the best moves there, e.g.
`python scripts/solve_lgame.py --blue "1 1 E" --orange "2 2 E" --neutrals "3 1 4 3" --to-move
orange`.
"""

from __future__ import annotations

import argparse
import time

from bots.solvers.l_game import Value, best_moves, solve, summarize
from protocols.base import Side
from protocols.l_game.rules import GAME, make_state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blue", default="3 1 W", help="blue's L, e.g. '3 1 W'")
    parser.add_argument("--orange", default="2 4 E", help="orange's L, e.g. '2 4 E'")
    parser.add_argument("--neutrals", default="1 1 4 4", help="the neutral squares 'x1 y1 x2 y2'")
    parser.add_argument("--to-move", choices=["blue", "orange"], default="blue")
    args = parser.parse_args()

    start = time.perf_counter()
    table = solve()
    elapsed = time.perf_counter() - start
    summary = summarize(table)
    print(f"solved in {elapsed:.3f} s")
    print(f"arrangements: {summary.arrangements:,}")
    print(f"up to rotation and reflection: {summary.classes:,}")
    print(f"  mover stuck (lost at once): {summary.stuck}")
    longest = f"longest: {summary.longest_loss} plies"
    print(f"  mover loses by force: {summary.forced_losses} ({longest})")
    at_least_draw = summary.wins + summary.draws
    print(f"  mover can at least draw: {at_least_draw:,}")
    print(f"    wins: {summary.wins:,} (longest: {summary.longest_win} plies)")
    print(f"    draws: {summary.draws:,}")

    n = [int(t) for t in args.neutrals.split()]
    state = make_state(args.blue, args.orange, [(n[0], n[1]), (n[2], n[3])], Side(args.to_move))
    value, distance = table.of_state(state)
    print(GAME.render_text(state))
    plies = "" if value is Value.DRAW else f" in {distance} {'ply' if distance == 1 else 'plies'}"
    print(f"value for {state.to_move.value}: {value.name.lower()}{plies}")
    print("best moves:", ", ".join(GAME.format_move(m) for m in best_moves(state, table)))


if __name__ == "__main__":
    main()

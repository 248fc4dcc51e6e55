"""Traditional Alak solved by retrograde analysis, and both rule sets' results per opening move.

A state is seen from the player to move: his stones, the opponent's, the ko point he may not
take, whether the opponent has just passed, the capture balance (his captures minus the
opponent's, the one part of the final score the board does not show) and his colour. That is
exactly what the rules compare for repetition (`protocols.alak.rules.TraditionalState.key`), so the
state graph is the game's own. Two passes in a row lead to one of three end nodes (the player
who would move next has lost, drawn or won by the score).

The window: passing lets a player pump the capture balance round a cycle of boards (the side
that passes more captures the extra stones the other places), so the graph is infinite. The
search keeps balances within +-`window`; a move beyond it leads to a cut node. It solves the
graph twice, once with every cut node a win for blue and once a win for orange: the true
value lies between the two (a game's value is monotone in its end values), so where both
agree the result is exact, and otherwise it is reported "unresolved" and a wider window tried.

Draws: the graph has cycles. A state from which neither side can force a win is a draw: the
side that is not losing can always move to another such state, so play either ends level or
comes back to a state it has seen, and the third occurrence of a position is a draw. A forced
win never repeats a state (each move of the winner shortens the win), so the repetition rule
never takes a win away and these values are exact under the rules. Only the ply limit (200 by
default) is ignored: a win longer than the plies left would be a draw.

Baljeu's rules are the perfect bot's: `baljeu_openings` reads its solved table
(`bots.solvers.alak`, no pass, so no window and one solve). Both rule sets are explored and
solved by the same code, `bots.solvers.retrograde`, this module giving it the traditional moves.

The tables are built in memory (plain lists and `array`); the solvers report progress through a
callback so that the command can show it, and `traditional_openings` / `baljeu_openings` give
the per-opening tables.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass

from bots.solvers import alak
from bots.solvers.retrograde import Progress, Value, explore, quiet, retrograde, reverse
from protocols.alak.rules import LETTERS, AlakRules, rules_for, territory, traditional_place

DRAW, WIN, LOSS = Value.DRAW, Value.WIN, Value.LOSS  # for the player to move
# End nodes (two passes): rows 0, 1, 2 of every table, valued for the player who would move;
# rows 3 and 4 are the cut nodes (the balance left the window) where blue, or orange, moves.
_END_LOSS, _END_DRAW, _END_WIN, _CUT_BLUE, _CUT_ORANGE = 0, 1, 2, 3, 4
_ENDS = 5
PASS = -1


def _zigzag(balance: int) -> int:
    return 2 * balance if balance >= 0 else -2 * balance - 1


def _unzigzag(code: int) -> int:
    return code >> 1 if not code & 1 else -((code + 1) >> 1)


def pack(size: int, own: int, enemy: int, ko: int, passed: int, balance: int, orange: int) -> int:
    """One int for a state seen from the player to move (`orange`: 1 when orange moves)."""
    high = passed | orange << 1 | _zigzag(balance) << 2
    return own | enemy << size | ko << 2 * size | high << 3 * size


def moves(rules: AlakRules, key: int, window: int) -> list[tuple[int, int]]:
    """(point or PASS, child key, or -1 - end row) for every legal move of the state `key`."""
    size, full = rules.size, rules.full
    own, enemy, ko = key & full, key >> size & full, key >> 2 * size & full
    high = key >> 3 * size
    passed, orange, balance = high & 1, high >> 1 & 1, _unzigzag(high >> 2)
    result = []
    free = full & ~(own | enemy | ko)
    for point in range(size):
        if free >> point & 1:
            placed = traditional_place(rules, own, enemy, point)
            if placed is not None:
                new_own, new_enemy, captured, new_ko = placed
                gain = balance + captured.bit_count()
                if gain > window:  # the opponent moves next, in a cut node
                    result.append((point, -1 - (_CUT_BLUE if orange else _CUT_ORANGE)))
                    continue
                child = pack(size, new_enemy, new_own, new_ko, 0, -gain, orange ^ 1)
                result.append((point, child))
    if passed:  # a second pass: the scores decide, for the player who passed
        own_land, enemy_land = territory(rules, own, enemy)
        lead = own_land - enemy_land + own.bit_count() - enemy.bit_count() + balance
        end = _END_LOSS if lead > 0 else _END_WIN if lead < 0 else _END_DRAW
        result.append((PASS, -1 - end))  # negative: an end row, not a key
    else:
        result.append((PASS, pack(size, enemy, own, 0, 1, -balance, orange ^ 1)))
    return result


@dataclass
class Table:
    """The solved states of one board size within one window: for each state, its value and
    game length for the player to move with the cut nodes won by blue (`high`, the best blue
    can hope for) and by orange (`low`)."""

    size: int
    window: int
    index: dict[int, int]  # key -> row (rows 0..4 are the end and cut nodes)
    high: tuple[bytearray, array[int]]
    low: tuple[bytearray, array[int]]
    seconds: float = 0.0

    def lookup(self, key: int) -> tuple[Value | None, int]:
        """The exact value for the player to move and a game length, or (None, 0) when the
        window leaves it open. The length comes from the run less favourable to the winner, so
        the winner surely wins within it."""
        row = self.index[key] if key >= 0 else -1 - key
        high, low = self.high[0][row], self.low[0][row]
        if high != low:
            return None, 0
        if high == DRAW:
            return DRAW, 0
        blue_wins = (high == WIN) != _orange_moves(self.size, key)
        return Value(high), (self.low if blue_wins else self.high)[1][row]

    @property
    def positions(self) -> int:
        """States searched (the end and cut nodes aside)."""
        return len(self.index)


def _orange_moves(size: int, key: int) -> bool:
    """Whether orange moves in the state `key` (end rows: unused, False)."""
    return key >= 0 and bool(key >> 3 * size + 1 & 1)


def _decided(blue_wins_cuts: bool) -> list[tuple[int, Value]]:
    """The end and cut nodes' values, the cut nodes won by blue or by orange."""
    blue_cut, orange_cut = (WIN, LOSS) if blue_wins_cuts else (LOSS, WIN)
    return [(_END_LOSS, LOSS), (_END_WIN, WIN), (_CUT_BLUE, blue_cut), (_CUT_ORANGE, orange_cut)]


def solve_traditional(
    size: int, window: int, progress: Progress | None = None, max_states: int = 30_000_000
) -> Table:
    """Solve traditional Alak on `size` points from the empty board, capture balances kept
    within +-`window` (see the module's note)."""
    began = time.perf_counter()
    report = progress or quiet
    rules = rules_for(size, 0, 0)
    start = pack(size, 0, 0, 0, 0, 0, 0)
    graph = explore(lambda key: moves(rules, key, window), start, _ENDS, report, max_states)
    parents = reverse(graph)
    high = retrograde(graph, parents, _decided(True), report, "solving, cuts to blue")
    if parents.reaches(_CUT_BLUE) or parents.reaches(_CUT_ORANGE):
        low = retrograde(graph, parents, _decided(False), report, "solving, cuts to orange")
    else:  # no cut node reached: one solve is exact
        low = high
    return Table(size, window, graph.index, high, low, time.perf_counter() - began)


# --- Both rule sets, per opening move --------------------------------------------------------

_FOR_FIRST = {LOSS: "blue", WIN: "orange", DRAW: "draw"}  # the child's value seen by blue


@dataclass(frozen=True)
class Openings:
    """Perfect-play results after each first move, for blue (the first player) and orange."""

    size: int
    variant: str
    results: dict[str, str]  # move -> "blue" | "orange" | "draw"
    plies: dict[str, int]  # move -> game length with perfect play (0 for draws), that move counted
    positions: int
    seconds: float
    window: int | None = None  # the capture-balance window of the traditional search

    @property
    def value(self) -> str:
        """The result of the game itself: blue picks its best opening."""
        found = set(self.results.values())
        if "blue" in found:
            return "blue"
        if "unresolved" in found:
            return "unresolved"
        return "draw" if "draw" in found else "orange"

    @property
    def best(self) -> list[str]:
        """The openings that reach the game's value (the fastest wins, when blue wins)."""
        value = self.value
        winning = [move for move, result in self.results.items() if result == value]
        if value in ("draw", "unresolved"):
            return winning
        pick = min if value == "blue" else max  # a losing blue resists longest
        length = pick(self.plies[move] for move in winning)
        return [move for move in winning if self.plies[move] == length]

    def as_json(self) -> dict[str, object]:
        return {
            "size": self.size,
            "variant": self.variant,
            "value": self.value,
            "best": self.best,
            "openings": self.results,
            "plies": self.plies,
            "positions": self.positions,
            "seconds": round(self.seconds, 3),
            "window": self.window,
        }


def traditional_openings(
    size: int,
    progress: Progress | None = None,
    window: int | None = None,
    max_states: int = 30_000_000,
) -> Openings:
    """Each opening's exact result, the window doubled (from 2 x size) until every opening is
    resolved or the next window would pass `max_states` states (then some stay "unresolved")."""
    rules = rules_for(size, 0, 0)
    width = window or 2 * size
    spent = 0.0
    while True:
        table = solve_traditional(size, width, progress, max_states)
        spent += table.seconds
        results, lengths = {}, {}
        for point, child in moves(rules, pack(size, 0, 0, 0, 0, 0, 0), width):
            value, plies = table.lookup(child)
            name = "pass" if point == PASS else LETTERS[point]
            results[name] = "unresolved" if value is None else _FOR_FIRST[value]
            lengths[name] = plies + 1 if value not in (None, DRAW) else 0
        if window is not None or "unresolved" not in results.values():
            break
        if 2 * table.positions > max_states:
            break
        width *= 2
    return Openings(size, "traditional", results, lengths, table.positions, spent, width)


def baljeu_openings(
    size: int, progress: Progress | None = None, max_states: int = 30_000_000
) -> Openings:
    """The same table for Baljeu's rules, from the perfect bot's solver (no pass, so no
    window: the graph is finite). Its positions merge the colours (see `bots.solvers.alak`)."""
    began = time.perf_counter()
    solution = alak.solve(size, progress or quiet, max_states)
    results, lengths = {}, {}
    for point, child in alak.children(rules_for(size, 0, 0), 0):
        value, plies = solution.lookup(child)
        results[LETTERS[point]] = _FOR_FIRST[value]
        lengths[LETTERS[point]] = plies + 1 if value != DRAW else 0
    seconds = time.perf_counter() - began
    return Openings(size, "baljeu", results, lengths, len(solution.index), seconds)

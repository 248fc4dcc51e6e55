"""Group stages, the course's way: groups play a round robin, the top two of each group go on to
the next stage's groups, until one group is left; its top four play the final and the
third-place match.

The first stage's groups are the config's (`[stages] groups`, the course file's `[groups]`) or
drawn by the seed: up to `max_groups` groups of about `group_size` players. Each group plays
`games_per_pairing` games a pairing (the course: 2, one with each colour); a win is worth 2
points, a draw 1. The `advance` best of each group (the course: 2) are drawn by the seed into
the next stage's groups of about `group_size`. A stage of a single group is the last: with four
or more players its first and second play the final ("Championship") and its third and fourth
the third-place match, both mini-matches as in `ties.py`; with fewer, its table is the final
order. Ties in a table are broken as `ranking.py` says; the play-off among players still level
across a cut is one round robin among them, every pairing once with each colour.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from referee.tournament.config import TournamentConfig
from referee.tournament.formats.base import GroupLine, GroupTable, Ledger, Pairing, Stage
from referee.tournament.formats.outcome import Outcome
from referee.tournament.formats.ranking import (
    Block,
    by_lots,
    by_points,
    rank,
    split,
    straddling,
    tallies,
)
from referee.tournament.formats.ties import TieSpec, loser, outcome_note, play_ties
from referee.tournament.schedule import round_robin_rounds
from referee.tournament.standings import GameResult

ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth")
FINAL_STAGE = "Final Round"
CHAMPIONSHIP = "Championship"
THIRD_PLACE = "Third Place Match"
FINALISTS = 4


@dataclass(frozen=True)
class Group:
    name: str
    players: list[str]


def stage_name(number: int) -> str:
    if number <= len(ORDINALS):
        return f"{ORDINALS[number - 1]} Round"
    return f"Round {number}"


def group_name(index: int) -> str:
    return f"Group {chr(ord('A') + index)}" if index < 26 else f"Group {index + 1}"


def split_groups(players: Sequence[str], count: int) -> list[Group]:
    """`players` in `count` groups of nearly equal size, the first ones one larger."""
    base, extra = divmod(len(players), count)
    groups, start = [], 0
    for i in range(count):
        size = base + (i < extra)
        groups.append(Group(group_name(i), list(players[start : start + size])))
        start += size
    return groups


def first_groups(config: TournamentConfig) -> list[Group]:
    settings = config.stages
    if settings.groups:
        return [Group(name, list(players)) for name, players in settings.groups.items()]
    order = list(config.player_names)
    random.Random(f"groups/{config.seed}").shuffle(order)
    count = min(settings.max_groups, max(1, len(order) // settings.group_size))
    return split_groups(order, count)


def group_pairs(players: Sequence[str], games_per_pairing: int) -> list[list[Pairing]]:
    """A group's round robin as rounds of pairings, colours swapped on every other cycle."""
    rounds = round_robin_rounds(list(players))
    out = []
    for cycle in range(games_per_pairing):
        for pairs in rounds:
            out.append([(o, b) if cycle % 2 else (b, o) for b, o in pairs])
    return out


def replay(config: TournamentConfig, ledger: Ledger) -> Outcome:
    settings = config.stages
    groups = first_groups(config)
    stages: list[Stage] = []
    # Per stage: the players who went out there, best first, with what decided their places.
    out_early: list[list[tuple[str, str]]] = []
    number = 0
    while True:
        number += 1
        name = stage_name(number)
        single = len(groups) == 1
        size = len(groups[0].players)
        if single:
            cuts = {2, FINALISTS} if size >= FINALISTS else set(range(1, size))
        else:
            cuts = {settings.advance}
        played = _play_groups(config, ledger, name, number, groups, cuts)
        places = (FINALISTS if size >= FINALISTS else 0) if single else settings.advance
        stages.append(_stage(name, played, places))
        if not played.decided:
            return Outcome(stages=stages, current=name, finished=False)
        if single:
            break
        advancers = [p for order in played.orders for p in order[: settings.advance]]
        out_early.append(_went_out(played, settings.advance, name))
        random.Random(f"stages/{config.seed}/{number + 1}").shuffle(advancers)
        count = max(1, len(advancers) // settings.group_size)
        groups = split_groups(advancers, count)
    order = played.orders[0]
    rest = [placed for stage_out in reversed(out_early) for placed in stage_out]
    last = [(p, _place_note(i, p, played, name)) for i, p in enumerate(order)]
    if len(order) < FINALISTS:
        return _finished(stages, [*last, *rest])
    specs = [
        TieSpec(CHAMPIONSHIP, order[0], order[1], 1, 2),
        TieSpec(THIRD_PLACE, order[2], order[3], 3, 4),
    ]
    ties, decided = play_ties(ledger, FINAL_STAGE, number + 1, specs, settings.final_games,
                              settings.extra_games)  # fmt: skip
    stages.append(Stage(name=FINAL_STAGE, kind="bracket", ties=ties, decided=decided))
    if not decided:
        return Outcome(stages=stages, current=FINAL_STAGE, finished=False)
    top: list[tuple[str, str]] = []
    for tie in ties:
        if tie.winner is not None:
            top.append((tie.winner, outcome_note(tie, tie.winner, tie.label)))
        if (beaten := loser(tie)) is not None:
            top.append((beaten, outcome_note(tie, beaten, tie.label)))
    return _finished(stages, [*top, *last[FINALISTS:], *rest])


def _finished(stages: list[Stage], placed: list[tuple[str, str]]) -> Outcome:
    return Outcome(stages=stages, current=None, finished=True,
                   placings=[name for name, _ in placed], placing_notes=dict(placed))  # fmt: skip


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _place_note(index: int, name: str, played: Played, stage: str) -> str:
    """A place in the last group: its position there, its points, and the tie-break that
    ordered it among players with as many."""
    points = tallies(played.groups[0].players, played.results[0])[name].points
    note = f"{ordinal(index + 1)} in the {stage}, {points} pts"
    tie = _tie_break(name, played, 0)
    return note + (f" ({tie})" if tie else "")


def _tie_break(name: str, played: Played, group: int) -> str:
    """What ordered `name` among the players of its group level with it on points (as
    `ranking.py` does): head-to-head points, wins, or the table's own note (a play-off, lots,
    left level); "" when nobody has as many points."""
    results = played.results[group]
    table = tallies(played.groups[group].players, results)
    level = [p for p in played.orders[group] if table[p].points == table[name].points]
    if len(level) == 1:
        return ""
    if note := played.notes[group].get(name):
        return note
    mutual = [g for g in results if g.blue in level and g.orange in level]
    h2h = tallies(level, mutual)
    if sum(h2h[p].points == h2h[name].points for p in level) == 1:
        return f"head-to-head {h2h[name].points} pts"
    return f"{table[name].wins} wins"


@dataclass
class Played:
    groups: list[Group]
    regular: list[list[int]]
    playoffs: list[list[int]]
    results: list[list[GameResult]]  # of each group's own games (not its play-off)
    orders: list[list[str]]  # each group's final order (or its order so far)
    notes: list[dict[str, str]]
    decided: bool


def _play_groups(
    config: TournamentConfig,
    ledger: Ledger,
    stage: str,
    round: int,
    groups: list[Group],
    cuts: set[int],
) -> Played:
    """A stage's groups: every group's games (round by round, groups side by side), then the
    play-offs that ties across a cut need, then each group's order."""
    regular: list[list[int]] = [[] for _ in groups]
    schedules = [group_pairs(g.players, config.games_per_pairing) for g in groups]
    for r in range(max((len(s) for s in schedules), default=0)):
        for i, (group, schedule) in enumerate(zip(groups, schedules, strict=True)):
            if r < len(schedule):
                regular[i] += ledger.add(stage, group.name, round, schedule[r])
    empty: list[list[int]] = [[] for _ in groups]
    results = [ledger.results(numbers) for numbers in regular]
    blocks = [rank(g.players, r) for g, r in zip(groups, results, strict=True)]
    if not all(ledger.decided(n) for n in regular):
        return Played(groups, regular, empty, results, _flat(blocks), _level(blocks), False)
    playoffs: list[list[int]] = []
    for group, group_blocks in zip(groups, blocks, strict=True):
        numbers: list[int] = []
        for i in straddling(group_blocks, cuts):
            for pairs in group_pairs(sorted(group_blocks[i]), 2):
                numbers += ledger.add(stage, group.name, round, pairs)
        playoffs.append(numbers)
    if not all(ledger.decided(n) for n in playoffs):
        return Played(groups, regular, playoffs, results, _flat(blocks), _level(blocks), False)
    orders, notes = [], []
    for group, group_blocks, numbers in zip(groups, blocks, playoffs, strict=True):
        order, note = _settle(group_blocks, cuts, ledger.results(numbers), config.seed,
                              f"{stage}/{group.name}")  # fmt: skip
        orders.append(order)
        notes.append(note)
    return Played(groups, regular, playoffs, results, orders, notes, True)


def _settle(
    blocks: list[Block], cuts: set[int], results: Sequence[GameResult], seed: int, where: str
) -> tuple[list[str], dict[str, str]]:
    crossing = set(straddling(blocks, cuts))
    order: list[str] = []
    notes: dict[str, str] = {}
    for i, block in enumerate(blocks):
        if len(block) == 1:
            order += block
            continue
        if i not in crossing:
            order += block
            notes.update({name: "level" for name in block})
            continue
        points = tallies(block, results)
        for part in split(block, by_points(points)):
            if len(part) == 1:
                notes[part[0]] = f"play-off {points[part[0]].points} pts"
                order += part
            else:
                order += by_lots(part, seed, f"{where}/{len(order) + 1}")
                notes.update({name: "play-off level, then lots" for name in part})
    return order, notes


def _flat(blocks: list[list[Block]]) -> list[list[str]]:
    return [[p for block in group for p in block] for group in blocks]


def _level(blocks: list[list[Block]]) -> list[dict[str, str]]:
    return [{p: "level" for block in group if len(block) > 1 for p in block} for group in blocks]


def _went_out(played: Played, advance: int, stage: str) -> list[tuple[str, str]]:
    """Those who went out, best first, with what decided their places: their place in their
    group (players left level there share the best of their places), then their points a game
    (groups may differ in size), then their wins a game, then their names (said, as level)."""
    found = []
    for i, group in enumerate(played.groups):
        table = tallies(group.players, played.results[i])
        shared = _shared_places(rank(group.players, played.results[i]), advance)
        for place, name in enumerate(played.orders[i]):
            if place < advance:
                continue
            t, top = table[name], shared.get(name, place)
            games = max(t.games, 1)
            key = (top, -t.points / games, -t.wins / games)
            where = f"out in the {stage}: {ordinal(top + 1)} in {group.name}"
            tie = "level" if name in shared else _tie_break(name, played, i)
            note = f"{where}, {t.points} pts in {t.games} games" + (f" ({tie})" if tie else "")
            found.append((key, name, note))
    found.sort(key=lambda item: (item[0], item[1]))
    keys = [key for key, _, _ in found]
    return [
        (name, note + (", then by name" if keys.count(key) > 1 else ""))
        for key, name, note in found
    ]


def _shared_places(blocks: list[Block], advance: int) -> dict[str, int]:
    """The players left level in a group (a block no cut passes through), each with the best
    place of its block (from 0)."""
    crossing = set(straddling(blocks, {advance}))
    shared, start = {}, 0
    for i, block in enumerate(blocks):
        if len(block) > 1 and i not in crossing:
            shared.update(dict.fromkeys(block, start))
        start += len(block)
    return shared


def _stage(name: str, played: Played, places: int) -> Stage:
    tables = []
    for i, group in enumerate(played.groups):
        table = tallies(group.players, played.results[i])  # the group's games, no play-off
        lines = [
            GroupLine(position=pos + 1, name=p, games=table[p].games, wins=table[p].wins,
                      draws=table[p].draws, losses=table[p].losses, points=table[p].points,
                      advances=played.decided and pos < places,
                      note=played.notes[i].get(p, ""))
            for pos, p in enumerate(played.orders[i])
        ]  # fmt: skip
        tables.append(
            GroupTable(
                name=group.name,
                players=group.players,
                lines=lines,
                games=[*played.regular[i], *played.playoffs[i]],
                decided=played.decided,
            )
        )
    return Stage(name=name, kind="groups", groups=tables, decided=played.decided)

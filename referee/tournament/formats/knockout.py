"""Knockout: a seeded bracket of mini-match ties, byes for the top seeds when the field is not a
power of two, and an optional third-place match.

Seeds come from the config's order (or `[knockout] seeds`), from a seeded shuffle, or from the
ratings of an earlier tournament (resolved into `seeds` when the config is read). The bracket is
the standard one: seed 1 meets the lowest seed, and seeds 1 and 2 can meet only in the final.
A bracket of P places (the next power of two) gives the top P - n seeds a bye in the first
round. Each tie is decided as `ties.py` says; the higher seed has blue in its first game.
"""

from __future__ import annotations

import random

from referee.tournament.config import TournamentConfig
from referee.tournament.formats.base import Ledger, Stage, Tie
from referee.tournament.formats.outcome import Outcome
from referee.tournament.formats.ties import TieSpec, loser, outcome_note, play_ties

Entry = tuple[str, int] | None  # (player, seed), or an empty place (the other player's bye)
NAMES = {2: "Final", 4: "Semi-final", 8: "Quarter-final"}


def seed_order(config: TournamentConfig) -> list[str]:
    """The players, best seed first."""
    settings = config.knockout
    if settings.seeding == "random":
        order = list(config.player_names)
        random.Random(f"knockout/{config.seed}").shuffle(order)
        return order
    if settings.seeds:
        rest = [name for name in config.player_names if name not in settings.seeds]
        return [*settings.seeds, *rest]
    return list(config.player_names)


def bracket_positions(size: int) -> list[int]:
    """Seed numbers (from 1) in bracket order: neighbours meet in the first round."""
    positions = [1]
    while len(positions) < size:
        total = 2 * len(positions) + 1
        positions = [p for seed in positions for p in (seed, total - seed)]
    return positions


def round_name(entrants: int) -> str:
    return NAMES.get(entrants, f"Round of {entrants}")


def replay(config: TournamentConfig, ledger: Ledger) -> Outcome:
    settings = config.knockout
    seeds = seed_order(config)
    size = 1
    while size < len(seeds):
        size *= 2
    entries: list[Entry] = [
        (seeds[s - 1], s) if s <= len(seeds) else None for s in bracket_positions(size)
    ]
    stages: list[Stage] = []
    eliminated: list[list[tuple[int, str]]] = []  # per round: (seed, name)
    number = 0
    while len(entries) > 1:
        number += 1
        name = round_name(len(entries))
        specs = [_spec(name, i, entries[2 * i], entries[2 * i + 1], len(entries))
                 for i in range(len(entries) // 2)]  # fmt: skip
        third = None
        if len(entries) == 2 and settings.third_place and stages:
            third = _third_place(stages[-1].ties)
            if third is not None:
                specs.append(third)
        ties, decided = play_ties(ledger, name, number, specs, settings.games,
                                  settings.extra_games)  # fmt: skip
        stages.append(Stage(name=name, kind="bracket", ties=ties, decided=decided))
        if not decided:
            return Outcome(stages=stages, current=name, finished=False)
        main = ties[: len(entries) // 2]
        eliminated.append(sorted(_losers(main)))
        entries = [_winner_entry(tie) for tie in main]
    last = stages[-1].ties if stages else []
    final = last[0] if last else None
    third_tie = last[1] if len(last) > 1 else None
    placings, notes = _placings(final, third_tie, eliminated, stages, seeds)
    return Outcome(stages=stages, current=None, finished=True, placings=placings,
                   placing_notes=notes)  # fmt: skip


def _spec(stage: str, i: int, a: Entry, b: Entry, entrants: int) -> TieSpec:
    label = stage if entrants == 2 else f"{stage} {i + 1}"
    if a is None or (b is not None and b[1] < a[1]):
        a, b = b, a  # the higher seed first
    return TieSpec(label, a[0] if a else None, b[0] if b else None,
                   a[1] if a else None, b[1] if b else None)  # fmt: skip


def _third_place(semis: list[Tie]) -> TieSpec | None:
    losers = [(t, loser(t)) for t in semis]
    if len(losers) != 2 or any(name is None for _, name in losers):
        return None  # a semi-final was a bye: there is no third-place match to play
    (t1, l1), (t2, l2) = losers
    s1 = t1.second_seed if l1 == t1.second else t1.first_seed
    s2 = t2.second_seed if l2 == t2.second else t2.first_seed
    entries = sorted([(s1 or 0, l1 or ""), (s2 or 0, l2 or "")])
    (a_seed, a), (b_seed, b) = entries
    return TieSpec("Third place", a, b, a_seed, b_seed)


def _losers(ties: list[Tie]) -> list[tuple[int, str]]:
    out = []
    for tie in ties:
        name = loser(tie)
        if name is not None:
            seed = tie.second_seed if name == tie.second else tie.first_seed
            out.append((seed or 0, name))
    return out


def _winner_entry(tie: Tie) -> Entry:
    if tie.winner is None:
        return None
    seed = tie.first_seed if tie.winner == tie.first else tie.second_seed
    return (tie.winner, seed or 0)


def _placings(
    final: Tie | None,
    third: Tie | None,
    eliminated: list[list[tuple[int, str]]],
    stages: list[Stage],
    seeds: list[str],
) -> tuple[list[str], dict[str, str]]:
    """Champion, runner-up, (third and fourth,) then by the round they went out in, latest
    first, and by seed within a round; with what decided each place."""
    out: list[str] = []
    notes: dict[str, str] = {}

    def place(name: str | None, note: str) -> None:
        if name is not None and name not in notes:
            out.append(name)
            notes[name] = note

    def place_both(tie: Tie, what: str) -> None:
        """The winner, then the loser, each with the tie's points from its own side."""
        for name in (tie.winner, loser(tie)):
            if name is not None:
                place(name, outcome_note(tie, name, what))

    if final is not None and final.winner is not None:
        place_both(final, final.label)
    elif seeds:
        place(seeds[0], "the only player")
    if third is not None and third.winner is not None:
        place_both(third, f"{third.label.lower()} match")
    for stage, out_in_round in zip(reversed(stages), reversed(eliminated), strict=True):
        shared = len([name for _, name in out_in_round if name not in notes]) > 1
        for seed, name in out_in_round:
            place(name, f"out in the {stage.name}" + (f", seed {seed}" if shared else ""))
    return out, notes

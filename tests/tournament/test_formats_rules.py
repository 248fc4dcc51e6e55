"""The staged formats' rules on constructed fields: brackets and byes, ties broken at every
step, group tables and advancement, games void for good, determinism for a seed.

A format is a pure function of (config, stored games): these tests play whole tournaments on
paper, deciding each game by a rule, exactly as the runner adds and plays the stages."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocols.base import Reason, Side
from referee.tournament.config import TournamentConfig
from referee.tournament.formats import FormatMismatch, Plan, make_schedule, new_games, plan_for
from referee.tournament.formats.knockout import bracket_positions
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import GameRow, GameState

# A game's fate: a player's name (the winner), "draw", "forfeit" (both lose) or "void".
Fate = Callable[[ScheduledGame], str]


def config(fmt: str, n: int, **settings: object) -> TournamentConfig:
    players = [{"name": f"p{i:02d}", "command": "x"} for i in range(n)]
    raw = {"name": "t", "game": "lasker-morris", "format": fmt, "players": players}
    return TournamentConfig.model_validate(raw | settings)


def row(game: ScheduledGame, fate: str, max_replays: int = 3) -> GameRow:
    state, winner, reason, voids = GameState.FINISHED, None, Reason.GAME_ENDING, 0
    if fate == "void":
        state, reason, voids = GameState.VOID, Reason.INFRASTRUCTURE, max_replays + 1
    elif fate == "forfeit":
        reason = Reason.CRASH
    elif fate != "draw":
        winner = Side.BLUE if fate == game.blue else Side.ORANGE
    return GameRow(game.number, game.round, game.blue, game.orange, game.seed, state, 1, voids,
                   winner, reason, None, None, 10, None, None, None)  # fmt: skip


def play(cfg: TournamentConfig, fate: Fate, limit: int = 10_000) -> tuple[Plan, list[GameRow]]:
    """The whole tournament, stage by stage, each game decided by `fate`."""
    rows: list[GameRow] = []
    while True:
        plan = plan_for(cfg, rows)
        if plan.finished:
            return plan, rows
        added = new_games(plan, len(rows) + 1, cfg.seed)
        assert added, "an unfinished plan must have games to add once every game is decided"
        rows += [row(g, fate(g), cfg.max_replays) for g in added]
        assert len(rows) < limit


def strength(name: str) -> int:
    return -int(name[1:])  # p00 is the strongest


def stronger(game: ScheduledGame) -> str:
    return max(game.players, key=strength)


# -- knockout ---------------------------------------------------------------------------------


def test_the_bracket_keeps_the_top_seeds_apart() -> None:
    assert bracket_positions(2) == [1, 2]
    assert bracket_positions(4) == [1, 4, 2, 3]
    assert bracket_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert sorted(bracket_positions(16)) == list(range(1, 17))


def test_byes_go_to_the_top_seeds_of_a_field_that_is_no_power_of_two() -> None:
    cfg = config("knockout", 5, knockout={"games": 2})
    first = make_schedule(cfg)
    # Eight places, five players: seeds 1-3 have byes, seeds 4 and 5 play; seed 4 blue first.
    assert [(g.blue, g.orange) for g in first] == [("p03", "p04"), ("p04", "p03")]
    plan, rows = play(cfg, stronger)
    first_round = plan.stages[0]
    assert [t.decided_by for t in first_round.ties] == ["bye", "games", "bye", "bye"]
    assert [s.name for s in plan.stages] == ["Quarter-final", "Semi-final", "Final"]
    assert plan.placings[:2] == ["p00", "p01"]
    assert sorted(plan.placings) == [f"p{i:02d}" for i in range(5)]
    assert len(rows) == 2 * 4  # one first-round tie, two semi-finals, the final


def test_a_level_tie_plays_extra_games_then_the_colour_rule_then_the_seed_order() -> None:
    cfg = config("knockout", 2, knockout={"games": 2, "extra_games": 2})

    # Each wins with blue in the games, then p01 wins both extra games.
    def extra(game: ScheduledGame) -> str:
        return game.blue if game.number <= 2 else "p01"

    plan, rows = play(cfg, extra)
    (tie,) = plan.stages[0].ties
    assert (tie.winner, tie.decided_by, len(rows)) == ("p01", "extra games", 4)
    assert (tie.first_points, tie.second_points) == (2, 6)

    # Level after every game: the one with more wins as orange goes through. In three games
    # p00 has blue in games 1 and 3: p00 wins game 1 as blue, p01 game 3 as orange.
    odd = config("knockout", 2, knockout={"games": 3, "extra_games": 0})
    plan, _ = play(odd, lambda g: {1: "p00", 2: "draw", 3: "p01"}[g.number])
    (tie,) = plan.stages[0].ties
    assert (tie.first_points, tie.second_points) == (3, 3)
    assert (tie.winner, tie.decided_by) == ("p01", "colour rule")

    # Nothing to tell them apart: the higher seed.
    plan, _ = play(cfg, lambda g: "draw")
    assert (plan.stages[0].ties[0].winner, plan.stages[0].ties[0].decided_by) == (
        "p00",
        "seed order",
    )


def test_a_tie_whose_games_are_all_void_for_good_still_goes_on() -> None:
    cfg = config("knockout", 4, knockout={"games": 2, "extra_games": 2})
    plan, _ = play(cfg, lambda g: "void" if "p00" in g.players else stronger(g))
    assert plan.finished
    first = plan.stages[0].ties[0]  # p00 v p03: nothing played, level: the higher seed
    assert (first.first, first.second, first.winner) == ("p00", "p03", "p00")
    assert (first.first_points, first.second_points, first.decided_by) == (0, 0, "seed order")
    assert plan.placings[:2] == ["p00", "p01"]  # the final was all void too


def test_the_third_place_match_is_played_beside_the_final() -> None:
    cfg = config("knockout", 4, knockout={"games": 1, "third_place": True})
    plan, rows = play(cfg, stronger)
    final = plan.stages[-1]
    assert [t.label for t in final.ties] == ["Final", "Third place"]
    assert plan.placings == ["p00", "p01", "p02", "p03"]
    assert len(rows) == 4


def test_random_seeding_is_fixed_by_the_seed() -> None:
    def first(seed: int) -> list[tuple[str, str]]:
        cfg = config("knockout", 8, seed=seed, knockout={"seeding": "random"})
        return [g.players for g in make_schedule(cfg)]

    assert first(1) == first(1)
    assert first(1) != first(2)
    plan_a, rows_a = play(config("knockout", 8, seed=3, knockout={"seeding": "random"}), stronger)
    plan_b, rows_b = play(config("knockout", 8, seed=3, knockout={"seeding": "random"}), stronger)
    assert plan_a == plan_b and rows_a == rows_b


def test_given_seeds_come_first() -> None:
    cfg = config("knockout", 4, knockout={"seeds": ["p03", "p02"]})
    assert [g.players for g in make_schedule(cfg)][::2] == [("p03", "p01"), ("p02", "p00")]


# -- group stages -----------------------------------------------------------------------------


def test_the_course_structure_eight_groups_to_four_to_two_to_one_then_the_finals() -> None:
    cfg = config("stages", 32)
    plan, rows = play(cfg, stronger)
    names = [s.name for s in plan.stages]
    assert names == ["First Round", "Second Round", "Third Round", "Fourth Round", "Final Round"]
    assert [len(s.groups) for s in plan.stages[:4]] == [8, 4, 2, 1]
    assert all(len(g.players) == 4 for s in plan.stages[:4] for g in s.groups)
    # Each group of four: a double round robin, 12 games; the finals: 2 games each.
    assert len(rows) == 12 * (8 + 4 + 2 + 1) + 2 * 2
    final, third = plan.stages[-1].ties
    assert (final.label, third.label) == ("Championship", "Third Place Match")
    assert plan.placings[0] == "p00" and len(plan.placings) == 32
    for stage in plan.stages[:3]:
        for group in stage.groups:  # the two best of each group advance, and only they
            assert [line.advances for line in group.lines] == [True, True, False, False]
            assert [line.name for line in group.lines[:2]] == sorted(
                group.players, key=strength, reverse=True
            )[:2]
    # Every pairing in a group met once with each colour.
    first = plan.stages[0].groups[0]
    pairs = [(r.blue, r.orange) for r in rows if r.number in first.games]
    assert len(set(pairs)) == 12 and all((b, a) in pairs for a, b in pairs)


def test_given_groups_are_used_as_they_are() -> None:
    groups = {"Group A": ["p00", "p01", "p02", "p03"], "Group B": ["p04", "p05", "p06", "p07"]}
    cfg = config("stages", 8, stages={"groups": groups})
    plan, _ = play(cfg, stronger)
    assert [g.players for g in plan.stages[0].groups] == list(groups.values())
    assert [(t.first, t.second) for t in plan.stages[-1].ties] == [
        ("p00", "p01"), ("p04", "p05")
    ]  # fmt: skip


def test_a_tie_on_points_is_broken_by_head_to_head_then_by_wins() -> None:
    # One group of four: p00 beats p01 both times but loses to p03 twice; p01 beats p02 and
    # p03 twice. p00 and p01 are level on points; p00 won their games: p00 first.
    groups = {"A": ["p00", "p01", "p02", "p03"]}
    results = {("p00", "p01"): "p00", ("p00", "p02"): "p00", ("p00", "p03"): "p03",
               ("p01", "p02"): "p01", ("p01", "p03"): "p01", ("p02", "p03"): "draw"}  # fmt: skip

    def fate(game: ScheduledGame) -> str:
        key = tuple(sorted(game.players))
        return results.get(key, stronger(game)) if game.round == 1 else stronger(game)

    cfg = config("stages", 4, stages={"groups": groups})
    plan, _ = play(cfg, fate)
    lines = plan.stages[0].groups[0].lines
    assert [(line.name, line.points) for line in lines] == [
        ("p00", 8), ("p01", 8), ("p03", 6), ("p02", 2)
    ]  # fmt: skip

    # Level on points and head to head: more wins first. p00 and p01 each win with blue
    # against the other; p00 wins twice against p02 but loses twice to p03; p01 draws with both.
    def fate2(game: ScheduledGame) -> str:
        pair = set(game.players)
        if pair == {"p00", "p01"}:
            return game.blue
        if pair == {"p00", "p02"}:
            return "p00"
        if pair == {"p00", "p03"} or pair == {"p02", "p03"}:
            return "p03"
        return "draw"

    plan2, _ = play(cfg, fate2)
    lines = plan2.stages[0].groups[0].lines
    assert [(line.name, line.points, line.wins) for line in lines] == [
        ("p03", 10, 4), ("p00", 6, 3), ("p01", 6, 1), ("p02", 2, 0)
    ]  # fmt: skip
    assert len(plan2.stages[0].groups[0].games) == 12  # settled without a play-off


def test_players_level_across_the_cut_play_off_then_draw_lots() -> None:
    # Every group game a draw: all four level on everything; the cut after two (and four)
    # goes through the block: a play-off, every game of it drawn too, then lots.
    cfg = config("stages", 8, stages={"groups": {"A": ["p00", "p01", "p02", "p03"],
                                                 "B": ["p04", "p05", "p06", "p07"]}})  # fmt: skip
    plan, rows = play(cfg, lambda g: "draw")
    first = plan.stages[0]
    for group in first.groups:
        assert all(line.note == "play-off level, then lots" for line in group.lines)
        assert len(group.games) == 12 + 12  # the group's games, then the play-off's
    # The play-off settles the order: the winner of every play-off game goes first.
    plan2, _ = play(cfg, lambda g: "draw" if g.number <= 24 else stronger(g))
    group_a = plan2.stages[0].groups[0]
    assert [line.name for line in group_a.lines[:2]] == ["p00", "p01"]
    assert group_a.lines[0].note.startswith("play-off")
    # Lots are fixed by the seed.
    again, rows_again = play(cfg, lambda g: "draw")
    assert again == plan and rows_again == rows


def test_a_tie_that_crosses_no_cut_needs_no_play_off() -> None:
    # p00 and p01 win everything against the others and draw each other; p02 and p03 draw.
    cfg = config("stages", 8, stages={"groups": {"A": ["p00", "p01", "p02", "p03"],
                                                 "B": ["p04", "p05", "p06", "p07"]}})  # fmt: skip

    def fate(game: ScheduledGame) -> str:
        a, b = sorted(game.players, key=strength, reverse=True)
        top = {"p00", "p01", "p04", "p05"}
        return "draw" if (a in top) == (b in top) else (a if a in top else b)

    plan, _ = play(cfg, fate)
    group_a = plan.stages[0].groups[0]
    assert len(group_a.games) == 12  # no play-off: the level pairs are both in or both out
    assert {line.name for line in group_a.lines if line.advances} == {"p00", "p01"}


def test_void_games_count_as_not_played_and_the_stage_still_closes() -> None:
    cfg = config("stages", 8, max_replays=1)
    plan, rows = play(cfg, lambda g: "void" if g.number % 5 == 0 else stronger(g))
    assert plan.finished and len(plan.placings) == 8
    for group in plan.stages[0].groups:
        played = sum(line.games for line in group.lines)
        assert played == 2 * sum(1 for r in rows if r.number in group.games[:12]
                                 and r.state is GameState.FINISHED)  # fmt: skip


def test_a_small_field_is_one_group_and_its_table_is_the_result() -> None:
    plan, rows = play(config("stages", 3), stronger)
    assert [s.name for s in plan.stages] == ["First Round"]
    assert plan.placings == ["p00", "p01", "p02"] and len(rows) == 6


def test_the_stored_games_must_be_the_formats_own() -> None:
    cfg = config("knockout", 4)
    _, rows = play(cfg, stronger)
    swapped = rows[5]
    rows[5] = GameRow(swapped.number, swapped.round, swapped.orange, swapped.blue, swapped.seed,
                      swapped.state, 1, 0, swapped.winner, swapped.reason, None, None, 1, None,
                      None, None)  # fmt: skip
    with pytest.raises(FormatMismatch):
        plan_for(cfg, rows)

"""Each game of a league has its own table: a version is ranked, and compared by the LOS, only
among the versions of the game it played."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from referee.league.config import FitSettings
from referee.league.index import IndexedGame, Player, Source, open_index
from referee.league.queries import At, GameFilter, GamePage, leaderboard
from referee.league.rating import rate_league
from referee.stats.rating import RatingOptions
from referee.views.league_terminal import leaderboard_table


def _games(game: str, blue: str, orange: str, results: list[str]) -> list[IndexedGame]:
    players = [Player(game, name, f"{name}-hash", f"./{name}") for name in (blue, orange)]
    games = []
    for number, result in enumerate(results, start=1):
        games.append(
            IndexedGame(
                number=number,
                blue=players[0],
                orange=players[1],
                result=result,
                reason="game-ending",
                fault=None,
                rated=True,
                plies=9,
                record=f"games/{number:04d}.jsonl",
                started_at=f"2026-01-05T09:00:{number:02d}+00:00",
                finished_at=f"2026-01-05T09:01:{number:02d}+00:00",
                chain=f"{game}-{number}",
                key=f"{game}-{number}",
                seen=f"{game}-{number}",
            )
        )
    return games


def test_a_version_that_only_moved_second_is_ranked_in_its_own_game(tmp_path: Path) -> None:
    # Alak is the league's first game; in Lielow, "second" only ever moved second.
    index = open_index(tmp_path, writer=True)
    try:
        alak = _games("alak", "a", "b", ["blue", "orange", "blue", "draw"])
        lielow = _games("lielow", "first", "second", ["blue", "orange", "orange", "draw"])
        index.apply_source(Source(tmp_path / "t1", 0, "tournament", "t1", "alak"), alak, [])
        index.apply_source(Source(tmp_path / "t2", 1, "tournament", "t2", "lielow"), lielow, [])
        rate_league(
            index,
            FitSettings(bootstrap=10, history="none"),
            lambda *_: None,
            RatingOptions(min_games=1),  # four games each: not provisional
        )
        tables = {
            game: leaderboard(index, game=game, all_versions=True).rows
            for game in ("alak", "lielow")
        }
    finally:
        index.close()
    for game, rows in tables.items():
        assert {row.game for row in rows} == {game}
        assert [row.rank for row in rows] == [1, 2], game
        assert rows[0].los_next is not None and rows[-1].los_next is None
    assert [row.name for row in tables["lielow"]] == ["second", "first"]  # 2.5 points of 4


def _pair(blue: str, orange: str, results: list[str], start: int) -> list[IndexedGame]:
    """Games of one pair, numbered from `start` (so that pairs of one source do not collide)."""
    games = _games("alak", blue, orange, results)
    return [
        replace(
            g,
            number=g.number + start,
            key=f"k{g.number + start}",
            chain=f"c{g.number + start}",
            seen=f"s{g.number + start}",
        )
        for g in games
    ]


def test_the_leaderboard_names_unbeaten_and_provisional_versions(tmp_path: Path) -> None:
    # a and b split 12 games; c beat a in all 12 (unbeaten: a lower bound only); d drew once
    # with b (provisional: rated, not ranked, listed after the ranked versions).
    games = _pair("a", "b", ["blue", "orange", "draw", "blue"] * 3, 0)
    games += _pair("c", "a", ["blue"] * 6, 100) + _pair("a", "c", ["orange"] * 6, 200)
    games += _pair("d", "b", ["draw"], 300)
    index = open_index(tmp_path, writer=True)
    try:
        index.apply_source(Source(tmp_path / "t1", 0, "tournament", "t1", "alak"), games, [])
        rate_league(index, FitSettings(history="none"), lambda *_: None)
        rows = leaderboard(index, game="alak", all_versions=True).rows
    finally:
        index.close()
    by_name = {row.name: row for row in rows}
    assert by_name["c"].flags == "unbeaten" and by_name["c"].high is None
    assert by_name["c"].interval.startswith(">= +") and by_name["c"].rank == 1
    assert by_name["d"].flags == "provisional" and by_name["d"].rank is None
    assert [row.name for row in rows][-1] == "d"
    assert [row.rank for row in rows[:-1]] == [1, 2, 3]
    console = Console(record=True, width=120)
    console.print(leaderboard_table(rows, "alak"))
    text = console.export_text()
    assert "unbeaten" in text and "provisional" in text and by_name["c"].interval in text


def test_top_takes_the_best_rows_of_each_component_and_says_why_ranks_skip(
    tmp_path: Path,
) -> None:
    """--top 2 is the two best ranked rows of each component; a hidden older version keeps its
    rank and the table says so."""
    from referee.commands.league import show_board

    split = ["blue", "orange", "draw", "blue"] * 3
    # Component 1: a beats b; c's first version is strong, its second (c2, the latest) is not; e
    # loses every game (winless, ranked last).
    games = _pair("a", "b", split, 0) + _pair("b", "a", ["orange", "draw"] * 6, 20)
    strong = ["blue"] * 8 + ["draw", "orange"] * 2
    games += _pair("c", "a", strong, 40)
    games += _pair("a", "c", [{"blue": "orange", "orange": "blue"}.get(r, r) for r in strong], 60)
    games += _pair("e", "a", ["orange"] * 6, 80) + _pair("b", "e", ["blue"] * 6, 90)
    # Component 2: p and q split, never met the others.
    games += _pair("p", "q", split, 100) + _pair("q", "p", ["orange", "draw"] * 6, 120)
    newer = [
        replace(g, blue=replace(g.blue, content_hash="c2-hash"), finished_at="2026-02-01T00:00:00")
        for g in _pair("c", "b", ["blue", "orange", "draw"] * 4, 140)
    ]
    index = open_index(tmp_path, writer=True)
    try:
        index.apply_source(Source(tmp_path / "t1", 0, "tournament", "t1", "alak"), games, [])
        index.apply_source(Source(tmp_path / "t2", 1, "tournament", "t2", "alak"), newer, [])
        rate_league(index, FitSettings(history="none"), lambda *_: None)
        everything = leaderboard(index, game="alak", all_versions=True).rows
        console = Console(record=True, width=200)
        show_board(index, console, "alak", False, 2)
        data = io.StringIO()
        show_board(index, Console(file=data), "alak", False, 2, "csv")
    finally:
        index.close()
    old_c = next(r for r in everything if r.name == "c" and r.number == 1)
    assert old_c.rank == 1 and old_c.component == 0  # ranked, hidden in the latest view
    text = console.export_text()
    csv_rows = [line.split(",") for line in data.getvalue().splitlines()[1:]]
    shown = [(row[2], row[1], row[-1]) for row in csv_rows]
    best_latest = [
        (r.name, str(r.rank), str(r.component))
        for r in everything
        if r.rank is not None and not (r.name == "c" and r.number == 1)
    ]
    expected = [row for row in best_latest if row[2] == "0"][:2]
    expected += [row for row in best_latest if row[2] == "1"][:2]
    assert shown == expected
    assert "e" not in [row[0] for row in shown]  # the winless bot is not among the best two
    assert "older versions, hidden here, keep theirs" in " ".join(text.split())


def test_the_dashboard_shows_each_component_apart(tmp_path: Path) -> None:
    """Two components: the leaderboard heads each, ranks from 1 within it; a bot whose versions
    are in both says they are not on one scale."""
    from referee.league.queries import bot_versions, components
    from referee.web.league_pages import bot_page, leaderboard_page, server_links

    split = ["blue", "orange", "draw", "blue"] * 3
    games = _pair("a", "b", split, 0) + _pair("b", "a", ["orange", "draw"] * 6, 20)
    games += _pair("c", "a", ["blue", "orange"] * 6, 40)
    games += _pair("p", "q", split, 100) + _pair("q", "p", ["orange", "draw"] * 6, 120)
    # c's second version only met p and q: rated in the other component.
    games += [
        replace(g, blue=replace(g.blue, content_hash="c2-hash"), finished_at="2026-02-01T00:00:00")
        for g in _pair("c", "p", ["blue", "orange", "draw"] * 4, 140)
    ]
    index = open_index(tmp_path, writer=True)
    try:
        index.apply_source(Source(tmp_path / "t1", 0, "tournament", "t1", "alak"), games, [])
        rate_league(index, FitSettings(history="none"), lambda *_: None)
        page = leaderboard(index, all_versions=True)
        split_games = components(index)
        c = next(row.bot for row in page.rows if row.name == "c")
        versions = bot_versions(index, c)
    finally:
        index.close()
    assert split_games == {"alak": 2}
    links = server_links()
    board = leaderboard_page("league", page, ["alak"], (None, None, True), [], links, split_games)
    one = board.index("alak, component 1 of 2")
    two = board.index("alak, component 2 of 2")
    assert one < two
    assert "2 components of versions that never met" in board
    for part, rows in ((board[one:two], page.rows[:3]), (board[two:], page.rows[3:])):
        assert {row.component for row in rows} == {rows[0].component}
        assert all(f">{row.label}</a>" in part for row in rows)  # each under its heading
        assert [row.rank for row in rows if row.rank] == sorted(r.rank for r in rows if r.rank)
        assert rows[0].rank == 1
    no_games = GamePage([], 0, At(), None, None)
    html = bot_page(versions, [], [], [], no_games, GameFilter(), [], links)
    assert "rated in 2 components that never met" in html
    assert "<td>component 1</td>" in html and "<td>component 2</td>" in html
    assert "command (one game's)" in html  # with that game's seed: not the version's own

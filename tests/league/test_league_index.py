"""Reading a league's sources into its index: incrementally, safe against a stop half-way,
with malformed input named, and players told apart by name plus content hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.league import queries
from referee.league.config import FitSettings, LeagueError, load_league, save_league
from referee.league.discovery import sync, tournament_folders
from referee.league.index import open_index
from referee.league.queries import At, GameFilter, bot_versions, find_bot, games, leaderboard
from referee.league.rating import rate_league
from referee.tournament.store import open_store

from .conftest import PLAN


def read(league: Path):  # type: ignore[no-untyped-def]
    index = open_index(league, writer=True)
    try:
        return sync(index, league, load_league(league))
    finally:
        index.close()


def count_games(league: Path) -> int:
    index = open_index(league, writer=False)
    try:
        return int(index.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        index.close()


def test_a_second_read_reads_only_what_changed(league: Path, sources: list[Path]) -> None:
    first = read(league)
    assert (first.read, first.unchanged, first.problems) == (PLAN.games, 0, [])
    again = read(league)
    assert (again.read, again.unchanged) == (0, PLAN.games)
    store = open_store(sources[0])
    try:
        replayed = store.set_aside("bot-003")  # its games go back to pending
    finally:
        store.close()
    assert replayed
    after = read(league)
    assert after.removed == len(replayed) and after.read == 0
    assert count_games(league) == PLAN.games - len(replayed)


def test_a_stop_half_way_loses_nothing_read_and_the_next_run_finishes(
    league: Path, sources: list[Path]
) -> None:
    index = open_index(league, writer=True)
    calls = []

    def stop_in_the_second_source(name: str, done: int, total: int) -> None:
        calls.append(name)
        if len(set(calls)) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sync(index, league, load_league(league), stop_in_the_second_source)
    index.close()
    assert count_games(league) == PLAN.games // PLAN.tournaments  # the first source, whole
    report = read(league)
    assert report.read == PLAN.games - PLAN.games // PLAN.tournaments
    assert count_games(league) == PLAN.games


def test_a_malformed_record_is_named_and_the_rest_is_read(
    league: Path, sources: list[Path]
) -> None:
    record = sources[1] / "games" / "0007.jsonl"
    lines = record.read_text().split("\n")
    header = json.loads(lines[0])
    header["players"]["blue"].pop("name")
    record.write_text("\n".join([json.dumps(header), *lines[1:]]))
    report = read(league)
    assert report.problems == [] and len(report.refused) == 1  # its game refused, and named
    assert f"{record}:1: the record was edited after it was written" in report.refused[0]
    assert report.read == PLAN.games - 1


def test_a_folder_that_is_not_a_tournament_is_named(league: Path, tmp_path: Path) -> None:
    config = load_league(league)
    (tmp_path / "empty").mkdir()
    bad = tmp_path / "empty" / "tournament.sqlite"
    bad.write_text("not a database")
    save_league(league, config.model_copy(update={"sources": [*config.sources, "../empty"]}))
    report = read(league)
    assert report.read == PLAN.games
    assert any(str(bad) in p for p in report.problems)


def test_a_bad_config_is_named_with_its_line(league: Path) -> None:
    (league / "league.toml").write_text('name = "x"\nsources = []\n\n[fit]\nbootstrap = -3\n')
    with pytest.raises(LeagueError, match=r"league.toml:5: fit.bootstrap"):
        load_league(league)


def test_every_problem_of_the_config_is_named_as_a_tournament_config_names_it(
    league: Path,
) -> None:
    # Every problem, each on its own line, an unknown setting with the one it most likely meant.
    (league / "league.toml").write_text(
        'name = "x"\nsources = []\n\n[fit]\nbootstrp = 3\nlevel = 2\n'
    )
    with pytest.raises(LeagueError) as raised:
        load_league(league)
    assert sorted(str(raised.value).splitlines()) == [
        f"{league / 'league.toml'}:5: fit.bootstrp: unknown setting: did you mean 'bootstrap'?",
        f"{league / 'league.toml'}:6: fit.level: Input should be less than 1",
    ]


def test_an_index_that_is_not_one_is_refused(league: Path) -> None:
    (league / "league.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(LeagueError, match=r"league\.sqlite"):
        open_index(league, writer=True)


def test_resubmitted_bots_are_versions_of_one_bot(league: Path) -> None:
    read(league)
    index = open_index(league, writer=False)
    try:
        counts = [len(bot_versions(index, b)) for (b,) in index.db.execute("SELECT id FROM bots")]
        assert len(counts) == PLAN.players
        assert counts.count(2) == int(PLAN.players * PLAN.resubmitted)
        assert set(counts) == {1, 2}
        bot = find_bot(index, "tic-tac-toe", "bot-000")
        assert bot is not None
        mine = games(index, GameFilter(bot=bot), size=1000)
        assert mine.total == len(mine.rows) > 0
        assert all("bot-000" in (g.blue + g.orange) for g in mine.rows)
    finally:
        index.close()


def test_rating_writes_one_table_per_game_with_intervals(league: Path) -> None:
    read(league)
    index = open_index(league, writer=True)
    try:
        rated = rate_league(index, FitSettings(bootstrap=30), lambda *_: None)
        board = leaderboard(index, all_versions=True, size=100)
    finally:
        index.close()
    assert rated.games == PLAN.games and board.total == rated.players
    assert [r.rank for r in board.rows] == list(range(1, board.total + 1))
    assert all(r.low is not None and r.low <= r.rating <= r.high for r in board.rows)
    assert abs(sum(r.rating for r in board.rows)) < 1e-3
    ratings = [r.rating for r in board.rows]
    assert ratings == sorted(ratings, reverse=True)
    assert all(0 <= r.los_next <= 1 for r in board.rows[:-1])


def test_the_fit_reads_and_writes_rows_by_name(rated: Path) -> None:
    """The games the fit reads, each game's parameters and each version's rating history are
    rows with named fields, from the index to the dashboard (history by source: one step per
    tournament)."""
    index = open_index(rated, writer=False)
    try:
        played = index.rated_games()
        kinds = queries.kinds(index)
        bot = find_bot(index, kinds[0].game, "bot-000")
        assert bot is not None
        versions = {v.version for v in bot_versions(index, bot)}
        history = queries.history(index, bot)
    finally:
        index.close()
    assert len(played) == PLAN.games
    assert {g.result for g in played} <= {"blue", "orange", "draw"}
    assert len({g.source for g in played}) == PLAN.tournaments
    assert all(g.blue != g.orange and g.finished_at for g in played)
    assert sum(k.games for k in kinds) == PLAN.games
    assert all(k.draw_elo > 0 for k in kinds)
    assert {h.step for h in history} == set(range(1, PLAN.tournaments + 1))
    assert {h.version for h in history} == versions
    assert all(h.games > 0 for h in history)
    # Each step after a source, named as league.toml names it (relative to the league).
    assert {h.period for h in history} == set(load_league(rated).sources)
    assert len({g.source for g in played}) == len(load_league(rated).sources)
    latest = max(history, key=lambda h: h.step)
    assert latest.games == max(h.games for h in history if h.version == latest.version)


def test_folders_of_tournaments_are_found_below_a_folder(sources: list[Path]) -> None:
    assert list(tournament_folders(sources[0].parent)) == sources
    assert list(tournament_folders(sources[0])) == [sources[0]]


def test_every_page_of_games_is_its_slice_of_the_whole_list(league: Path) -> None:
    read(league)
    index = open_index(league, writer=False)
    try:
        whole = games(index, GameFilter(), size=PLAN.games).rows
        size, at, number = 40, At(), 1
        while True:  # each page from the key of the one before
            page = games(index, GameFilter(), at, size=size)
            assert page.rows == whole[(number - 1) * size : number * size], number
            if page.older is None:
                break
            at, number = page.older, number + 1
        assert number == -(-PLAN.games // size)
    finally:
        index.close()

"""The lists of games are paged by key: every page is found in an index (never by OFFSET,
which reads every row it skips), and walking the pages forward or back gives every game once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.league.index import open_index
from referee.league.queries import At, GameFilter, games
from scripts.bench_league_pages import build

GAMES = 3000
SIZE = 17  # rows a page: a few pages for every filter


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pages") / "league"
    build(folder, GAMES, bots=40, sources=7)
    return folder


FILTERS = [
    GameFilter(),
    GameFilter(reason="timeout"),
    GameFilter(game="alak"),
    GameFilter(bot=3),
    GameFilter(bot=3, result="loss"),
    GameFilter(bot=3, fault=True),
    GameFilter(fault=True),
    GameFilter(result="draw"),
]


def _all_keys(db: sqlite3.Connection, chosen: GameFilter) -> list[tuple[int, int]]:
    """The filter's games, latest first, sorted here rather than by the index."""
    condition, args = chosen.query()
    rows = db.execute(
        f"SELECT g.finished_at, g.source, g.number FROM games g WHERE {condition}", args
    ).fetchall()
    return [(source, number) for _, source, number in sorted(rows, reverse=True)]


@pytest.mark.parametrize("chosen", FILTERS, ids=repr)
def test_walking_forward_and_back_gives_every_game_once(
    synthetic: Path, chosen: GameFilter
) -> None:
    index = open_index(synthetic, writer=False)
    try:
        ids = dict(index.db.execute("SELECT position, id FROM sources").fetchall())
        whole = _all_keys(index.db, chosen)
        size = min(SIZE, len(whole) // 4)  # several pages, of a short list too
        pages, at = [], At()
        while True:
            page = games(index, chosen, at, size=size)
            assert page.total == len(whole)
            pages.append([(ids[r.source], r.number) for r in page.rows])
            if page.older is None:
                break
            assert page.older.number == len(pages) + 1
            at = page.older
        assert [key for rows in pages for key in rows] == whole  # each once, in order
        assert all(len(rows) == size for rows in pages[:-1])
        # Back from the last page, each page is the one seen on the way forward.
        back = [pages[-1]]
        newer = page.newer
        while newer is not None:
            page = games(index, chosen, newer, size=size)
            back.append([(ids[r.source], r.number) for r in page.rows])
            newer = page.newer
        assert back[::-1] == pages
        # From the oldest end: the last games, and back to the first.
        oldest = games(index, chosen, At(oldest=True), size=size)
        assert [(ids[r.source], r.number) for r in oldest.rows] == whole[-size:]
        assert oldest.older is None and oldest.newer is not None
    finally:
        index.close()


@pytest.mark.parametrize("chosen", FILTERS, ids=repr)
def test_every_page_is_found_in_an_index(synthetic: Path, chosen: GameFilter) -> None:
    """The page's query starts from an index in the list's order, whatever page it is."""
    index = open_index(synthetic, writer=False)
    statements: list[str] = []
    try:
        middle = games(index, chosen, At(), size=10).older
        assert middle is not None
        index.db.set_trace_callback(statements.append)
        for at in (At(), middle, At(before=middle.after), At(oldest=True)):
            games(index, chosen, at, size=10)
        index.db.set_trace_callback(None)
        # The pages and the probes past their ends (a count reads what it counts, up to a limit).
        pages = [s for s in statements if "LIMIT" in s and "COUNT(" not in s]
        assert len(pages) >= 4
        for statement in pages:
            assert "OFFSET" not in statement.upper()
            plan = " | ".join(row[3] for row in index.db.execute("EXPLAIN QUERY PLAN " + statement))
            assert "_page" in plan, plan  # one of the keyed indexes leads
    finally:
        index.close()


def test_a_long_filtered_list_is_counted_only_so_far(
    synthetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A count reads every row it counts: past COUNT_LIMIT, a filtered list says "more than"."""
    from referee.league import queries
    from referee.web.league_pages import game_pager

    monkeypatch.setattr(queries, "COUNT_LIMIT", 100)
    monkeypatch.setattr("referee.web.league_pages.COUNT_LIMIT", 100)
    index = open_index(synthetic, writer=False)
    try:
        assert queries.count_games(index, GameFilter()) == GAMES  # the whole list: exact
        draws = _all_keys(index.db, GameFilter(result="draw"))
        assert len(draws) > 101
        page = games(index, GameFilter(result="draw"), At())
        assert page.total == 101
        assert "more than 100:" in game_pager(page, lambda at: "x")
        assert "oldest" in game_pager(page, lambda at: "x")  # on a server, by key
        assert "oldest »</span>" in game_pager(page, lambda at: "x", numbered=True)
    finally:
        index.close()


@pytest.mark.parametrize(
    "chosen", [GameFilter(bot=3, fault=True), GameFilter(version=5, fault=True)]
)
def test_losses_by_a_fault_are_read_from_the_faults_alone(
    synthetic: Path, chosen: GameFilter
) -> None:
    """A bot's losses by a fault are a few of its games: their list, its count, the probes past
    a page and the bot's tally of faults read those games from indexes of faults alone, never
    each of the bot's games to check whose fault ended it (at a million games: 45 ms)."""
    from referee.league.queries import count_games, faults

    index = open_index(synthetic, writer=False)
    statements: list[str] = []
    try:
        middle = games(index, chosen, At(), size=5).older
        assert middle is not None
        index.db.set_trace_callback(statements.append)
        for at in (At(), middle, At(before=middle.after), At(oldest=True)):
            games(index, chosen, at, size=5)
        count_games(index, chosen)
        if chosen.bot is not None:
            faults(index, chosen.bot)
        index.db.set_trace_callback(None)
        if chosen.bot is not None:  # the tally: each reason of the bot's losses by a fault
            rows = index.db.execute(
                "SELECT g.reason, g.fault, b.bot, o.bot FROM games g"
                " JOIN versions b ON b.id = g.blue JOIN versions o ON o.id = g.orange"
            ).fetchall()
            tally: dict[str, int] = {}
            for reason, fault, blue, orange in rows:
                if (fault, chosen.bot) in (("blue", blue), ("orange", orange)):
                    tally[reason] = tally.get(reason, 0) + 1
            assert dict(faults(index, chosen.bot)) == tally and tally
        reading = [s for s in statements if "FROM games" in s]
        assert reading
        for statement in reading:
            plan = [row[3] for row in index.db.execute("EXPLAIN QUERY PLAN " + statement)]
            # "SCAN g" alone is the scan of a subquery named g, where there is one.
            subquery = any(step in ("MATERIALIZE g", "CO-ROUTINE g") for step in plan)
            games_read = [
                step
                for step in plan
                if step.startswith(("SEARCH g ", "SCAN g ")) or (step == "SCAN g" and not subquery)
            ]
            assert games_read, plan
            for step in games_read:
                assert "_fault_page" in step, plan
                if "SELECT *" not in statement:  # counts and probes: no game's row read
                    assert "COVERING INDEX" in step, plan
    finally:
        index.close()


def _plans(db: sqlite3.Connection, statements: list[str]) -> list[str]:
    return [
        row[3] for statement in statements for row in db.execute("EXPLAIN QUERY PLAN " + statement)
    ]


def test_the_reasons_and_a_bots_opponents_read_no_more_than_they_show(synthetic: Path) -> None:
    """A bot's page and a list of games name every reason (a handful) and the bot's results by
    opponent: the reasons found by one step of an index each, not by reading every game (at a
    million games: 460 ms), and the opponents from an index that holds them, not each of the
    bot's games' rows (120 ms)."""
    from referee.league.queries import opponents, reasons

    index = open_index(synthetic, writer=False)
    statements: list[str] = []
    try:
        everything = sorted({r for (r,) in index.db.execute("SELECT reason FROM games")})
        index.db.set_trace_callback(statements.append)
        assert reasons(index) == everything
        index.db.set_trace_callback(None)
        assert not [s for s in _plans(index.db, statements) if s.startswith("SCAN games")]
        statements.clear()
        index.db.set_trace_callback(statements.append)
        found = {
            row.name: (row.games, row.wins, row.draws, row.losses) for row in opponents(index, 3)
        }
        index.db.set_trace_callback(None)
        for step in _plans(index.db, statements):
            if step.startswith(("SEARCH games", "SCAN games")):
                assert "COVERING INDEX" in step, step
        tally: dict[str, list[int]] = {}
        rows = index.db.execute(
            "SELECT bb.name, ob.name, g.result FROM games g"
            " JOIN versions b ON b.id = g.blue JOIN bots bb ON bb.id = b.bot"
            " JOIN versions o ON o.id = g.orange JOIN bots ob ON ob.id = o.bot"
        ).fetchall()
        (me,) = index.db.execute("SELECT name FROM bots WHERE id = 3").fetchone()
        for blue, orange, result in rows:
            for mine, other, side in ((blue, orange, "blue"), (orange, blue, "orange")):
                if mine == me:
                    seen = tally.setdefault(other, [0, 0, 0, 0])
                    seen[0] += 1
                    seen[1 if result == side else 2 if result == "draw" else 3] += 1
        assert found == {name: tuple(counts) for name, counts in tally.items()}
    finally:
        index.close()


def test_an_index_made_before_the_indexes_of_faults_is_read_without_them(tmp_path: Path) -> None:
    from referee.league.queries import count_games, faults

    folder = tmp_path / "league"
    build(folder, 600, bots=8, sources=2)
    chosen = GameFilter(bot=3, fault=True)
    index = open_index(folder, writer=False)
    try:
        before = ([r.number for r in games(index, chosen, At()).rows], faults(index, 3))
    finally:
        index.close()
    with sqlite3.connect(folder / "league.sqlite") as db:
        for name in ("games_blue_fault_page", "games_orange_fault_page"):
            db.execute(f"DROP INDEX {name}")
    index = open_index(folder, writer=False)  # a reader adds no index
    try:
        page = games(index, chosen, At())
        assert ([r.number for r in page.rows], faults(index, 3)) == before
        assert count_games(index, chosen) == page.total > 0
    finally:
        index.close()


def test_a_bots_games_against_itself_are_counted_once(tmp_path: Path) -> None:
    """A bot's list is counted side by side: a game of one of its versions against another,
    on both sides, counts once."""
    from referee.league.queries import count_games

    folder = tmp_path / "league"
    build(folder, 400, bots=8, sources=2)
    with sqlite3.connect(folder / "league.sqlite") as db:
        db.execute("INSERT INTO versions VALUES (99, 3, 'v2', 'python3 bot.py', '2026-01-02')")
        (kind,) = db.execute("SELECT game FROM bots WHERE id = 3").fetchone()
        db.executemany(
            "INSERT INTO games VALUES (1, ?, ?, ?, ?, 'draw', 'no moves', NULL, 1, 9, 'r', ?, ?,"
            " NULL, ?, 'seen')",
            [(1000 + k, kind, *((3, 99) if k % 2 else (99, 3)), "2026-03-01T00:00:0" + str(k),
              "2026-03-01T00:00:0" + str(k), f"self{k}") for k in range(3)],
        )  # fmt: skip
    index = open_index(folder, writer=False)
    try:
        for chosen in (GameFilter(bot=3), GameFilter(bot=3, result="draw"), GameFilter(version=99)):
            whole = _all_keys(index.db, chosen)
            assert count_games(index, chosen) == len(whole) > 0, chosen
            assert games(index, chosen, At(), size=500).total == len(whole)
    finally:
        index.close()

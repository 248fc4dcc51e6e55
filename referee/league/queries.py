"""What the dashboard and `league show` read from a league's index: the leaderboard, a bot's
page, lists of games with filters, the crosstable. Each query reads one page of rows (the
index's SQL does the filtering, sorting and paging), so a page costs the same with a hundred
thousand games as with a hundred.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from referee.league.index import HistoryRow, KindRow, LeagueIndex, has_pairs, missing_columns
from referee.stats.elo import signed_elo

PAGE_SIZE = 50
COUNT_LIMIT = 10_000  # a filtered list of games says "more than" past this
MAX_CROSSTABLE = 64

# Every version with its bot, its number among the bot's versions (by first game) and how many
# the bot has.
_VERSIONS = """
WITH v AS (
    SELECT versions.id AS id, bots.id AS bot, bots.name AS name, bots.game AS game,
           versions.content_hash AS content_hash, versions.command AS command,
           versions.first_seen AS first_seen,
           ROW_NUMBER() OVER (PARTITION BY versions.bot ORDER BY versions.first_seen,
                              versions.id) AS number,
           COUNT(*) OVER (PARTITION BY versions.bot) AS versions
    FROM versions JOIN bots ON bots.id = versions.bot
)
"""


@dataclass(frozen=True, slots=True)
class VersionRow:
    version: int
    bot: int
    name: str
    game: str
    number: int  # among the bot's versions, by first game
    versions: int  # how many the bot has
    content_hash: str
    command: str
    first_seen: str
    rank: int | None
    rating: float | None
    low: float | None
    high: float | None
    games: int
    points: float
    los_next: float | None
    flags: str  # the rating model's, spaced: unbeaten, winless, unbounded, provisional
    # The group of versions rated together (0 the first): versions of one game that never met
    # another group's, even through others, are rated apart and cannot be compared with them.
    component: int = 0

    @property
    def label(self) -> str:
        return self.name if self.versions == 1 else f"{self.name} v{self.number}"

    @property
    def interval(self) -> str:
        """The interval in words: `low .. high`, or the one bound an unbeaten (`>= low`) or a
        winless (`<= high`) version has; empty without one."""
        if self.low is not None and self.high is not None:
            return f"{signed_elo(self.low, 0)} .. {signed_elo(self.high, 0)}"
        if self.low is not None:
            return f">= {signed_elo(self.low, 0)}"
        if self.high is not None:
            return f"<= {signed_elo(self.high, 0)}"
        return ""


_VERSION_COLUMNS = (
    "v.id, v.bot, v.name, v.game, v.number, v.versions, v.content_hash, v.command, v.first_seen,"
    " r.rank, r.rating, r.low, r.high, COALESCE(r.games, 0), COALESCE(r.points, 0), r.los_next,"
    " COALESCE(r.flags, ''), COALESCE(r.component, 0)"
)


@dataclass(frozen=True)
class Page:
    rows: list[Any]
    total: int
    page: int  # from 1
    size: int = PAGE_SIZE

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))


def left_out(index: LeagueIndex) -> list[str]:
    """What the league does not rate, in a few words for a page's notes: games refused (their
    records do not hold) and games counted once (copies); nothing when there are none."""
    counts = dict(index.db.execute("SELECT kind, COUNT(*) FROM refused GROUP BY kind").fetchall())
    notes = []
    if counts.get("refused"):
        n = counts["refused"]
        notes.append(f"{n} {'game' if n == 1 else 'games'} refused, not rated (see `league show`)")
    if counts.get("copy"):
        n = counts["copy"]
        notes.append(f"{n} {'game' if n == 1 else 'games'} found again in another folder")
    return notes


def games_played(index: LeagueIndex) -> list[str]:
    """The games (Alak, Lielow...) of the league."""
    return [r[0] for r in index.db.execute("SELECT DISTINCT game FROM bots ORDER BY game")]


def leaderboard(
    index: LeagueIndex,
    *,
    game: str | None = None,
    search: str | None = None,
    all_versions: bool = False,
    page: int = 1,
    size: int = PAGE_SIZE,
    per_component: int | None = None,
) -> Page:
    """Rated versions, best first within each game and component (ranked rows first); by
    default only each bot's latest. `per_component`: only the first N rows of each game's
    component (its best ranked, then unranked if it has fewer ranked)."""
    where, args = ["1 = 1"], []
    if game:
        where.append("v.game = ?")
        args.append(game)
    if search:
        where.append("v.name LIKE ? ESCAPE '\\'")
        args.append(f"%{_like(search)}%")
    if not all_versions:
        where.append("v.number = v.versions")
    condition = " AND ".join(where)
    body = f" FROM v JOIN ratings r ON r.version = v.id WHERE {condition}"
    (total,) = index.db.execute(_VERSIONS + "SELECT COUNT(*)" + body, args).fetchone()
    # Ranked rows first, then those the model does not rank (provisional, unbounded).
    best = "r.rank IS NULL, r.rank, r.rating DESC"
    if per_component is not None:
        # Each row's place in its game's component: columns 4 and 18 are the game and the
        # component, 19 the place.
        rows = index.db.execute(
            _VERSIONS
            + f"SELECT * FROM (SELECT {_VERSION_COLUMNS}, ROW_NUMBER() OVER (PARTITION BY"
            + f" v.game, r.component ORDER BY {best}) AS place"
            + body
            + ") WHERE place <= ? ORDER BY 4, 18, 19 LIMIT ? OFFSET ?",
            [*args, per_component, size, (page - 1) * size],
        ).fetchall()
        return Page([VersionRow(*row[:-1]) for row in rows], total, page, size)
    rows = index.db.execute(
        _VERSIONS
        + f"SELECT {_VERSION_COLUMNS}"
        + body
        + f" ORDER BY v.game, r.component, {best} LIMIT ? OFFSET ?",
        [*args, size, (page - 1) * size],
    ).fetchall()
    return Page([VersionRow(*row) for row in rows], total, page, size)


def ranks_skip(rows: list[VersionRow]) -> bool:
    """Whether the ranks of these rows skip a number in some game's component: the model
    ranks every version, so a view of each bot's latest hides the older versions' ranks."""
    ranks: dict[tuple[str, int], set[int]] = {}
    for row in rows:
        if row.rank is not None:
            ranks.setdefault((row.game, row.component), set()).add(row.rank)
    return any(found != set(range(1, max(found) + 1)) for found in ranks.values())


def components(index: LeagueIndex) -> dict[str, int]:
    """Per game, how many components (groups of versions that never met another's) it has."""
    found = index.db.execute(
        "SELECT bots.game, MAX(ratings.component) + 1 FROM ratings"
        " JOIN versions ON versions.id = ratings.version JOIN bots ON bots.id = versions.bot"
        " GROUP BY bots.game"
    )
    return {game: int(count) for game, count in found.fetchall()}


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def bot_versions(index: LeagueIndex, bot: int) -> list[VersionRow]:
    rows = index.db.execute(
        _VERSIONS + f"SELECT {_VERSION_COLUMNS} FROM v LEFT JOIN ratings r ON r.version = v.id"
        " WHERE v.bot = ? ORDER BY v.number",
        (bot,),
    ).fetchall()
    return [VersionRow(*row) for row in rows]


def version_names(index: LeagueIndex) -> dict[str, list[int]]:
    """What each version is called where the league shows it (`cat`, `cat v2`: `label`), and a
    bot's bare name for its latest version; a name two games' bots share maps to both."""
    rows = index.db.execute(
        _VERSIONS + "SELECT v.id, v.name, v.number, v.versions FROM v ORDER BY v.game, v.id"
    ).fetchall()
    names: dict[str, list[int]] = {}
    for version, name, number, versions in rows:
        if number == versions:
            names.setdefault(name, []).append(version)
        if versions > 1:
            names.setdefault(f"{name} v{number}", []).append(version)
    return names


def find_bot(index: LeagueIndex, game: str, name: str) -> int | None:
    found = index.db.execute("SELECT id FROM bots WHERE game = ? AND name = ?", (game, name))
    row = found.fetchone()
    return None if row is None else int(row[0])


def history(index: LeagueIndex, bot: int) -> list[HistoryRow]:
    """The rating history of a bot's versions, by step."""
    # An index made before the history kept intervals has no such columns until a writer
    # opens it: read as none.
    lacking = missing_columns(index.db, "history")
    bounds = ", ".join("NULL" if name in lacking else name for name in ("low", "high"))
    rows = index.db.execute(
        f"SELECT history.version, step, period, rating, games, {bounds} FROM history"
        " JOIN versions ON versions.id = history.version WHERE versions.bot = ?"
        " ORDER BY step, history.version",
        (bot,),
    ).fetchall()
    # A step after a source is named as league.toml names it, relative to the league: the
    # index keeps the absolute path, which is the server's business, not the page's.
    league = index.path.parent.resolve()
    sources = {path for (path,) in index.db.execute("SELECT path FROM sources")}
    return [
        HistoryRow(version, step, os.path.relpath(period, league) if period in sources else period,
                   rating, games, low, high)
        for version, step, period, rating, games, low, high in rows
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class OpponentRow:
    bot: int
    name: str
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def opponents(index: LeagueIndex, bot: int) -> list[OpponentRow]:
    """The bot's results (all versions) against each other bot, most games first."""
    rows = index.db.execute(
        """
        WITH mine AS (SELECT id FROM versions WHERE bot = ?),
        seen AS (
            SELECT orange AS other, CASE result WHEN 'blue' THEN 1 WHEN 'draw' THEN 0 ELSE -1 END
                   AS outcome FROM games WHERE blue IN mine
            UNION ALL
            SELECT blue, CASE result WHEN 'orange' THEN 1 WHEN 'draw' THEN 0 ELSE -1 END
                   FROM games WHERE orange IN mine
        )
        SELECT bots.id, bots.name, COUNT(*), SUM(outcome = 1), SUM(outcome = 0),
               SUM(outcome = -1)
        FROM seen JOIN versions ON versions.id = seen.other JOIN bots ON bots.id = versions.bot
        GROUP BY bots.id ORDER BY COUNT(*) DESC, bots.name
        """,
        (bot,),
    ).fetchall()
    return [OpponentRow(*row) for row in rows]


def faults(index: LeagueIndex, bot: int) -> list[tuple[str, int]]:
    """How often each fault of the bot (any version) ended a game: counted side by side in the
    indexes of faults (a game has one fault, so the two sides never count a game twice)."""
    chosen = GameFilter(bot=bot, fault=True)
    blue, orange = _table(index, chosen, "blue"), _table(index, chosen, "orange")
    return index.db.execute(
        f"""
        WITH mine AS (SELECT id FROM versions WHERE bot = ?),
        faulted AS (
            SELECT reason FROM {blue} WHERE g.blue IN mine AND g.fault = 'blue'
            UNION ALL
            SELECT reason FROM {orange} WHERE g.orange IN mine AND g.fault = 'orange'
        )
        SELECT reason, COUNT(*) FROM faulted GROUP BY reason ORDER BY COUNT(*) DESC, reason
        """,
        (bot,),
    ).fetchall()


@dataclass(frozen=True, slots=True)
class GameFilter:
    bot: int | None = None  # games of this bot (any version)
    version: int | None = None  # of this version
    game: str | None = None
    result: str | None = None  # with a bot: win, draw, loss; without: blue, orange, draw
    reason: str | None = None
    fault: bool = False  # only games the bot (or anyone) lost by a fault

    @property
    def sided(self) -> bool:
        """Whether the games are a bot's, found by the side it played (`query(side)`)."""
        return self.version is not None or self.bot is not None

    def query(self, side: str | None = None) -> tuple[str, list[Any]]:
        """The SQL condition on `games g` and its arguments; with `side` (blue, orange), only
        the games the bot played on that side (both: on both sides)."""
        where: list[str] = []
        args: list[Any] = []
        if self.version is not None:
            mine, args = "(?)", [self.version]
        elif self.bot is not None:
            mine, args = "(SELECT id FROM versions WHERE bot = ?)", [self.bot]
        else:
            mine = ""
        if mine and side in ("blue", "orange"):
            where.append(f"g.{side} IN {mine}")
        elif mine and side == "both":  # one of its versions against another
            where.append(f"g.blue IN {mine} AND g.orange IN {mine}")
            args = args * 2
        elif mine:
            where.append(f"(g.blue IN {mine} OR g.orange IN {mine})")
            args = args * 2
        if self.game:
            where.append("g.game = ?")
            args.append(self.game)
        if self.reason:
            where.append("g.reason = ?")
            args.append(self.reason)
        if self.result and mine:
            won = f"((g.result = 'blue' AND g.blue IN {mine}) OR"
            won += f" (g.result = 'orange' AND g.orange IN {mine}))"
            ids = [self.version if self.version is not None else self.bot] * 2
            if self.result == "win":
                where.append(won)
                args += ids
            elif self.result == "loss":
                where.append(f"g.result != 'draw' AND NOT {won}")
                args += ids
            elif self.result == "draw":
                where.append("g.result = 'draw'")
        elif self.result in ("blue", "orange", "draw"):
            where.append("g.result = ?")
            args.append(self.result)
        if self.fault:
            if mine and side in ("blue", "orange"):
                # The bot's side lost by a fault: what the side's index of faults holds.
                where.append(f"g.fault = '{side}'")
            elif mine:
                where.append(
                    f"((g.fault = 'blue' AND g.blue IN {mine}) OR"
                    f" (g.fault = 'orange' AND g.orange IN {mine}))"
                )
                args += [self.version if self.version is not None else self.bot] * 2
            else:
                where.append("g.fault IS NOT NULL")
        return " AND ".join(where) or "1 = 1", args


@dataclass(frozen=True, slots=True)
class GameListRow:
    source: int  # the source's position in the config
    number: int
    game: str
    blue: str  # labels
    orange: str
    blue_bot: int
    orange_bot: int
    result: str
    reason: str
    fault: str | None
    plies: int
    record: str
    finished_at: str
    source_name: str


@dataclass(frozen=True, slots=True)
class At:
    """Where a page of games is. `after`/`before` are keys (`page_key`) of games: the page
    holds the games just older, or just newer, than that one; `oldest` the oldest page; none
    of them the newest. `number` counts pages from the newest where that is known (an export
    walks them in order); a server's pages link by key alone."""

    number: int = 1
    after: str | None = None
    before: str | None = None
    oldest: bool = False


@dataclass(frozen=True)
class GamePage:
    rows: list[GameListRow]
    total: int  # games the filter lets through (COUNT_LIMIT + 1: more than COUNT_LIMIT)
    at: At
    newer: At | None  # the page before, if there are newer games
    older: At | None  # the page after, if there are older games
    size: int = PAGE_SIZE

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))


# Every list of games is in the order of this key, latest first: unique, so that a page can
# start exactly where the one before it ended, and led by an index for each filter
# (index.py's _INDEXES).
_KEY = "(g.finished_at, g.source, g.number)"


def page_key(finished_at: str, source: int, number: int) -> str:
    """A game's place in the lists, as a link carries it."""
    return f"{finished_at}~{source}~{number}"


def parse_page_key(text: str) -> tuple[str, int, int]:
    """The parts of `page_key`; ValueError for anything else."""
    finished_at, source, number = text.rsplit("~", 2)
    if not (source.isdigit() and number.isdigit()) or len(finished_at) > 64:
        raise ValueError(f"not a game's key: {text!r}")
    return finished_at, int(source), int(number)


def _count_side(index: LeagueIndex, chosen: GameFilter, side: str) -> int:
    where, args = chosen.query(side)
    (found,) = index.db.execute(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {_table(index, chosen, side)} WHERE {where} LIMIT ?)",
        [*args, COUNT_LIMIT + 1],
    ).fetchone()
    return int(found)


def _table(index: LeagueIndex, chosen: GameFilter, side: str | None) -> str:
    """`games g`; a bot's games on one side in that side's index in the lists' order (of its
    losses by a fault: that side's index of faults), named: the planner would as soon walk
    another index led by the side (the one of its results by opponent) and sort all the bot's
    games, 180 ms at a million. An index made before that one, not yet opened by a writer, is
    read without it."""
    if chosen.sided and side in ("blue", "orange"):
        name = f"games_{side}_fault_page" if chosen.fault else f"games_{side}_page"
        if _has_index(index, name):
            return f"games g INDEXED BY {name}"
    return "games g"


def _has_index(index: LeagueIndex, name: str) -> bool:
    found = index.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)
    ).fetchone()
    return found is not None


def count_games(index: LeagueIndex, chosen: GameFilter) -> int:
    """How many games the filter lets through; a filtered list is counted up to COUNT_LIMIT + 1
    only: a count reads every row it counts (half a million of one game's: 200 ms), a page
    only its own rows."""
    condition, args = chosen.query()
    if condition == "1 = 1":  # the whole table, by its smallest index: 20 ms a million
        (total,) = index.db.execute("SELECT COUNT(*) FROM games").fetchone()
    elif chosen.sided and chosen.fault:
        # Side by side, each in its index of faults, which holds only those games: a game has
        # one fault, so no game is counted on both sides.
        total = 0
        for side in ("blue", "orange"):
            where, these = chosen.query(side)
            (found,) = index.db.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 FROM {_table(index, chosen, side)} WHERE {where}"
                " LIMIT ?)",
                [*these, COUNT_LIMIT + 1],
            ).fetchone()
            total += int(found)
        total = min(total, COUNT_LIMIT + 1)
    elif chosen.sided:
        # Side by side in each side's index (a bot's 6,700 games counted through its rows
        # took 30 ms), less the games it played on both sides, counted twice.
        counts = [_count_side(index, chosen, side) for side in ("blue", "orange", "both")]
        if max(counts) > COUNT_LIMIT:
            total = COUNT_LIMIT + 1
        else:
            total = min(counts[0] + counts[1] - counts[2], COUNT_LIMIT + 1)
    else:
        (total,) = index.db.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 FROM games g WHERE {condition} LIMIT ?)",
            [*args, COUNT_LIMIT + 1],
        ).fetchone()
    return int(total)


def games(index: LeagueIndex, chosen: GameFilter, at: At = At(), size: int = PAGE_SIZE) -> GamePage:
    """One page of the games that `chosen` lets through, the latest first, from `at`."""
    condition, args = chosen.query()
    total = count_games(index, chosen)
    bound: list[Any] = []
    step, way = "", "DESC"  # walking towards older games
    if at.after is not None:
        bound = list(parse_page_key(at.after))
        step = f" AND {_KEY} < (?, ?, ?)"
    elif at.before is not None:
        bound = list(parse_page_key(at.before))
        step, way = f" AND {_KEY} > (?, ?, ?)", "ASC"
    elif at.oldest:
        way = "ASC"
    order = f"ORDER BY g.finished_at {way}, g.source {way}, g.number {way}"
    # One row more than the page tells whether the walk goes on past it.
    if chosen.sided:
        # A bot's games: those it played blue and those it played orange, each taken in its
        # own index's order and merged (an OR of the two sorts every game of the bot first).
        parts, values = [], []
        for side in ("blue", "orange"):
            where, these = chosen.query(side)
            parts.append(
                f"SELECT * FROM (SELECT * FROM {_table(index, chosen, side)} WHERE {where}{step}"
                f" {order} LIMIT ?)"
            )
            values += [*these, *bound, size + 1]
        inner = f"SELECT * FROM ({' UNION '.join(parts)}) g {order} LIMIT ?"
        values.append(size + 1)
    else:
        inner = f"SELECT * FROM games g WHERE {condition}{step} {order} LIMIT ?"
        values = [*args, *bound, size + 1]
    found = index.db.execute(
        _VERSIONS
        + f"""
        SELECT s.position, g.number, g.game,
               b.name || CASE WHEN b.versions > 1 THEN ' v' || b.number ELSE '' END,
               o.name || CASE WHEN o.versions > 1 THEN ' v' || o.number ELSE '' END,
               b.bot, o.bot, g.result, g.reason, g.fault, g.plies, g.record, g.finished_at,
               s.name, g.source
        FROM ({inner}) g
        JOIN sources s ON s.id = g.source
        JOIN v b ON b.id = g.blue JOIN v o ON o.id = g.orange
        {order}
        """,
        values,
    ).fetchall()
    more, found = len(found) > size, found[:size]
    if way == "ASC":
        found.reverse()
    rows = [GameListRow(*row[:-1]) for row in found]
    keys = [page_key(row[12], row[-1], row[1]) for row in found]
    if not keys:
        return GamePage(rows, total, at, None, None, size)
    if way == "DESC":
        has_older, has_newer = more, _beyond(index, chosen, keys[0], ">")
    else:
        has_newer, has_older = more, _beyond(index, chosen, keys[-1], "<")
    number = at.number if not at.oldest else max(1, -(-total // size))
    newer = At(number - 1, before=keys[0]) if has_newer else None
    older = At(number + 1, after=keys[-1]) if has_older else None
    return GamePage(rows, total, At(number, at.after, at.before, at.oldest), newer, older, size)


def _beyond(index: LeagueIndex, chosen: GameFilter, key: str, way: str) -> bool:
    """Whether a game the filter lets through lies past `key` (`>`: newer, `<`: older): one
    step in the key's index (a bot's games: in each side's, as its page reads them)."""
    for side in ("blue", "orange") if chosen.sided else (None,):
        condition, args = chosen.query(side)
        table = _table(index, chosen, side)
        found = index.db.execute(
            f"SELECT 1 FROM {table} WHERE {condition} AND {_KEY} {way} (?, ?, ?) LIMIT 1",
            [*args, *parse_page_key(key)],
        ).fetchone()
        if found is not None:
            return True
    return False


def reasons(index: LeagueIndex) -> list[str]:
    """Every reason a game ended for, in order: found one after the other, each by one step in
    the reasons' index (DISTINCT read the whole index: 460 ms at a million games)."""
    rows = index.db.execute(
        """
        WITH RECURSIVE found(reason) AS (
            SELECT MIN(reason) FROM games
            UNION ALL
            SELECT (SELECT MIN(reason) FROM games WHERE reason > found.reason) FROM found
            WHERE found.reason IS NOT NULL
        )
        SELECT reason FROM found WHERE reason IS NOT NULL
        """
    )
    return [reason for (reason,) in rows]


@dataclass(frozen=True)
class Crosstable:
    players: list[VersionRow]
    # cells[i][j]: (points of i against j, games), None where they never met
    cells: list[list[tuple[float, int] | None]]


def crosstable(index: LeagueIndex, game: str, top: int = MAX_CROSSTABLE) -> Crosstable:
    """The `top` best rated versions of `game` (64 at most) and their results between them."""
    top = max(1, min(top, MAX_CROSSTABLE))
    players = leaderboard(index, game=game, all_versions=True, size=top).rows
    place = {p.version: k for k, p in enumerate(players)}
    cells: list[list[tuple[float, int] | None]] = [[None] * len(players) for _ in players]
    marks = ",".join("?" * len(place))
    if has_pairs(index.db):  # a row per two versions that met, in either colour
        query = (
            "SELECT first, second, first_wins + 0.5 * draws, second_wins + 0.5 * draws,"
            " first_wins + second_wins + draws FROM pairs"
            f" WHERE first IN ({marks}) AND second IN ({marks})"
        )
    else:  # an index made before the pairs, open for reading: every game among them
        query = (
            "SELECT blue, orange, SUM(result = 'blue') + 0.5 * SUM(result = 'draw'),"
            " SUM(result = 'orange') + 0.5 * SUM(result = 'draw'), COUNT(*) FROM games"
            f" WHERE blue IN ({marks}) AND orange IN ({marks}) GROUP BY blue, orange"
        )
    rows = index.db.execute(query, [*place, *place]).fetchall()
    for blue, orange, blue_points, orange_points, count in rows:
        i, j = place[blue], place[orange]
        for a, b, points in ((i, j, blue_points), (j, i, orange_points)):
            before = cells[a][b] or (0.0, 0)
            cells[a][b] = (before[0] + points, before[1] + count)
    return Crosstable(players, cells)


@dataclass(frozen=True, slots=True)
class SourceRow:
    position: int
    path: str
    kind: str
    name: str
    game: str
    games: int


def sources(index: LeagueIndex) -> list[SourceRow]:
    rows = index.db.execute(
        "SELECT position, path, kind, name, s.game, COUNT(g.number) FROM sources s"
        " LEFT JOIN games g ON g.source = s.id GROUP BY s.id ORDER BY position"
    ).fetchall()
    return [SourceRow(*row) for row in rows]


def kinds(index: LeagueIndex) -> list[KindRow]:
    """What the last fit found for each game."""
    rows = index.db.execute(
        "SELECT game, advantage, draw_elo, games FROM kinds ORDER BY game"
    ).fetchall()
    return [KindRow(*row) for row in rows]

"""The league's dashboard as HTML: the leaderboard, a bot's page, the games, the crosstable.

Pure functions from the league's query rows (`referee.league.queries`) to whole pages, rendered
on the server with the style inline and no script, so a page paints as soon as it arrives. The
same functions make the served pages and the exported files: a `Links` says where each link
goes (query strings on the server, file names in an export; an export has no search form).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import urlencode

from referee.league.index import HistoryRow
from referee.league.queries import (
    COUNT_LIMIT,
    At,
    Crosstable,
    GameFilter,
    GameListRow,
    GamePage,
    OpponentRow,
    Page,
    VersionRow,
)
from referee.stats.elo import signed_elo


@dataclass(frozen=True)
class Links:
    """Where the pages link to."""

    board: Callable[[str | None, str | None, bool, int], str]  # game, search, all, page
    bot: Callable[[int], str]
    bot_games: Callable[[int, GameFilter, At], str]  # bot, filter, page
    games: Callable[[GameFilter, At], str]
    crosstable: Callable[[str], str]
    replay: Callable[[GameListRow], str | None]
    searchable: bool  # a server: forms for search and filters


def server_links(prefix: str = "/league") -> Links:
    def query(path: str, **values: object) -> str:
        kept = {k: v for k, v in values.items() if v not in (None, "", False, 1)}
        return f"{prefix}{path}" + (f"?{urlencode(kept)}" if kept else "")

    def filter_values(f: GameFilter) -> dict[str, object]:
        return {"game": f.game, "result": f.result, "reason": f.reason, "fault": int(f.fault)}

    def at_values(at: At) -> dict[str, object]:  # a page of games is found by key, not number
        return {"after": at.after, "before": at.before, "oldest": "1" if at.oldest else None}

    return Links(
        board=lambda game, search, every, page: query(
            "/", game=game, q=search, versions="all" if every else None, page=page
        ),
        bot=lambda bot: f"{prefix}/bot/{bot}",
        bot_games=lambda bot, f, at: query(f"/bot/{bot}", **filter_values(f), **at_values(at)),
        games=lambda f, at: query("/games", **filter_values(f), **at_values(at)),
        crosstable=lambda game: query("/crosstable", game=game),
        replay=lambda row: f"/replay/{row.source}/{row.record}",
        searchable=True,
    )


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fcfcfc}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em}
nav a{margin-right:1em}table{border-collapse:collapse;margin:.4em 0}
td,th{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:left;white-space:nowrap}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:#777}.bar{position:relative;width:220px;height:12px;background:#f3f3f3}
.bar span{position:absolute;top:3px;height:6px;background:#7aa6d8}
.bar b{position:absolute;top:0;width:2px;height:12px;background:#1a4d8f}
.pages a,.pages b{margin-right:.5em}form{margin:.5em 0}input,select{margin-right:.5em}
.x td{text-align:center;min-width:2.2em;padding:1px 3px}.x th{font-weight:normal}
.win{color:#17692a}.loss{color:#a11}.fault{color:#a11}
"""


def document(title: str, body: str, links: Links) -> str:
    nav = (
        f'<nav><a href="{links.board(None, None, False, 1)}">leaderboard</a>'
        f'<a href="{links.games(GameFilter(), At())}">games</a></nav>'
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{escape(title)}</title><style>{STYLE}</style>'
        f"</head><body>{nav}<h1>{escape(title)}</h1>{body}</body></html>"
    )


def elo(value: float | None) -> str:
    return "" if value is None else signed_elo(value, 0)


def pager(page: Page, link: Callable[[int], str]) -> str:
    """Links to the first, nearby and last pages."""
    if page.pages <= 1:
        return f'<p class="muted">{page.total} in all</p>'
    shown = sorted(
        {1, page.pages, *range(max(1, page.page - 3), min(page.pages, page.page + 3) + 1)}
    )
    parts, last = [], 0
    for number in shown:
        if number > last + 1:
            parts.append("…")
        parts.append(
            f"<b>{number}</b>" if number == page.page else f'<a href="{link(number)}">{number}</a>'
        )
        last = number
    return f'<p class="pages">{page.total} in all; page {" ".join(parts)}</p>'


def game_pager(page: GamePage, link: Callable[[At], str], numbered: bool = False) -> str:
    """Links to the newest, newer, older and oldest pages of a list of games: each found by
    the key of the game it starts after, so any page costs as little as the first. Files
    (`numbered`) name the oldest page by its number, known only where the count is exact."""
    counted = f"more than {COUNT_LIMIT:,}" if page.total > COUNT_LIMIT else f"{page.total} in all"
    if page.newer is None and page.older is None:
        return f'<p class="muted">{counted}</p>'
    oldest = page.older is not None and not (numbered and page.total > COUNT_LIMIT)
    steps = [
        ("« newest", At() if page.newer else None),
        ("‹ newer", page.newer),
        ("older ›", page.older),
        ("oldest »", At(page.pages, oldest=True) if oldest else None),
    ]
    parts = [
        f'<a href="{escape(link(at))}">{text}</a>' if at else f'<span class="muted">{text}</span>'
        for text, at in steps
    ]
    return f'<p class="pages">{counted}: {" ".join(parts)}</p>'


def interval_bar(row: VersionRow, low: float, high: float) -> str:
    """The rating's interval as a bar on a scale from `low` to `high` (the page's extremes)."""
    if row.rating is None:
        return ""
    span = max(high - low, 1.0)

    def at(value: float) -> float:
        return max(0.0, min(100.0, (value - low) / span * 100))

    left = at(row.low if row.low is not None else row.rating)
    right = at(row.high if row.high is not None else row.rating)
    return (
        f'<div class="bar" title="{elo(row.low)} .. {elo(row.high)}">'
        f'<span style="left:{left:.1f}%;width:{max(right - left, 0.5):.1f}%"></span>'
        f'<b style="left:{at(row.rating):.1f}%"></b></div>'
    )


def leaderboard_page(
    title: str,
    page: Page,
    games: Sequence[str],
    chosen: tuple[str | None, str | None, bool],
    notes: Sequence[str],
    links: Links,
    split: Mapping[str, int] | None = None,
) -> str:
    """`split`: per game, how many components its versions form (`queries.components`)."""
    game, search, every = chosen
    rows: list[VersionRow] = page.rows
    split = split or {}
    ends = [v for r in rows for v in (r.low, r.high, r.rating) if v is not None]
    low, high = (min(ends), max(ends)) if ends else (0.0, 1.0)
    apart = {g: n for g, n in split.items() if n > 1 and (game is None or g == game)}
    notes = [*notes] + [
        f"{g}: {n} components of versions that never met, each rated and ranked on its own "
        "(ratings of two components are not comparable)"
        for g, n in apart.items()
    ]
    body = [f'<p class="muted">{" · ".join(escape(n) for n in notes)}</p>']
    if links.searchable:
        body.append(_board_form(games, game, search, every))
    else:
        other = links.board(None, None, not every, 1)
        body.append(
            f'<p><a href="{other}">{"latest versions" if every else "every version"}</a></p>'
        )
    body.append(
        "<p>crosstables: "
        + " ".join(f'<a href="{links.crosstable(g)}">{escape(g)}</a>' for g in games)
        + "</p>"
    )
    head = "<tr><th>#</th><th>bot</th><th>game</th><th>Elo</th><th>95% interval</th><th></th>"
    head += "<th>games</th><th>score</th><th>LOS</th></tr>"
    lines = [head]
    part: tuple[str, int] | None = None
    for r in rows:
        score = f"{r.points / r.games:.0%}" if r.games else ""
        los = "" if r.los_next is None else f"{r.los_next:.1%}"
        if r.game in apart and part != (r.game, r.component):
            # Each component under its own heading, best first within it, ranked from 1.
            lines.append(
                f'<tr class="component"><th colspan="9">{escape(r.game)}, component '
                f"{r.component + 1} of {apart[r.game]}: never met the other components' "
                "versions; its ratings and ranks compare only within it</th></tr>"
            )
        part = (r.game, r.component)
        lines.append(
            f'<tr><td class="n">{r.rank or ""}</td><td><a href="{links.bot(r.bot)}">'
            f"{escape(r.label)}</a> {escape(r.flags)}</td><td>{escape(r.game)}</td>"
            f"<td class=n>{elo(r.rating)}</td><td class=n>{escape(r.interval)}</td>"
            f"<td>{interval_bar(r, low, high)}</td>"
            f"<td class=n>{r.games}</td><td class=n>{score}</td><td class=n>{los}</td></tr>"
        )
    body.append(f"<table>{''.join(lines)}</table>")
    body.append(pager(page, lambda n: links.board(game, search, every, n)))
    return document(title, "".join(body), links)


def _board_form(games: Sequence[str], game: str | None, search: str | None, every: bool) -> str:
    options = "".join(
        f'<option value="{escape(g)}"{" selected" if g == game else ""}>{escape(g)}</option>'
        for g in games
    )
    checked = " checked" if every else ""
    return (
        f'<form method="get"><input name="q" placeholder="bot name" value="{escape(search or "")}">'
        f'<select name="game"><option value="">every game</option>{options}</select>'
        f'<label><input type="checkbox" name="versions" value="all"{checked}>every version'
        "</label><button>show</button></form>"
    )


def bot_page(
    versions: Sequence[VersionRow],
    history: Sequence[HistoryRow],
    opponents: Sequence[OpponentRow],
    faults: Sequence[tuple[str, int]],
    games: GamePage,
    chosen: GameFilter,
    reasons: Sequence[str],
    links: Links,
) -> str:
    first = versions[0]
    body = [f'<p class="muted">{escape(first.game)}</p><h2>versions</h2>']
    rated_in = {v.component for v in versions if v.rating is not None}
    if len(rated_in) > 1:
        body.append(
            f'<p class="muted">these versions are rated in {len(rated_in)} components that never '
            "met (docs/ratings.md): compare ratings and ranks only between versions of one "
            "component</p>"
        )
    body.append(_versions(versions, len(rated_in) > 1))
    if history:
        body += ["<h2>rating over time</h2>", history_chart(versions, history)]
    body += ["<h2>results by opponent</h2>", _opponents(opponents, links)]
    body.append("<h2>faults</h2>")
    body.append(
        "<p>"
        + (", ".join(f"{n} × {escape(reason)}" for reason, n in faults) or "none")
        + (f' · <a href="{links.bot_games(first.bot, GameFilter(fault=True), At())}">games lost'
           " by a fault</a>" if faults else "")
        + "</p>"
    )  # fmt: skip
    body.append("<h2>games</h2>")
    if links.searchable:
        body.append(_games_form(chosen, reasons, ("win", "draw", "loss"), with_game=False))
    body.append(games_table(games.rows, links))
    body.append(
        game_pager(games, lambda at: links.bot_games(first.bot, chosen, at), not links.searchable)
    )
    return document(first.name, "".join(body), links)


def _versions(versions: Sequence[VersionRow], apart: bool) -> str:
    lines = [
        "<tr><th>version</th><th>content hash</th><th>first game</th><th>Elo</th>"
        "<th>95% interval</th><th>rank</th><th>games</th><th>score</th>"
        # A version is its files' hash; the command is one game's, with that game's seed.
        '<th title="as one of its games ran it: a {seed} in the config differs from game to '
        "game\">command (one game's)</th>" + ("<th>rated in</th>" if apart else "") + "</tr>"
    ]
    for v in versions:
        score = f"{v.points / v.games:.0%}" if v.games else ""
        lines.append(
            f"<tr><td>v{v.number}</td><td><code>{escape(v.content_hash[:12] or '(none)')}</code>"
            f"</td><td>{escape(v.first_seen[:16])}</td><td class=n>{elo(v.rating)}</td>"
            f"<td class=n>{escape(v.interval)} {escape(v.flags)}</td>"
            f"<td class=n>{v.rank or ''}</td><td class=n>{v.games}"
            f"</td><td class=n>{score}</td><td><code>{escape(v.command[:80])}</code></td>"
            + (f"<td>component {v.component + 1}</td>" if apart else "")
            + "</tr>"
        )
    return f"<table>{''.join(lines)}</table>"


def _opponents(opponents: Sequence[OpponentRow], links: Links) -> str:
    lines = ["<tr><th>opponent</th><th>games</th><th>W</th><th>D</th><th>L</th><th>score</th></tr>"]
    for o in opponents:
        lines.append(
            f'<tr><td><a href="{links.bot(o.bot)}">{escape(o.name)}</a></td><td class=n>{o.games}'
            f"</td><td class=n>{o.wins}</td><td class=n>{o.draws}</td><td class=n>{o.losses}</td>"
            f"<td class=n>{o.score:.0%}</td></tr>"
        )
    return f"<table>{''.join(lines)}</table>"


def _ticks(low: float, high: float) -> list[float]:
    """Round values between low and high for an axis, 3 to 7 of them."""
    span = max(high - low, 1.0)
    step = next(
        (k * 10**e for e in range(0, 5) for k in (1, 2, 5) if span / (k * 10**e) <= 6), 10**5
    )
    first = math.ceil(low / step) * step
    return [first + n * step for n in range(int((high - first) // step) + 1)]


def _x_title(periods: Sequence[str]) -> str:
    if all(re.fullmatch(r"\d{4}-W\d{2}", p) for p in periods):
        return "week"
    if all(re.fullmatch(r"\d{4}-\d{2}", p) for p in periods):
        return "month"
    return "after each source (as league.toml names it)"


def _bands(
    mine: Sequence[HistoryRow],
    x: Callable[[int], float],
    y: Callable[[float], float],
    colour: str,
    name: str,
) -> list[str]:
    """A version's interval per step as polygons: its highs forwards, then its lows back, one
    per run of consecutive steps with both bounds (a one-sided step breaks the run)."""
    runs: list[list[tuple[HistoryRow, float, float]]] = [[]]
    for h in mine:
        if h.low is None or h.high is None:
            runs.append([])
        else:
            runs[-1].append((h, h.low, h.high))
    out = []
    for run in (r for r in runs if r):
        what = "; ".join(f"{h.period}: {elo(lo)} to {elo(hi)}" for h, lo, hi in run)
        widen = 3.0 if len(run) == 1 else 0.0  # one step: a narrow bar, not a line
        xs = [x(h.step) for h, _, _ in run]
        if widen:
            xs = [xs[0] - widen, xs[0] + widen]
            run = run * 2
        upper = [(px, y(high)) for px, (_, _, high) in zip(xs, run, strict=True)]
        lower = [(px, y(low)) for px, (_, low, _) in zip(xs, run, strict=True)]
        outline = " ".join(f"{px:.1f},{py:.1f}" for px, py in [*upper, *reversed(lower)])
        out.append(
            f'<polygon class="band" points="{outline}" fill="{colour}" fill-opacity="0.13">'
            f"<title>{escape(name)}: {escape(what)}</title></polygon>"
        )
    return out


def history_chart(versions: Sequence[VersionRow], history: Sequence[HistoryRow]) -> str:
    """Each version's rating after each step, as lines in an SVG with labelled axes; behind
    each line, its interval at each step (from the games up to it) as a band, over each run
    of steps that have both bounds (an index rated before the history kept intervals has
    none: no band until it is rated again). The scale is the ratings' and today's intervals':
    a first step's wide interval is cut at the chart's edge, its title giving the figures."""
    steps = sorted({h.step for h in history})
    periods = {h.step: h.period for h in history}
    values = [h.rating for h in history]
    values += [v for row in versions for v in (row.low, row.high) if v is not None]
    low, high = min(values) - 20, max(values) + 20
    width, height, left, right, top, bottom = 680, 260, 64, 40, 12, 64

    def x(step: int) -> float:
        return left + (steps.index(step) / max(len(steps) - 1, 1)) * (width - left - right)

    def y(value: float) -> float:
        return top + (high - min(max(value, low), high)) / (high - low) * (height - top - bottom)

    colours = ["#1a4d8f", "#d2691e", "#2e8b57", "#8b008b", "#b8860b", "#555"]
    bands, lines = [], []
    for k, version in enumerate(versions):
        mine = [h for h in history if h.version == version.version]
        if not mine:
            continue
        colour = colours[k % len(colours)]
        bands += _bands(mine, x, y, colour, f"v{version.number}")
        points = [(x(h.step), y(h.rating)) for h in mine]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        lines.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>'
            f'<text x="{points[-1][0] + 4:.1f}" y="{points[-1][1]:.1f}" font-size="11" '
            f'fill="{colour}">v{version.number}</text>'
        )
    base, end = height - bottom, width - right
    axes = [
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#444"/>',
        f'<line class="axis" x1="{left}" y1="{base}" x2="{end}" y2="{base}" stroke="#444"/>',
        f'<text class="axis-title" x="12" y="{(top + base) / 2:.0f}" font-size="11"'
        f' transform="rotate(-90 12 {(top + base) / 2:.0f})" text-anchor="middle">Elo</text>',
        f'<text class="axis-title" x="{(left + end) / 2:.0f}" y="{height - 4}" font-size="11"'
        f' text-anchor="middle">{escape(_x_title(list(periods.values())))}</text>',
    ]
    for value in _ticks(low, high):
        axes.append(
            f'<line x1="{left - 4}" y1="{y(value):.1f}" x2="{end}" y2="{y(value):.1f}"'
            f' stroke="#e4e4e4"/><text class="tick-y" x="{left - 6}" y="{y(value) + 4:.1f}"'
            f' font-size="11" text-anchor="end">{elo(value)}</text>'
        )
    shown = steps[:: max(1, -(-len(steps) // 6))]  # at most six step names fit below
    for step in shown:
        label = periods[step]
        label = label if len(label) <= 24 else "…" + label[-23:]
        axes.append(
            f'<line x1="{x(step):.1f}" y1="{base}" x2="{x(step):.1f}" y2="{base + 4}"'
            f' stroke="#444"/><text class="tick-x" x="{x(step):.1f}" y="{base + 16}"'
            f' font-size="11" text-anchor="middle">{escape(label)}</text>'
        )
    return (
        f'<svg width="{width}" height="{height}" role="img" aria-label="rating over time">'
        f"{''.join(axes)}{''.join(bands)}{''.join(lines)}</svg>"
    )


def _games_form(
    chosen: GameFilter, reasons: Sequence[str], results: Sequence[str], with_game: bool,
    games: Sequence[str] = (),
) -> str:  # fmt: skip
    def select(name: str, values: Sequence[str], current: str | None, every: str) -> str:
        options = "".join(
            f'<option value="{escape(v)}"{" selected" if v == current else ""}>{escape(v)}</option>'
            for v in values
        )
        return f'<select name="{name}"><option value="">{every}</option>{options}</select>'

    parts = [select("result", results, chosen.result, "any result")]
    parts.append(select("reason", reasons, chosen.reason, "any reason"))
    if with_game:
        parts.append(select("game", games, chosen.game, "every game"))
    checked = " checked" if chosen.fault else ""
    parts.append(f'<label><input type="checkbox" name="fault" value="1"{checked}>faults</label>')
    return f'<form method="get">{"".join(parts)}<button>show</button></form>'


def games_table(rows: Sequence[GameListRow], links: Links) -> str:
    lines = [
        "<tr><th>finished</th><th>game</th><th>blue (first)</th><th>orange</th><th>result</th>"
        "<th>by</th><th>plies</th><th>from</th><th></th></tr>"
    ]
    for g in rows:
        result = "draw" if g.result == "draw" else f"{g.result} won"
        reason = f'<span class="fault">{escape(g.reason)}</span>' if g.fault else escape(g.reason)
        replay = links.replay(g)
        link = f'<a href="{replay}">replay</a>' if replay else ""
        lines.append(
            f"<tr><td>{escape(g.finished_at[:16])}</td><td>{escape(g.game)}</td>"
            f'<td><a href="{links.bot(g.blue_bot)}">{escape(g.blue)}</a></td>'
            f'<td><a href="{links.bot(g.orange_bot)}">{escape(g.orange)}</a></td>'
            f"<td>{result}</td><td>{reason}</td><td class=n>{g.plies}</td>"
            f"<td>{escape(g.source_name)} #{g.number}</td><td>{link}</td></tr>"
        )
    return f"<table>{''.join(lines)}</table>"


def games_page(
    page: GamePage,
    chosen: GameFilter,
    reasons: Sequence[str],
    games: Sequence[str],
    links: Links,
) -> str:
    body = []
    if links.searchable:
        body.append(_games_form(chosen, reasons, ("blue", "orange", "draw"), True, games))
    body.append(games_table(page.rows, links))
    body.append(game_pager(page, lambda at: links.games(chosen, at), not links.searchable))
    return document("games", "".join(body), links)


def crosstable_page(table: Crosstable, game: str, links: Links) -> str:
    """Points of the row's bot against the column's, of the best rated versions."""
    players = table.players
    head = "".join(f'<th title="{escape(p.label)}">{k + 1}</th>' for k, p in enumerate(players))
    lines = [f"<tr><th>#</th><th>bot</th><th>Elo</th>{head}</tr>"]
    for k, p in enumerate(players):
        cells = []
        for j, cell in enumerate(table.cells[k]):
            if j == k:
                cells.append('<td class="muted">·</td>')
            elif cell is None:
                cells.append("<td></td>")
            else:
                points, count = cell
                style = "win" if points * 2 > count else "loss" if points * 2 < count else ""
                cells.append(f'<td class="{style}" title="{count} games">{points:g}/{count}</td>')
        lines.append(
            f'<tr><td class="n">{k + 1}</td><td><a href="{links.bot(p.bot)}">{escape(p.label)}'
            f"</a></td><td class=n>{elo(p.rating)}</td>{''.join(cells)}</tr>"
        )
    note = f"<p class=muted>the {len(players)} best rated versions; points/games, row against"
    note += " column</p>"
    return document(
        f"crosstable: {game}", f'{note}<table class="x">{"".join(lines)}</table>', links
    )

"""The course kit's static HTML pages: the check report, one feedback page per student and the
staff's index. Each page stands alone (style inline, no script, no network); a student's page
embeds each game's standalone replay (`referee/web/html_export.py`) from the `games/` folder
beside it, so the folder works offline from disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from referee.course.checkall import StudentCheck
from referee.course.feedback import GameSeen, StudentFeedback, TournamentFeedback
from referee.printable import printable
from referee.tournament.standings import points_text

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.ready, .won { color: #176317; } .failing, .lost { color: #a31515; } .draw { color: #555; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
section.game { border-top: 2px solid #ddd; margin-top: 2em; }
iframe { width: 100%; height: 36em; border: 1px solid #ccc; }
.explained { background: #fff4f4; border-left: 4px solid #a31515; padding: .2em 1em; }
"""


def page(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(title)}</h1>\n{body}\n</body>\n</html>\n"
    )


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], cls: str = "") -> str:
    """A table of cells that are already HTML."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>'


# -- the check report --------------------------------------------------------------------------


def check_page(course_name: str, game: str, results: list[StudentCheck], waiting: int = 0) -> str:
    """The check's report; `waiting` students are still to be checked (or were interrupted)."""
    ready = sum(r.ready for r in results)
    rows = []
    for r in results:
        status = "ready" if r.ready else "failing" if r.report else "not collected"
        css = "ready" if r.ready else "failing"
        rows.append(
            [
                f'<a href="#{escape(r.student)}">{escape(r.student)}</a>',
                f'<span class="{css}">{status}</span>',
                f"<code>{escape(r.submission.command or '')}</code>",
                escape(r.why()),
            ]
        )
    parts = [
        f"<p>{ready} of {len(results)} bots are ready for the tournament ({escape(game)}).</p>",
        table(["student", "status", "command", "why not"], rows, "checks"),
    ]
    if waiting:
        parts.insert(1, f'<p class="waiting">{waiting} more not checked (yet).</p>')
    for r in results:
        parts.append(f'<section id="{escape(r.student)}"><h2>{escape(r.student)}</h2>')
        if r.report is None:
            parts.append(f"<p>{escape(r.why())}</p>")
            if r.submission.build_output:
                parts.append(f"<pre>{escape(r.submission.build_output)}</pre>")
        elif r.ready:
            parts.append("<p>every check game was played cleanly.</p>")
        for f in r.report.findings if r.report else []:
            parts.append(f"<h3>game {f.game}: {escape(f.title)}</h3><p>{escape(f.detail)}</p>")
            if f.position:
                parts.append(f"<pre>{escape(f.position)}</pre>")
            parts.append(f"<p><em>hint: {escape(f.hint)}</em></p>")
        parts.append("</section>")
    return page(f"{course_name}: bot check", "\n".join(parts))


# -- after the tournament ----------------------------------------------------------------------


def replay_name(number: int) -> str:
    """A game's replay page, relative to the report folder."""
    return f"games/game-{number:04d}.html"


def student_name(student: str) -> str:
    return f"students/{student}.html"


def _game_row(g: GameSeen) -> list[str]:
    link = f'<a href="#game-{g.number}">{g.number}</a>'
    return [
        link,
        escape(g.opponent),
        g.colour.value,
        f'<span class="{g.outcome.replace(" ", "-")}">{g.outcome}</span>',
        escape(g.how),
        "" if g.plies is None else str(g.plies),
    ]


def _explained(g: GameSeen) -> str:
    e = g.explained
    if e is None:
        return ""
    parts = [f'<div class="explained"><h3>why you lost: {escape(e.title)}</h3>']
    parts.append(f"<p>{escape(printable(e.detail))}</p>")
    if e.line is not None:
        parts.append(f"<p>your bot wrote: <code>{escape(repr(e.line))}</code></p>")
    if e.board:
        parts.append(f"<p>in this position:</p><pre>{escape(e.board)}</pre>")
    if e.times:
        parts.append(f"<p>your time use: {escape(e.times)}</p>")
    if e.stderr_tail:
        # Escaped for HTML, and its bidi overrides and controls shown rather than obeyed.
        tail = escape(printable(e.stderr_tail, lines=True))
        parts.append(f"<p>the end of your bot's stderr:</p><pre>{tail}</pre>")
    parts.append("</div>")
    return "\n".join(parts)


def rank_text(tournament: TournamentFeedback, student: str, overall: int) -> str:
    """A student's rank as the grades count it (among the students), and among everybody when
    built-in bots played too: "rank 3 of 3 students (4 of 4 with the built-in bots)"."""
    students = len(tournament.student_ranks)
    text = f"rank {tournament.student_ranks[student]} of {students} students"
    if len(tournament.standings) > students:
        text += f" ({overall} of {len(tournament.standings)} with the built-in bots)"
    return text


def student_page(tournament: TournamentFeedback, s: StudentFeedback) -> str:
    st = s.standing
    summary = (
        f"<p>{rank_text(tournament, s.student, st.rank)}, {points_text(st.points)} "
        f"({st.wins} won, {st.draws} drawn, {st.losses} lost), "
        f"{s.faults} game(s) lost by a fault of your bot.</p>"
        if st is not None
        else "<p>no games yet.</p>"
    )
    parts = [
        f"<p>{escape(tournament.name)}: {escape(tournament.game)}</p>",
        summary,
        table(
            ["game", "opponent", "your colour", "result", "how", "plies"], map(_game_row, s.games)
        ),
    ]
    for g in s.games:
        parts.append(
            f'<section class="game" id="game-{g.number}" data-game="{g.number}">'
            f"<h2>game {g.number} against {escape(g.opponent)}: {g.outcome}</h2>"
        )
        parts.append(_explained(g))
        if g.record is not None:
            src = "../" + replay_name(g.number)
            parts.append(f'<p><a href="{src}">open the replay alone</a></p>')
            parts.append(f'<iframe src="{src}" title="game {g.number}" loading="lazy"></iframe>')
        parts.append("</section>")
    return page(f"{s.student}: your games", "\n".join(parts))


def index_page(tournament: TournamentFeedback) -> str:
    students = {s.student for s in tournament.students}
    faults = {s.student: s.faults for s in tournament.students}
    rows = []
    for st in tournament.standings:
        name = escape(st.name)
        if st.name in students:
            name = f'<a href="{student_name(st.name)}">{name}</a>'
        rows.append(
            [
                str(st.rank),
                name,
                str(st.points),
                str(st.games),
                f"{st.wins}/{st.draws}/{st.losses}",
                str(faults.get(st.name, sum(st.faults.values()))),
            ]
        )
    body = table(["rank", "player", "points", "games", "won/drawn/lost", "faults"], rows)
    return page(f"{tournament.name}: results for the staff", body)

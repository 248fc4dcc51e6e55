"""What `referee play` shows of a game it played: the summary on stderr (the bots' stderr only
when asked), a warning for a bot that ran as root, where the record is, and the result on
stdout, as the course referee's last line or as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from protocols import get_game
from protocols.base import Side
from referee.isolation import Isolation, ran_as_root_warning
from referee.records import BotReport, GameRecord, Result
from referee.verify import verify_record
from referee.views.console import course_result_line, print_summary


def show_play_result(
    out: Console,
    err: Console,
    record: GameRecord,
    record_path: Path,
    isolation: Isolation,
    *,
    stderr_tails: bool,
    as_json: bool,
) -> None:
    """Render a finished game: `record`, written to `record_path`, its bots run under
    `isolation`."""
    result = record.result
    assert result is not None
    played = verify_record(record)  # the position the game ended in, played through again
    game = get_game(record.header.game)
    print_summary(err, game, record, played.states[-1], stderr_tails=stderr_tails)
    for side, report in result.bots.items():
        name = record.header.players[side].name
        warning = ran_as_root_warning(name, isolation, report.isolation, report.isolation_note)
        if warning:
            err.print(warning, markup=False, highlight=False)
    err.print(f"record: {record_path}")
    if as_json:
        payload = {
            "record": str(record_path),
            "players": {
                s.value: p.model_dump(mode="json") for s, p in record.header.players.items()
            },
            # The moves played before the bots took over (None: the game started at the start);
            # `plies` counts the bots' moves after them.
            "opening": record.header.opening,
            **result.model_dump(mode="json", exclude={"type"}),
            "bots": bots_of(result),
            "result": result.label,  # in one word: blue, orange, draw, double-forfeit, void
        }
        out.out(json.dumps(payload), highlight=False)
    else:
        out.out(course_result_line(result), highlight=False)


def bots_of(result: Result) -> dict[str, dict[str, object]]:
    """Both players' reports, each with `started`; one that could not start has no report of
    its own: it is given what is known of it (it never ran: no exit code, nothing on stderr, no
    isolation) and `not_started`, its part of the result's detail."""
    never_ran = BotReport(exit_code=None, killed=False, stderr_tail="", stderr_bytes=0)
    bots: dict[str, dict[str, object]] = {}
    for side in Side:
        report = result.bots.get(side)
        if report is not None:
            bots[side.value] = {"started": True, **report.model_dump(mode="json")}
        else:
            bots[side.value] = {
                "started": False,
                "not_started": fault_of(result.detail, side),
                **never_ran.model_dump(mode="json"),
            }
    return bots


def fault_of(detail: str, side: Side) -> str:
    """`side`'s part of a result's detail: "blue: WHY", or "neither player could start (blue:
    WHY; orange: WHY)" (referee/match/judge.py); the whole detail where it names no side."""
    head = f"{side.value}: "
    start = detail.find(head)
    if start < 0:
        return detail
    part = detail[start + len(head) :]
    cut = part.find(f"; {side.other.value}: ")
    if cut >= 0:
        return part[:cut]
    return part[:-1] if start > 0 and part.endswith(")") else part

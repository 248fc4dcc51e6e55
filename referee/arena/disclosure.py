"""What a viewer is shown of a game's record: the moves and the verdict are the game's, but each
side's private parts belong to its author (and the staff) alone.

A side's private parts are: its command, folder, limits and content hash (the header's
`PlayerInfo`), the tail of its stderr, what it wrote out of turn or after the end, how it was
confined (the result's `BotReport`), and its last words on stderr where a verdict quotes them
("its stderr ends: ..."). `private_sides` (visibility.py) says whose a viewer may see; every
record, replay JSON and live event that leaves the server goes through here first. The live
stream is the same for everyone who watches, so it carries no side's private parts at all.
"""

from __future__ import annotations

from collections.abc import Collection

from protocols.base import Side
from referee.bot import STDERR_QUOTED
from referee.records import BotReport, Header, PlayerInfo, Ply, Result
from referee.replay import Replay

HIDDEN_STDERR = "(its stderr is shown to its author)"


def header_for(header: Header, sides: Collection[Side], staff: bool = False) -> Header:
    """The header with the players' commands and folders kept for `sides` only, and how the
    games are confined (the machine's own business) for staff only."""
    players = {
        side: info if side in sides else PlayerInfo(name=info.name, command="")
        for side, info in header.players.items()
    }
    return header.model_copy(
        update={"players": players, "confinement": header.confinement if staff else None}
    )


def report_for(report: BotReport) -> BotReport:
    """A bot's report as its opponent and the public see it: how it ended, nothing it wrote."""
    return BotReport(
        exit_code=report.exit_code, killed=report.killed, stderr_tail="", stderr_bytes=0
    )


def detail_for(detail: str, sides: Collection[Side]) -> str:
    """A verdict's detail with the stderr it quotes cut for a viewer who does not own the side
    it quotes. A one-side verdict starts with its side ("blue: closed its output ..."); any
    other (neither bot could start) may quote both sides, so it is kept whole only for a viewer
    who may see both."""
    if STDERR_QUOTED not in detail:
        return detail
    quoted = next((side for side in Side if detail.startswith(f"{side}: ")), None)
    if set(Side) <= set(sides) or (quoted is not None and quoted in sides):
        return detail
    return detail.split(STDERR_QUOTED, 1)[0].rstrip("; ") + "; " + HIDDEN_STDERR


def result_for(result: Result, sides: Collection[Side]) -> Result:
    bots = {side: r if side in sides else report_for(r) for side, r in result.bots.items()}
    return result.model_copy(update={"bots": bots, "detail": detail_for(result.detail, sides)})


def replay_for(replay: Replay, sides: Collection[Side], staff: bool = False) -> Replay:
    """A replay (frames and all) as a viewer who may see `sides`' private parts is shown it.
    The record's hash chain goes only to who sees the whole record: a hash of what was cut
    would let a viewer confirm a guess of it."""
    result = replay.result
    whole = staff or set(Side) <= set(sides)
    return replay.model_copy(
        update={
            "header": header_for(replay.header, sides, staff),
            "result": result_for(result, sides) if result is not None else None,
            "chain": replay.chain if whole else None,
        }
    )


def public_line(line: Header | Ply | Result) -> Header | Ply | Result:
    """A record line as anyone watching the game live is sent it."""
    if isinstance(line, Header):
        return header_for(line, ())
    if isinstance(line, Result):
        return result_for(line, ())
    return line

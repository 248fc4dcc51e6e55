"""Rich terminal views of games: the end-of-game summary and the per-move log.

Views are pure functions of records and states; nothing in the core imports this module.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from protocols.base import Game, Side
from referee.records import GameRecord, Header, Ply, Result

SIDE_STYLE = {Side.BLUE: "bold blue", Side.ORANGE: "bold dark_orange"}


def course_result_line(result: Result) -> str:
    """The course referee's last line, which scripts parse."""
    if result.winner is None:
        return "Game over! Draw!"
    return f"Game over! Winner: {result.winner.value}"


def verdict_text(record: GameRecord) -> Text:
    result = record.result
    if result is None:
        return Text("unfinished game (no result line)", style="bold red")
    if result.void:
        head = Text("VOID ", style="bold red")
    elif result.winner is None:
        head = Text("Draw ", style="bold")
    else:
        name = record.header.players[result.winner].name
        head = Text(f"{result.winner.value} ({name}) wins ", style=SIDE_STYLE[result.winner])
    head.append(f"by {result.reason.value}", style="italic")
    if result.detail:
        head.append(f": {result.detail}")
    if result.loser_line is not None:
        head.append(f"\noffending line: {result.loser_line!r}", style="red")
    return head


def moves_table(plies: list[Ply]) -> Table:
    table = Table(title="Moves", show_edge=False, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("blue", style=SIDE_STYLE[Side.BLUE])
    table.add_column("orange", style=SIDE_STYLE[Side.ORANGE])
    for i in range(0, len(plies), 2):
        pair = plies[i : i + 2]
        blue = f"{pair[0].move}  [dim]{pair[0].time_ms:.0f} ms[/dim]"
        orange = f"{pair[1].move}  [dim]{pair[1].time_ms:.0f} ms[/dim]" if len(pair) > 1 else ""
        table.add_row(str(i // 2 + 1), blue, orange)
    return table


def players_text(header: Header) -> Text:
    text = Text()
    for side in (Side.BLUE, Side.ORANGE):
        player = header.players[side]
        text.append(f"{side.value:6}", style=SIDE_STYLE[side])
        text.append(f" {player.name}: {player.command}\n")
    return text


def print_summary(
    console: Console, game: Game[Any, Any, Any], record: GameRecord, final_state: Any
) -> None:
    """The end-of-game summary: players, final board, moves, verdict and stderr tails."""
    parts: list[Any] = [players_text(record.header), Text(game.render_text(final_state))]
    if record.plies:
        parts.append(moves_table(record.plies))
    parts.append(verdict_text(record))
    title = f"{game.name}: {len(record.plies)} plies"
    console.print(Panel(Group(*parts), title=title, expand=False))
    if record.result is not None:
        for side, report in record.result.bots.items():
            if report.stderr_tail.strip():
                tail = report.stderr_tail.strip().splitlines()[-8:]
                console.print(
                    Panel("\n".join(tail), title=f"{side.value} stderr (last lines)", expand=False),
                    style="dim",
                )


def log_line(console: Console, line: Header | Ply | Result) -> None:
    """One line per event as a game goes (`--log`)."""
    if isinstance(line, Ply):
        style = SIDE_STYLE[line.side]
        console.print(
            f"[dim]{line.ply:4}[/dim] [{style}]{line.side.value:6}[/{style}] {line.move}"
            f"  [dim]({line.time_ms:.1f} ms)[/dim]"
        )
    elif isinstance(line, Header):
        console.print(f"[bold]{line.game}[/bold] started")

"""Rich terminal views of games: the end-of-game summary, the per-move log and replay frames.

Views are pure functions of records and states; nothing in the core imports this module.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from protocols.base import Game, Side
from referee.printable import printable
from referee.records import GameRecord, Header, Ply, Result
from referee.replay import Replay
from referee.views.boards import draw_board

SIDE_STYLE = {Side.BLUE: "bold blue", Side.ORANGE: "bold dark_orange"}


def has_colour(console: Console) -> bool:
    """Whether `console` shows colour: not when piped, with NO_COLOR set, or on TERM=dumb."""
    return console.color_system is not None and not console.no_color


def wrapped(text: Text) -> Text:
    """`text`, told to wrap at the width it is given. Commands print to a console that soft-wraps
    (long lines stay whole for the terminal to wrap), and there rich would cut a line inside a
    panel at its edge instead: a log or a pipe would lose the end of the sentence."""
    text.no_wrap = False
    text.overflow = "fold"
    return text


def course_result_line(result: Result) -> str:
    """The course referee's last line, which scripts parse."""
    if result.winner is None:
        # A bot fault without a winner: neither bot could start, and both lose.
        return "Game over! No winner!" if result.reason.is_bot_fault else "Game over! Draw!"
    return f"Game over! Winner: {result.winner.value}"


def verdict_text(record: GameRecord) -> Text:
    result = record.result
    if result is None:
        return Text("unfinished game (no result line)", style="bold red")
    if result.void:
        head = Text("VOID ", style="bold red")
    elif result.winner is None and result.reason.is_bot_fault:
        head = Text("No winner (both lose) ", style="bold red")
    elif result.winner is None:
        head = Text("Draw ", style="bold")
    else:
        name = printable(record.header.players[result.winner].name)
        head = Text(f"{result.winner.value} ({name}) wins ", style=SIDE_STYLE[result.winner])
    head.append(f"by {printable(result.why)}", style="italic")
    if result.detail:
        # The detail may quote a bot (its last words on stderr, its line): shown, never obeyed.
        head.append(f": {printable(result.detail)}")
    if result.loser_line is not None:
        head.append(f"\noffending line: {result.loser_line!r}", style="red")
    return wrapped(head)


def moves_text(plies: list[Ply]) -> Text:
    """Every move with its time, a numbered row per blue-orange pair, columns aligned. Built as
    one Text rather than a rich Table: a Table measures every cell to lay itself out, which cost
    35 ms for a 110-ply game (55 ms inside the summary's panel), more than the whole game."""
    cells = [f"{ply.move}  {ply.time_ms:.0f} ms" for ply in plies]
    number_width = len(str((len(plies) + 1) // 2))
    blue_width = max(len("blue"), *(len(cell) for cell in cells[0::2]))
    text = Text("Moves\n", style="bold")
    text.append(f"{'#':>{number_width}}  {'blue':<{blue_width}}  orange\n", style="bold")
    for i in range(0, len(plies), 2):
        text.append(f"{i // 2 + 1:>{number_width}}  ")
        for ply, cell in zip(plies[i : i + 2], cells[i : i + 2], strict=True):
            text.append(ply.move, style=SIDE_STYLE[ply.side])
            text.append(cell[len(ply.move) :], style="dim")
            if ply.side is Side.BLUE:
                text.append(" " * (blue_width - len(cell) + 2))
        text.append("\n")
    text.rstrip()
    return text


def players_text(header: Header) -> Text:
    text = Text()
    for side in (Side.BLUE, Side.ORANGE):
        player = header.players[side]
        text.append(f"{side.value:6}", style=SIDE_STYLE[side])
        text.append(f" {printable(player.name)}: {printable(player.command)}\n")
    return text


def print_summary(
    console: Console,
    game: Game[Any, Any, Any],
    record: GameRecord,
    final_state: Any,
    *,
    stderr_tails: bool = True,
) -> None:
    """The end-of-game summary: players, final board, moves, verdict and (unless `stderr_tails`
    is false) the last lines each bot wrote to its stderr."""
    parts: list[Any] = [players_text(record.header), Text(game.render_text(final_state))]
    if record.plies:
        parts.append(moves_text(record.plies))
    parts.append(verdict_text(record))
    title = f"{game.name}: {len(record.plies)} plies"
    console.print(Panel(Group(*parts), title=title, expand=False))
    if record.result is not None and stderr_tails:
        for side, report in record.result.bots.items():
            if report.stderr_tail.strip():
                # A Text, not a str: what the bot wrote is neither rich markup nor terminal
                # control sequences, and stays inside its panel, one line a line.
                tail = printable(report.stderr_tail.strip(), lines=True).splitlines()[-8:]
                console.print(
                    Panel(
                        Text("\n".join(tail)),
                        title=f"{side.value} stderr (last lines)",
                        expand=False,
                    ),
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


# -- replay frames -------------------------------------------------------------------------------


def moves_window(plies: list[Ply], current: int, rows: int = 10) -> Table:
    """Up to `rows` move pairs around ply `current` (1-based; 0 is the start), current one lit."""
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("#", justify="right", style="dim")
    table.add_column("blue", style=SIDE_STYLE[Side.BLUE])
    table.add_column("orange", style=SIDE_STYLE[Side.ORANGE])
    pair_count = (len(plies) + 1) // 2
    centre = max(current - 1, 0) // 2
    first = max(0, min(centre - rows // 2, pair_count - rows))
    for pair in range(first, min(first + rows, pair_count)):
        cells = []
        for ply in plies[2 * pair : 2 * pair + 2]:
            cell = Text(f"{ply.move}  ")
            cell.append(f"{ply.time_ms:.{1 if ply.time_ms < 10 else 0}f} ms", style="dim")
            if ply.ply == current:
                cell.stylize("reverse")
            cells.append(cell)
        table.add_row(str(pair + 1), *cells)
    return table


def clocks_text(header: Header, plies: list[Ply], current: int) -> Text:
    """Time used per side up to ply `current`, and the time control."""
    text = Text()
    for side in (Side.BLUE, Side.ORANGE):
        used = [p.time_ms for p in plies[:current] if p.side is side]
        last = f", last {used[-1]:.1f} ms" if used else ""
        text.append(f"{side.value:6}", style=SIDE_STYLE[side])
        text.append(f" {len(used)} moves, {sum(used) / 1000:.2f} s{last}\n")
    tc = header.time_control
    text.append(
        f"limit {tc.move_timeout:g} s per move (+{tc.grace:g} s grace, "
        f"+{tc.startup_allowance:g} s on the first)",
        style="dim",
    )
    return text


def replay_frame(replay: Replay, current: int, width: int = 120, colour: bool = True) -> Panel:
    """One position of a replay: players, board, moves around it, clocks, and the verdict.

    The moves and clocks stand beside the board on a wide console (`width`), below it otherwise;
    without `colour` the board tells the sides apart by letters.
    """
    frame = replay.frames[current]
    record = GameRecord(header=replay.header, plies=replay.plies, result=replay.result)
    board = draw_board(replay.game, frame.state, frame.marks, colour)
    moves = moves_window(replay.plies, current)
    clocks = clocks_text(replay.header, replay.plies, current)
    parts: list[Any] = [players_text(replay.header)]
    if width >= 110:
        beside = Table.grid(padding=(0, 2))
        beside.add_row(board, Group(moves, Text(), clocks))
        parts.append(beside)
    else:
        parts.extend([board, Text(), moves, Text(), clocks])
    if current == len(replay.frames) - 1:
        parts.append(verdict_text(record))
        parts.extend(wrapped(Text(f"✗ {p}", style="bold red")) for p in replay.problems)
    else:
        to_move = Side(frame.state["to_move"])
        parts.append(Text(f"{to_move.value} to move", style=SIDE_STYLE[to_move]))
    title = f"{replay.game}: ply {current} of {len(replay.plies)}"
    return Panel(Group(*parts), title=title, expand=False)

"""Rich terminal views of games: the end-of-game summary, the per-move log and replay frames.

Views are pure functions of records and states; nothing in the core imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

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
    """The course referee's last line, which scripts parse. A void game (the referee or the
    machine failed) has no result at all: its line says so and why, never "Draw". Its detail
    may quote what the machine could not start (a path a bot's author chose): shown, never
    obeyed."""
    label = result.label
    if label == "void":
        return f"Game over! Void by {result.why}: {printable(' '.join(result.detail.split()))}"
    if label == "double-forfeit":  # neither bot started playing, and both lose
        return "Game over! No winner!"
    if label == "draw":
        return "Game over! Draw!"
    return f"Game over! Winner: {label}"


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


class MoveCell(NamedTuple):
    """A move in a game's list: its side, its line, and its ply (None: a move of the opening,
    played before the bots took over)."""

    side: Side
    move: str
    ply: Ply | None

    @property
    def note(self) -> str:
        """What follows the move: its time, or that the opening played it."""
        if self.ply is None:
            return "opening"
        return f"{self.ply.time_ms:.{1 if self.ply.time_ms < 10 else 0}f} ms"


MoveRow = tuple[int, MoveCell | None, MoveCell | None]  # its number, blue's move, orange's


def move_rows(plies: Sequence[Ply], opening: Sequence[str] = ()) -> list[MoveRow]:
    """A game's moves, the opening's first (blue played its first: the sides alternate), in
    rows numbered from 1 from the start of the game: blue's move in the first column and
    orange's in the second, so that after an opening of an odd number of moves the bots' first
    move, orange's, completes the opening's last row."""
    cells = [
        MoveCell(Side.BLUE if i % 2 == 0 else Side.ORANGE, m, None) for i, m in enumerate(opening)
    ]
    cells += [MoveCell(ply.side, ply.move, ply) for ply in plies]
    rows: list[list[MoveCell | None]] = []
    for cell in cells:
        if cell.side is Side.BLUE or not rows or rows[-1][1] is not None:
            rows.append([None, None])
        rows[-1][0 if cell.side is Side.BLUE else 1] = cell
    return [(number, blue, orange) for number, (blue, orange) in enumerate(rows, 1)]


def moves_text(plies: list[Ply], opening: Sequence[str] = ()) -> Text:
    """Every move with its time (the opening's marked so), in the numbered rows of `move_rows`,
    columns aligned. Built as one Text rather than a rich Table: a Table measures every cell to
    lay itself out, which cost 35 ms for a 110-ply game (55 ms inside the summary's panel), more
    than the whole game."""
    rows = move_rows(plies, opening)
    number_width = len(str(len(rows)))
    blue_width = max([len("blue"), *(len(b.move) + 2 + len(b.note) for _, b, _ in rows if b)])
    text = Text("Moves\n", style="bold")
    text.append(f"{'#':>{number_width}}  {'blue':<{blue_width}}  orange\n", style="bold")
    for number, blue, orange in rows:
        text.append(f"{number:>{number_width}}  ")
        for cell in (blue, orange):
            if cell is None:
                text.append(" " * (blue_width + 2) if orange is not None else "")
                continue
            text.append(cell.move, style="dim" if cell.ply is None else SIDE_STYLE[cell.side])
            text.append(f"  {cell.note}", style="dim italic" if cell.ply is None else "dim")
            if cell is blue and orange is not None:
                text.append(" " * (blue_width - len(cell.move) - 2 - len(cell.note) + 2))
        text.append("\n")
    text.rstrip()
    return text


def after_opening(header: Header) -> str:
    """What a title adds for a game started from an opening: its plies count the bots' moves,
    from where the opening left the game."""
    count = len(header.opening or ())
    return f", after an opening of {count} {'ply' if count == 1 else 'plies'}" if count else ""


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
    # The verdict below says how the game ended: the board says nothing of a mover.
    over = record.result is not None
    board = game.render_final(final_state) if over else game.render_text(final_state)
    parts: list[Any] = [players_text(record.header), Text(board)]
    if record.plies or record.header.opening:
        parts.append(moves_text(record.plies, record.header.opening or ()))
    parts.append(verdict_text(record))
    title = f"{game.name}: {len(record.plies)} plies{after_opening(record.header)}"
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


def moves_window(
    plies: list[Ply], current: int, rows: int = 10, opening: Sequence[str] = ()
) -> Table:
    """Up to `rows` rows of `move_rows` around ply `current` (1-based; 0 is where the bots took
    over), the current move lit and the opening's moves marked."""
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("#", justify="right", style="dim")
    table.add_column("blue", style=SIDE_STYLE[Side.BLUE])
    table.add_column("orange", style=SIDE_STYLE[Side.ORANGE])
    all_rows = move_rows(plies, opening)
    # The row of the current move; at the start, the opening's last (or the first row).
    centre = max(len(opening) - 1, 0) // 2
    for index, (_, blue, orange) in enumerate(all_rows):
        if any(
            c is not None and c.ply is not None and c.ply.ply == current for c in (blue, orange)
        ):
            centre = index
    first = max(0, min(centre - rows // 2, len(all_rows) - rows))
    for number, blue, orange in all_rows[first : first + rows]:
        cells = []
        for cell in (blue, orange):
            if cell is None:
                cells.append(Text(""))
                continue
            text = Text(f"{cell.move}  ", style="dim" if cell.ply is None else "")
            text.append(cell.note, style="dim italic" if cell.ply is None else "dim")
            if cell.ply is not None and cell.ply.ply == current:
                text.stylize("reverse")
            cells.append(text)
        table.add_row(str(number), *cells)
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
    opening = replay.header.opening or []
    moves = moves_window(replay.plies, current, opening=opening)
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
    title = f"{replay.game}: ply {current} of {len(replay.plies)}{after_opening(replay.header)}"
    return Panel(Group(*parts), title=title, expand=False)

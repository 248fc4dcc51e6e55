"""`referee check`'s engine: play a student's bot against a built-in bot in both colours, under
the limits and isolation of a tournament, and turn what happened into findings a student can act
on (what went wrong, where, and the likely fix).

A game is clean when it ended by the rules (whoever won), the bot exited by itself after `END`,
and nothing was void. The views of a `CheckReport` live in `referee/course/check_view.py`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import trio

from protocols import get_game
from protocols.base import Reason, Side
from referee.bot import FLUSH_HINT, STDERR_QUOTED, BotInfrastructureError, last_words, open_bot
from referee.course.check_sight import check_hidden
from referee.exchange import BotFault
from referee.isolation import Feature, player_places
from referee.isolation.levels import Isolation
from referee.match import driver
from referee.match.clock import first_move_budget
from referee.match.host import Host, run_log
from referee.match.order import GameOrder
from referee.match.settings import MatchSettings
from referee.nofollow import make_new_folder
from referee.players import BUILTIN_PREFIX, PlayerSpec, as_builtin, resolve_command
from referee.records import GameRecord
from referee.tournament.bot_folders import contain_run
from referee.verify import verify_record

DEFAULT_OPPONENT = "builtin:random"
BOT_NAME = "your bot"
RECORDS_PARENT = Path("referee-games")


@dataclass(frozen=True)
class Finding:
    """One problem: a title, what happened, the likely fix, and the position where it happened."""

    title: str
    detail: str
    hint: str
    position: str | None = None
    game: int = 0


@dataclass
class CheckedGame:
    number: int
    colour: Side
    record: GameRecord
    record_path: Path
    isolation: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.findings

    def bot_plies_ms(self) -> list[float]:
        return [p.time_ms for p in self.record.plies if p.side is self.colour]

    def bot_cpu_ms(self) -> list[float]:
        return [
            p.cpu_ms for p in self.record.plies if p.side is self.colour and p.cpu_ms is not None
        ]


@dataclass
class CheckReport:
    game: str
    command: str
    settings: MatchSettings
    games: list[CheckedGame] = field(default_factory=list)
    startup: list[float] = field(default_factory=list)  # ms, from start to first move as blue

    @property
    def clean(self) -> bool:
        return bool(self.games) and all(g.clean for g in self.games)

    @property
    def findings(self) -> list[Finding]:
        return [f for g in self.games for f in g.findings]

    def move_ms(self) -> list[float]:
        """Every later move's time (first moves include start-up)."""
        return [t for g in self.games for t in g.bot_plies_ms()[1:]]

    def cpu_ms(self) -> list[float]:
        return [t for g in self.games for t in g.bot_cpu_ms()[1:]]


def spread(values: list[float]) -> tuple[float, float] | None:
    """(median, worst) of some times, or None without any."""
    return (statistics.median(values), max(values)) if values else None


def opponent_command(opponent: str, game: str, seed: int) -> str:
    """The command of `--opponent`: a built-in bot's name (with or without `builtin:`, maybe
    followed by its options) runs that bot with `seed`; anything else is a command, run as is."""
    command = as_builtin(opponent)
    if not command.strip().startswith(BUILTIN_PREFIX):
        return opponent  # the student's own program: it may not take a --seed
    return resolve_command(f"{command.strip()} --seed {seed}", game)


def new_record_dir(game: str, parent: Path = RECORDS_PARENT, now: datetime | None = None) -> Path:
    """A new, empty folder for one check's records: `check-GAME-TIME`, then `-2`, `-3`... for
    checks started in the same second. `mkdir` fails on a folder that exists, so two checks
    started together never share one. The way to it follows no planted link (`PlantedLink`,
    referee/nofollow.py)."""
    name = f"check-{game}-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"
    path, number = parent / name, 1
    while True:
        try:
            make_new_folder(path)
            return path
        except FileExistsError:
            number += 1
            path = parent / f"{name}-{number}"


def check_players(
    game_name: str, command: str, opponent: str, seed: int, cwd: Path | None
) -> list[PlayerSpec]:
    """The bot checked (running in `cwd`) and its opponent, as the check starts them."""
    return [
        PlayerSpec(name=BOT_NAME, command=command, cwd=cwd),
        PlayerSpec(name=opponent, command=opponent_command(opponent, game_name, seed)),
    ]


async def run_check(
    game_name: str,
    command: str,
    settings: MatchSettings,
    record_dir: Path,
    *,
    host: Host,
    games_per_colour: int = 2,
    opponent: str = DEFAULT_OPPONENT,
    seed: int = 1,
    on_game: Callable[[CheckedGame], None] | None = None,
    cwd: Path | None = None,
    options: dict[str, Any] | None = None,
) -> CheckReport:
    """Time the bot's start-up, then play the games one after the other and analyse each.
    The bot runs in `cwd` (default: the current folder), on `host` (its isolation chosen once
    for the whole run), hidden from `record_dir`, which also holds the check's log; the game is
    played with `options` (None: the game's defaults)."""
    report = CheckReport(game_name, command, settings)
    # Hidden unless it is the bot's own folder (`--records mybot`): each record is, by its path.
    isolation = host.isolation.hiding_unless_own(record_dir.absolute())
    host = Host(isolation, run_log(record_dir))
    # Nor may it see earlier checks' records (referee-games/), or a command opponent's files.
    players = check_players(game_name, command, opponent, seed, cwd)
    # A bot alone in its folder full of records: its games say it did not start (no refusal
    # here, where a course's check goes on to the next student).
    host = replace(host, isolation=contain_run(host.isolation, players, refuse_crowded=False))
    if host.isolation.has(Feature.SANDBOX):  # in a course's or a tournament's folder, its own
        host = host.hiding(*check_hidden(player_places(command, cwd)))
    for _ in range(games_per_colour):
        elapsed = await time_startup(command, settings, host.isolation, cwd)
        if elapsed is not None:
            report.startup.append(elapsed * 1000)
    fixed = settings.model_copy(update={"random_assignment": False})
    colours = [Side.BLUE, Side.ORANGE] * games_per_colour
    for number, colour in enumerate(colours, start=1):
        rival = opponent_command(opponent, game_name, seed + number)
        bot = PlayerSpec(name=BOT_NAME, command=command, cwd=cwd)
        other = PlayerSpec(name=opponent, command=rival)
        blue, orange = (bot, other) if colour is Side.BLUE else (other, bot)
        path = record_dir / f"check-{number:02d}-{colour.value}.jsonl"
        order = GameOrder(
            game=game_name,
            options=options or {},
            players=(blue, orange),
            settings=fixed,
            seed=seed,
        )
        # The record by its own path too: `--records .` writes it where the bot runs.
        record = await driver.play(order, host.hiding(path.absolute()), record_path=path)
        checked = CheckedGame(number, colour, record, path)
        if record.result is not None and colour in record.result.bots:
            checked.isolation = record.result.bots[colour].isolation
        checked.findings = analyse(checked, settings)
        report.games.append(checked)
        if on_game is not None:
            on_game(checked)
    return report


async def time_startup(
    command: str, settings: MatchSettings, isolation: Isolation, cwd: Path | None = None
) -> float | None:
    """Seconds from starting the bot alone to its first move as blue (None if it failed: the
    games will show why)."""
    start = trio.current_time()
    try:
        async with open_bot(
            command,
            name=BOT_NAME,
            cwd=cwd,
            limits=settings.limits,
            isolation=isolation,
            exit_grace=settings.exit_grace,
        ) as bot:
            await bot.ask(Side.BLUE.value, start + first_move_budget(settings))
            elapsed = trio.current_time() - start
            await bot.notify("END", settings.exit_grace)
            return elapsed
    except (BotFault, BotInfrastructureError):
        return None


def analyse(checked: CheckedGame, settings: MatchSettings) -> list[Finding]:
    """The findings of one game, from the bot's point of view."""
    result = checked.record.result
    me = checked.colour
    if result is None:
        return [Finding("unfinished game", "the game has no result", "run the check again")]
    findings: list[Finding] = []
    if result.void:
        findings.append(
            Finding(
                "void game",
                f"{result.reason.value}: {result.detail}",
                "not your bot's fault: the referee or the machine failed; run the check again",
            )
        )
    elif result.reason.is_bot_fault and result.winner is me.other:
        findings.append(_fault_finding(checked, settings))
    elif result.reason.is_bot_fault:
        findings.append(
            Finding(
                "the built-in opponent failed",
                result.detail,
                "not your bot's fault; run the check again",
            )
        )
    report = result.bots.get(me)
    bot_fault = result.reason.is_bot_fault and result.winner is me.other
    if report is not None and report.killed and not bot_fault and not result.void:
        findings.append(
            Finding(
                "does not exit on END",
                "after the game the referee sent END and closed its input, and the bot was "
                f"still running {settings.exit_grace} s later, so it was killed",
                "stop reading and exit when the line is END (or when input ends)",
            )
        )
    return [_numbered(f, checked.number) for f in findings]


def _numbered(finding: Finding, number: int) -> Finding:
    return Finding(finding.title, finding.detail, finding.hint, finding.position, number)


def _fault_finding(checked: CheckedGame, settings: MatchSettings) -> Finding:
    result = checked.record.result
    assert result is not None
    detail = result.detail
    line = result.loser_line
    reason = result.reason
    first_move = not any(p.side is checked.colour for p in checked.record.plies)
    if reason in (Reason.ILLEGAL_MOVE, Reason.BAD_SYNTAX):
        return _move_finding(checked, reason, detail, line)
    if reason is Reason.TIMEOUT:
        return _timeout_finding(checked.colour, detail, first_move, settings)
    if reason is Reason.OUT_OF_TURN:
        return Finding(
            "wrote out of turn",
            f"{detail}: {line!r}",
            "write exactly one line, your move, each time it is your turn, and nothing before "
            "your first turn; debug output goes to stderr",
        )
    if reason is Reason.LINE_TOO_LONG:
        return Finding("line too long", detail, "only the move goes to stdout, one short line")
    if reason is Reason.BAD_ENCODING:
        return Finding("not text", f"{detail}: {line!r}", "write plain ASCII lines to stdout")
    return _crash_finding(checked, reason, detail)


def _move_finding(checked: CheckedGame, reason: Reason, detail: str, line: str | None) -> Finding:
    states = verify_record(checked.record).states
    game = get_game(checked.record.header.game)
    position = game.render_text(states[-1]) if states else None
    rule = detail.split(": ", 1)[1] if ": " in detail else detail
    # The line is quoted once: before the rule, unless the rule's own words quote it already.
    quoted = line is None or repr(line) in rule
    if reason is Reason.ILLEGAL_MOVE:
        return Finding(
            "illegal move",
            rule if quoted else f"{line!r} is not legal here: {rule}",
            "keep your own copy of the position up to date with every line you receive, and "
            "play only moves the rules allow in it",
            position,
        )
    looks_like_debug = line is not None and (len(line.split()) > 4 or ":" in line or "=" in line)
    hint = (
        "that looks like debug output: only moves go to stdout, print everything else to stderr"
        if looks_like_debug
        else "write the move exactly as the rules page spells it, one move per line"
    )
    return Finding("not a move", rule if quoted else f"{line!r}: {rule}", hint, position)


def _timeout_finding(
    colour: Side, detail: str, first_move: bool, settings: MatchSettings
) -> Finding:
    limit = f"{settings.move_timeout} s per move (+{settings.grace} s grace)"
    if first_move and settings.startup_allowance:  # the first move had that time too
        limit = (
            f"{settings.move_timeout} s per move (+{settings.grace} s grace, "
            f"+{settings.startup_allowance} s for start-up on the first move)"
        )
    # The bot answered nothing and sat reading its input: its move, if written, is still in its
    # output buffer. In either colour that is most often a missing flush.
    if FLUSH_HINT not in detail:
        return Finding("too slow", f"no move within {limit}", "answer within the time limit")
    if first_move and colour is Side.BLUE:
        return Finding(
            "no first move as blue (not flushed?)",
            "the bot was waiting for input when its first move was due: either it never wrote "
            "the move, or wrote it without flushing stdout",
            "as blue, answer the line `blue` with your first move at once: nothing else is "
            "sent before it. Flush stdout after writing each move",
        )
    return Finding(
        "move never arrived (not flushed?)",
        "the bot was waiting for input while the referee waited for its move",
        "flush stdout after every move (Python: print(move, flush=True); Java: "
        "System.out.flush(); C: fflush(stdout))",
    )


# What a bot's last words on stderr say when a limit stopped an allocation or a write.
def _crash_finding(checked: CheckedGame, reason: Reason, detail: str) -> Finding:
    result = checked.record.result
    assert result is not None
    report = result.bots.get(checked.colour)
    tail = last_words(report.stderr_tail, lines=5) if report is not None else ""
    said = f"; its last words on stderr: {tail}" if tail else ""
    if STDERR_QUOTED in detail:  # the verdict quotes them already (a bot dead before its move)
        said = ""
    if "could not start" in detail:
        return Finding("cannot start", detail, "check the command: the program, its path, chmod +x")
    if reason is Reason.RESOURCE_LIMIT:  # the verdict names the limit and its value
        return Finding(
            "limit hit", detail + said, "use less: the same limits apply in the tournament"
        )
    return Finding("crash", detail + said, "run the bot by hand with the same input to see why")


def describe_settings(settings: MatchSettings) -> dict[str, Any]:
    """What the check ran under, for the report's header."""
    if settings.clock_total is not None:
        per = f"{settings.clock_total} s per side, +{settings.clock_increment} s per move"
    else:
        per = f"{settings.move_timeout} s per move"
    return {
        "time": f"{per}, +{settings.grace} s grace, +{settings.startup_allowance} s for start-up",
        "limits": settings.limits.summary(),
        "freeze": "the bot not on move is frozen" if settings.freeze else "no freezing",
    }

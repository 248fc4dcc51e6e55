"""Compare this referee with the course referee (`cs4341-referee`) on one fixed Lasker Morris game.

Two instant replay bots play the same legal game under both referees, and two figures are taken:

(a) tournament: `--games` games (20) at concurrency 1 in one `referee tournament run` process
    (its start and its trial start of each bot before the first game included), against the
    course's way of playing many games: one `cs4341-referee laskermorris` process per game, one
    after the other. Games per minute of wall time, and the referee's CPU per game (totals over
    the run divided by the games).
(b) single-game: a whole process for one game, `referee laskermorris -p1 BOT -p2 BOT -nr -nv`
    against `cs4341-referee laskermorris -p1 BOT -p2 BOT -nr -nv`, `--runs` times (5) each,
    alternating so that both see the same load on a shared machine: the median wall time and
    the median referee CPU. One unmeasured game of each comes first (cold caches). In the same
    rounds, `stack_import_cpu_ms`: a bare interpreter (this Python) importing only this
    referee's fixed stack, `python -c "import trio, pydantic.main, rich.console"`: what any
    single game of it costs before a line of its own code runs. `stack_import_vs_course_ratio`
    compares that with the course referee's whole game.

Before measuring, this referee's modules are compiled to bytecode (as pip does when it installs
a package): an editable checkout run with PYTHONDONTWRITEBYTECODE set would compile them from
source in every run. For a like-for-like start-up, run the script with the Python of a
virtualenv into which the referee is installed (`python -m venv V && V/bin/pip install .`),
as the course referee is installed into one: the interpreter of a machine with many `.pth`
files in its site-packages (editable installs among them) starts slower for everything.

The project's targets, measured here and not asserted: for (a) `games_per_min_ratio` >= 10 and
`ref_cpu_ratio` < 1; for (b) `wall_ratio` <= 1/3 and `ref_cpu_ratio` <= 1. Every ratio is
ours / course. Both referees run with their default settings except `-nr` (player 1 is blue)
and `-nv` (no web view: the course referee serves one by default and then spins until Ctrl-C);
this referee's isolation is its default (auto) unless `--isolation` says otherwise.

The game (`course_game`): 110 plies (`--game-plies`), legal under this referee's default rules,
with 8 removals, the last at ply 90; the 20 quiet plies after it end it at ply 110 with the draw
after 20 consecutive plies without a removal. Both referees have that rule (the course
referee's `moves_without_taking >= 20`, checked after each move, placements counted) and
neither has a ply cap, so both end the game at the same ply, as a draw; the game also avoids a
third occurrence of a position (a draw here, not there) and players without a legal move. Every
game is checked: a draw (`Game over! Draw!`, or the tournament store's reason and 110 plies),
both bots having played all of their moves; otherwise the benchmark stops with an error.

CPU separation. A referee's CPU is the CPU of its whole run minus the bots' own CPU:
- the run's CPU comes from `os.wait4` on the referee process: its own CPU plus that of every
  descendant it waited for (bots, and for this referee also its sandbox, supervisor and
  launcher processes, which are its cost); both referees wait for all of their children;
- each bot reports its CPU through a FIFO in its folder, just before `os._exit` (a FIFO, not a
  file: a sandboxed bot's folder is read-only, but writing to a FIFO on a read-only mount is
  allowed). It sends `time.process_time()` at its script's first line and at its end. The bot's
  CPU is counted as (end - start) + the interpreter's start-up, calibrated by running the bot
  directly (`bot_start_cpu_ms`, a median of 7). The bot's own clock alone would also count what
  ran in its process before the interpreter was executed, which for this referee is its
  launcher (it confines the process, then becomes the bot): the referee's work, not the bot's.
  (b) also shows the median bot clock at the first line under each referee
  (`*_bot_start_cpu_ms`): the difference is about the launcher's cost.
Both referees' figures thus include the bots' start-ups' CPU beyond the calibrated value (on a
busy machine a start can cost a few ms more), and what ran in a bot's process after its report.

Getting the course referee: its public repository is https://github.com/jake-molnia/CS4341-referee
(not on PyPI). Clone it (`git clone https://github.com/jake-molnia/CS4341-referee`) and pass the
checkout with `--course-referee PATH`: the script installs it with pip (its dependencies come from
PyPI) into a throwaway virtualenv, or into `--course-venv DIR`, which is kept and reused. Or pass
an installed one with `--course-command CMD`. Without either, a `cs4341-referee` on the PATH is
used; without one, only this referee is measured and the comparison is reported as skipped.

Output: one line of `key=value` fields for the setup and one per figure:
    bench_course figure=setup plies=110 removals=8 ... bot_start_cpu_ms=... course=...
    bench_course figure=tournament games=20 ours_games_per_min=... course_games_per_min=...
        ours_ref_cpu_ms_per_game=... course_ref_cpu_ms_per_game=... (and the bots')
        games_per_min_ratio=... ref_cpu_ratio=...
    bench_course figure=single-game runs=5 ours_wall_ms=... course_wall_ms=... ours_ref_cpu_ms=...
        course_ref_cpu_ms=... stack_import_cpu_ms=... wall_ratio=... ref_cpu_ratio=...
        stack_import_vs_course_ratio=...
Without a course referee the `course_*` fields and ratios are replaced by `course=skipped`.

Usage:
    python scripts/bench_course.py [--course-referee PATH | --course-command CMD]
        [--course-venv DIR] [--games 20] [--runs 5] [--game-plies 110] [--isolation LEVEL]
    python scripts/bench_tournament.py --course [the same options]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocols import get_game
from protocols.base import Reason
from referee.app.config import load_config
from referee.isolation.levels import IsolationSettings, choose
from referee.tournament.store import GameState, open_view

COURSE_REPOSITORY = "https://github.com/jake-molnia/CS4341-referee"
COURSE_SCRIPT = "cs4341-referee"
GAME = "lasker-morris"
QUIET_TAIL = 20  # both referees' draw: this many consecutive plies without a removal
DRAW_LINE = "Game over! Draw!"  # what both referees print for a draw (course scripts parse it)
CALIBRATION_RUNS = 7
# What any game of this referee imports before it can start: its fixed stack (trio for the
# concurrency, pydantic for the records, rich for the terminal), and nothing of its own.
STACK_IMPORT = "import trio, pydantic.main, rich.console"

# The replay bot. It speaks the course protocol (`blue`/`orange`, forwarded moves, `END`), plays
# its half of the moves file instantly and waits for END or the end of its input before it
# reports, so that neither referee sees it leave early. Reporting comes last and `os._exit` skips
# the interpreter's shutdown, so that the CPU it reports is (nearly) all the CPU it used.
REPORTING_BOT = """\
import os, sys, time
start = time.process_time()
moves = open(sys.argv[1]).read().split("\\n")
colour = sys.stdin.readline().strip()
mine = moves[0::2] if colour == "blue" else moves[1::2]
played = 0
def move():
    global played
    sys.stdout.write(mine[played] + "\\n")
    sys.stdout.flush()
    played += 1
if colour == "blue":
    move()
for line in sys.stdin:
    if line.strip() == "END":
        break
    if played < len(mine):
        move()
end = time.process_time()
try:
    fd = os.open(sys.argv[2], os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, f"{start:.6f} {end:.6f} {played} {colour or '-'}\\n".encode())
except OSError:
    pass
os._exit(0)
"""


def course_game(plies: int = 110, seed: int = 1) -> list[str]:
    """A legal game of exactly `plies` plies that both referees end at its last ply, as a draw.

    A depth-first search over this referee's rules (default options): the removal that must
    come `QUIET_TAIL` plies before the end is searched for, quiet moves only after it, removals
    preferred once 8 quiet plies have passed before it (so the draw never comes early), and no
    other ending on the way. Random move order from `seed`, and another attempt on a budget of
    positions; deterministic, and found at once for the defaults.
    """
    if plies <= QUIET_TAIL:
        raise ValueError(f"a game must be longer than {QUIET_TAIL} plies")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * plies))
    for attempt in range(100):
        search = _GameSearch(plies, random.Random(seed * 1000 + attempt))
        game = search.game
        found = search.extend(game.initial_state(game.parse_options({})), [])
        if found is not None:
            return found
    raise RuntimeError(f"no {plies}-ply game found")


class _GameSearch:
    """One attempt of `course_game`'s search."""

    def __init__(self, plies: int, rng: random.Random) -> None:
        self.game = get_game(GAME)
        self.plies = plies
        self.last_removal = plies - QUIET_TAIL
        self.rng = rng
        self.budget = 50 * plies  # positions; a dead end is cheaper to restart than to finish

    def extend(self, state: Any, lines: list[str]) -> list[str] | None:
        self.budget -= 1
        if self.budget < 0:
            return None
        game, ply = self.game, len(lines) + 1
        moves = list(game.legal_moves(state))
        self.rng.shuffle(moves)
        removals = [m for m in moves if m.remove != "r0"]
        quiet = [m for m in moves if m.remove == "r0"]
        if ply > self.last_removal:
            order = quiet
        elif ply == self.last_removal:
            order = removals
        elif state.plies_without_removal >= 8:
            order = removals + quiet
        else:
            order = quiet + removals
        for move in order:
            after = game.apply(state, move)
            ended = game.outcome(after)
            line = game.format_move(move)
            if ply == self.plies:
                if ended is not None and ended.reason is Reason.NO_CAPTURE_LIMIT:
                    return [*lines, line]
            elif ended is None:
                found = self.extend(after, [*lines, line])
                if found is not None:
                    return found
        return None


@dataclass(frozen=True)
class BotReport:
    start: float  # the bot's process CPU (s) at its script's first line
    end: float  # ... and after its last move
    played: int
    colour: str


class ReportFifo:
    """The FIFO the bots report through; the benchmark holds it open for reading and writing, so
    that a bot's non-blocking open always finds a reader and its report waits in the pipe (a
    whole run's reports are far below the pipe's 64 KiB) until `drain`."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        path.chmod(0o666)  # sandboxed bots run as users of their own
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.pending = b""

    def drain(self) -> list[BotReport]:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        reports = []
        for line in lines:
            start, end, played, colour = line.decode().split()
            reports.append(BotReport(float(start), float(end), int(played), colour))
        return reports

    def close(self) -> None:
        os.close(self.fd)


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # CPU seconds of the process and of every descendant it waited for
    stdout: str


def run_process(argv: Sequence[str], cwd: Path) -> Run:
    """Run a referee to its end; its output goes to files (a pipe nobody reads could stall it)."""
    with open(cwd / "stdout.txt", "w+") as out, open(cwd / "stderr.txt", "w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        # wait4 rather than Popen.wait: it gives the resources of the whole waited-for tree.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise RuntimeError(
            f"{shlex.join(argv)} exited with {process.returncode}:\n{stdout[-2000:]}"
            f"{stderr[-2000:]}"
        )
    return Run(wall, usage.ru_utime + usage.ru_stime, stdout)


class Bench:
    """The bot, its moves and its report FIFO in one folder (sandboxed bots see only that folder
    besides Python), and the calibrated CPU of the bot's interpreter start-up."""

    def __init__(self, workdir: Path, moves: list[str]) -> None:
        self.workdir = workdir
        self.moves = moves
        folder = workdir / "bot"
        folder.mkdir(mode=0o755)
        (folder / "moves.txt").write_text("\n".join(moves))  # no final newline: no empty move
        (folder / "replay_bot.py").write_text(REPORTING_BOT)
        for path in folder.iterdir():
            path.chmod(0o644)
        self.fifo = ReportFifo(folder / "report.fifo")
        self.bot = shlex.join(
            [sys.executable, str(folder / "replay_bot.py"), str(folder / "moves.txt"),
             str(self.fifo.path)]
        )  # fmt: skip
        self.start_cpu = self._calibrate()

    def _calibrate(self) -> float:
        """The bot's CPU at its first line when Python is executed directly (as the course
        referee does): the interpreter's start-up, which the bot's clock cannot separate from
        whatever ran in its process before."""
        starts = []
        for _ in range(CALIBRATION_RUNS):
            subprocess.run(
                shlex.split(self.bot), input="orange\nEND\n", text=True, check=True,
                stdout=subprocess.DEVNULL, cwd=self.workdir,
            )  # fmt: skip
            starts += [r.start for r in self.fifo.drain()]
        return statistics.median(starts)

    def bots_cpu(self, reports: list[BotReport]) -> float:
        return sum(r.end - r.start + self.start_cpu for r in reports)

    def check_played(self, reports: list[BotReport], games: int, who: str) -> None:
        """Both bots of every game played their whole half of the game."""
        halves = {"blue": len(self.moves[0::2]), "orange": len(self.moves[1::2])}
        whole = sum(r.played == halves.get(r.colour) for r in reports)
        if whole != 2 * games:
            raise RuntimeError(f"{who}: {whole} bots of {games} games played the whole game")

    def referee_cpu(self, run: Run, who: str) -> tuple[float, float, list[float]]:
        """The referee's CPU and the bots' CPU in the one game of `run`, after checking it, and
        each bot's CPU at its first line (what ran in its process before it)."""
        reports = self.fifo.drain()
        self.check_played(reports, 1, who)
        bots = self.bots_cpu(reports)
        return run.cpu - bots, bots, [r.start for r in reports]


def referee_command() -> list[str]:
    """This referee's `referee` program, as installed next to this Python (not a shell shim in
    front of it, whose start would be counted as the referee's)."""
    script = Path(sys.executable).with_name("referee")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "referee"]


def single_game_args(bot: str, isolation: str | None) -> list[str]:
    """The course form of one game; only this referee gets `--isolation` (if asked for)."""
    args = ["laskermorris", "-p1", bot, "-p2", bot, "-nr", "-nv"]
    return args + (["--isolation", isolation] if isolation else [])


def check_draw(run: Run, who: str) -> None:
    if DRAW_LINE not in run.stdout:
        raise RuntimeError(f"{who}: the game did not end as a draw:\n{run.stdout[-2000:]}")


@dataclass(frozen=True)
class Figures:
    wall: float  # seconds: the whole loop or tournament (a), one run's median (b)
    games: int
    ref_cpu: float  # seconds, per game
    bot_cpu: float  # seconds, per game
    bot_start: float = 0.0  # (b): the median bot's CPU at its script's first line

    @property
    def games_per_min(self) -> float:
        return self.games / self.wall * 60


def tournament_ours(bench: Bench, games: int, isolation: str | None) -> Figures:
    """`games` games between two replay bots in one `referee tournament run` (concurrency 1)."""
    directory = bench.workdir / "tournament"
    match = f'[match.isolation]\nlevel = "{isolation}"\n' if isolation else ""
    players = "".join(
        f'[[players]]\nname = "replay{i}"\ncommand = {toml_string(bench.bot)}\n' for i in (1, 2)
    )
    config = bench.workdir / "tournament.toml"
    config.write_text(
        f'name = "bench course"\ngame = "{GAME}"\nseed = 1\ngames_per_pairing = {games}\n'
        f"concurrency = 1\nmax_replays = 0\ndirectory = {toml_string(str(directory))}\n"
        f"{match}{players}"
    )
    argv = [*referee_command(), "tournament", "run", str(config), "-q", "-j", "1"]
    run = run_process(argv, bench.workdir)
    # The bots' trial starts before the first game (each answers one move) report too: their
    # CPU is the bots', their starting and stopping the referee's.
    reports = bench.fifo.drain()
    bench.check_played(reports, games, "ours")
    view = open_view(load_config(config).directory)
    try:
        rows = view.games()
    finally:
        view.close()
    finished = [
        row
        for row in rows
        if row.state is GameState.FINISHED
        and row.reason is Reason.NO_CAPTURE_LIMIT
        and row.plies == len(bench.moves)
    ]
    if len(finished) != games:
        raise RuntimeError(f"ours: {len(finished)} of {games} games were the expected draw")
    bots = bench.bots_cpu(reports)
    return Figures(run.wall, games, (run.cpu - bots) / games, bots / games)


def toml_string(text: str) -> str:
    """A TOML basic string (the JSON escapes are valid TOML escapes)."""
    return json.dumps(text)


def tournament_course(bench: Bench, course: list[str], games: int) -> Figures:
    """The course's way: one referee process per game, one after the other."""
    argv = [*course, *single_game_args(bench.bot, None)]
    ref_cpu = bot_cpu = wall = 0.0
    for _ in range(games):
        run = run_process(argv, bench.workdir)
        check_draw(run, "course")
        ref, bots, _ = bench.referee_cpu(run, "course")
        ref_cpu, bot_cpu, wall = ref_cpu + ref, bot_cpu + bots, wall + run.wall
    return Figures(wall, games, ref_cpu / games, bot_cpu / games)


def single_games(
    bench: Bench, course: list[str] | None, runs: int, isolation: str | None
) -> tuple[Figures, Figures | None, float]:
    """`runs` whole-process games of each referee, alternating so that both see the same load
    on a shared machine; medians of wall time and referee CPU. Also, measured in the same
    rounds, the CPU of a bare interpreter importing this referee's fixed stack (`STACK_IMPORT`):
    the least any game of it can cost, before a line of its own code runs."""
    sides = {"ours": [*referee_command(), *single_game_args(bench.bot, isolation)]}
    if course:
        sides["course"] = [*course, *single_game_args(bench.bot, None)]
    walls: dict[str, list[float]] = {side: [] for side in sides}
    refs: dict[str, list[float]] = {side: [] for side in sides}
    bots: dict[str, list[float]] = {side: [] for side in sides}
    starts: dict[str, list[float]] = {side: [] for side in sides}
    stack: list[float] = []
    for _ in range(runs):
        for side, argv in sides.items():
            run = run_process(argv, bench.workdir)
            check_draw(run, side)
            ref, bot, bot_starts = bench.referee_cpu(run, side)
            walls[side].append(run.wall)
            refs[side].append(ref)
            bots[side].append(bot)
            starts[side] += bot_starts
        stack.append(run_process([sys.executable, "-c", STACK_IMPORT], bench.workdir).cpu)
    figures = {
        side: Figures(
            statistics.median(walls[side]),
            1,
            statistics.median(refs[side]),
            statistics.median(bots[side]),
            statistics.median(starts[side]),
        )
        for side in sides
    }
    return figures["ours"], figures.get("course"), statistics.median(stack)


def compile_bytecode() -> None:
    """Compile this referee's modules, as pip does when it installs a package. An editable
    checkout run with PYTHONDONTWRITEBYTECODE set would otherwise compile every module from
    source in every run (about 30 modules, tens of ms), which no installed referee does."""
    for package in ("protocols", "referee", "bots"):
        module = __import__(package)
        compileall.compile_dir(Path(module.__file__).parent, quiet=1)


def install_course(source: Path, venv: Path) -> list[str]:
    """The course referee installed from its checkout `source` into the virtualenv `venv`
    (reused when it already has it)."""
    script = venv / "bin" / COURSE_SCRIPT
    if not script.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, str(source)], check=True)
    return [str(script)]


def line(figure: str, fields: dict[str, object]) -> str:
    return f"bench_course figure={figure} " + " ".join(f"{k}={v}" for k, v in fields.items())


def ratio(ours: float, course: float) -> str:
    return f"{ours / course:.3f}" if course > 0 else "nan"


def add_comparison_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the comparison (also offered by bench_tournament.py's `--course`)."""
    group = parser.add_argument_group("course comparison")
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--course-referee", type=Path, metavar="PATH", help="a checkout of " + COURSE_REPOSITORY
    )
    where.add_argument("--course-command", metavar="CMD", help="an installed course referee")
    group.add_argument(
        "--course-venv", type=Path, metavar="DIR", help="install it here and keep it (reused)"
    )
    group.add_argument("--games", type=int, default=20, help="tournament: games per referee")
    group.add_argument("--runs", type=int, default=5, help="single game: runs per referee")
    group.add_argument("--game-plies", type=int, default=110, help="plies of the fixed game")


def run_comparison(args: argparse.Namespace) -> None:
    """Measure (a) and (b) and print one line per figure; `args` as `add_comparison_arguments`
    makes them, plus `isolation` (None: this referee's default)."""
    isolation: str | None = args.isolation
    level = choose(IsolationSettings(level=isolation or "auto")).name
    moves = course_game(args.game_plies)
    with tempfile.TemporaryDirectory(prefix="bench-course-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)  # sandboxed bots run as other users and must reach their folder
        course: list[str] | None = None
        if args.course_referee:
            venv = args.course_venv or workdir / "course-venv"
            course = install_course(args.course_referee.resolve(), venv)
        elif args.course_command:
            course = shlex.split(args.course_command)
        elif shutil.which(COURSE_SCRIPT):
            course = [COURSE_SCRIPT]
        bench = Bench(workdir, moves)
        try:
            print(
                line(
                    "setup",
                    {
                        "game": GAME,
                        "plies": len(moves),
                        "removals": sum(not m.endswith(" r0") for m in moves),
                        "ending": "draw-no-removal",
                        "isolation": level,
                        "bot_start_cpu_ms": f"{bench.start_cpu * 1e3:.1f}",
                        "course": shlex.join(course) if course else "skipped",
                    },
                ),
                flush=True,
            )
            # One unmeasured game each: the first run after a while pays for cold caches.
            compile_bytecode()
            single_games(bench, course, 1, isolation)
            print(tournament_line(bench, course, args.games, isolation), flush=True)
            print(single_game_line(bench, course, args.runs, isolation), flush=True)
        finally:
            bench.fifo.close()
    if not course:
        print(
            "bench_course: no course referee (--course-referee PATH, --course-command CMD or "
            f"{COURSE_SCRIPT} on the PATH): the comparison was skipped",
            file=sys.stderr,
        )


def tournament_line(
    bench: Bench, course: list[str] | None, games: int, isolation: str | None
) -> str:
    ours = tournament_ours(bench, games, isolation)
    fields: dict[str, object] = {
        "games": games,
        "ours_wall_s": f"{ours.wall:.2f}",
        "ours_games_per_min": f"{ours.games_per_min:.1f}",
        "ours_ref_cpu_ms_per_game": f"{ours.ref_cpu * 1e3:.1f}",
        "ours_bot_cpu_ms_per_game": f"{ours.bot_cpu * 1e3:.1f}",
    }
    if course:
        theirs = tournament_course(bench, course, games)
        fields |= {
            "course_wall_s": f"{theirs.wall:.2f}",
            "course_games_per_min": f"{theirs.games_per_min:.1f}",
            "course_ref_cpu_ms_per_game": f"{theirs.ref_cpu * 1e3:.1f}",
            "course_bot_cpu_ms_per_game": f"{theirs.bot_cpu * 1e3:.1f}",
            "games_per_min_ratio": ratio(ours.games_per_min, theirs.games_per_min),
            "ref_cpu_ratio": ratio(ours.ref_cpu, theirs.ref_cpu),
        }
    else:
        fields["course"] = "skipped"
    return line("tournament", fields)


def single_game_line(
    bench: Bench, course: list[str] | None, runs: int, isolation: str | None
) -> str:
    ours, theirs, stack = single_games(bench, course, runs, isolation)
    fields: dict[str, object] = {
        "runs": runs,
        "ours_wall_ms": f"{ours.wall * 1e3:.0f}",
        "ours_ref_cpu_ms": f"{ours.ref_cpu * 1e3:.1f}",
        "ours_bot_start_cpu_ms": f"{ours.bot_start * 1e3:.1f}",
        "stack_import_cpu_ms": f"{stack * 1e3:.1f}",
    }
    if theirs:
        fields |= {
            "course_wall_ms": f"{theirs.wall * 1e3:.0f}",
            "course_ref_cpu_ms": f"{theirs.ref_cpu * 1e3:.1f}",
            "course_bot_start_cpu_ms": f"{theirs.bot_start * 1e3:.1f}",
            "wall_ratio": ratio(ours.wall, theirs.wall),
            "ref_cpu_ratio": ratio(ours.ref_cpu, theirs.ref_cpu),
            "stack_import_vs_course_ratio": ratio(stack, theirs.ref_cpu),
        }
    else:
        fields["course"] = "skipped"
    return line("single-game", fields)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_comparison_arguments(parser)
    parser.add_argument("--isolation", default=None, help="bot isolation level (default: auto)")
    run_comparison(parser.parse_args())


if __name__ == "__main__":
    main()

"""One version on its way to the ladder: its upload unpacked into DIR/versions/ID, built, told
how to run and hashed (`prepare`), then played against the configured built-in bot (`check`),
as `referee check` and `course check` play a student's bot.

Each step reuses the course's: the unpacking protections of `course/unpack.py` (no path that
leaves the folder, no link or device, at most `[build] max_files` files and `max_unpacked_mb`
unpacked, the sizes counted as written), the confined build of `course/builds.py` (the
sandbox, its time and memory limits, its output kept), the layouts of
`tournament/layouts.py` (run.txt, referee.toml, the conventions), the content hash of
`bot_content.py` and the check engine of `course/check.py`. What goes wrong is the student's
to read, in plain words (`problem`), with the logs that show it; what the referee or the
machine failed at raises `RefereeFault` instead, and is never the bot's fault.

The folder is the referee's: files 644 (755 when executable), folders 755, so a bot running as
a user of its own reads it and writes nothing in it.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import trio
from pydantic import BaseModel

from referee.arena.folder import Arena, ArenaPaths, private_folder
from referee.arena.uploads import archive_kind, lone_file_name
from referee.arena.version_hash import version_hash
from referee.course.builds import build, build_isolation
from referee.course.check import CheckedGame, CheckReport, run_check
from referee.course.scheme import BuildSettings
from referee.course.unpack import (
    UnpackError,
    flatten,
    normalise_modes,
    unpack_tar,
    unpack_zip,
)
from referee.isolation import reach_check
from referee.nofollow import make_new_folder
from referee.players import POSITION
from referee.tournament.bot_folders import command_problem
from referee.tournament.layouts import TOML_MANIFESTS, guess_command

MB = 1 << 20
CHECK_ATTEMPTS = 3  # a check spoilt by the referee or the machine is played again, this often
KNOWN_CAPABILITIES = (POSITION,)
MAX_MANIFEST = 1 << 20  # bytes of a referee.toml read


class RefereeFault(Exception):
    """The referee or the machine could not build or check a version: never the bot's fault."""


def version_folder(paths: ArenaPaths, version_id: int) -> Path:
    """Where a version is unpacked and built: DIR/versions/ID."""
    return paths.versions / str(version_id)


def checks_root(paths: ArenaPaths) -> Path:
    """DIR/checks: the records of the check games, the referee's alone."""
    return paths.root / "checks"


def check_folder(paths: ArenaPaths, version_id: int) -> Path:
    """The records of a version's check games: DIR/checks/ID (never shown to a bot)."""
    return checks_root(paths) / str(version_id)


@dataclass(frozen=True)
class Prepared:
    """A version unpacked and built: how to run it, or why it cannot run (`problem`)."""

    log: str
    problem: str | None = None
    command: str | None = None
    content_hash: str | None = None
    capabilities: list[str] = field(default_factory=list)


def unpack_upload(stored: Path, name: str, dest: Path, settings: BuildSettings) -> str:
    """Unpack the upload `stored` (uploaded as `name`) into a fresh `dest`, with the course's
    protections; a lone file becomes the folder's only file. Returns the log's line.
    Blocking: run it in a worker thread."""
    if dest.is_dir() and not dest.is_symlink():
        shutil.rmtree(dest)
    # Made where no link planted on the way can lead it (referee/nofollow.py); a link or
    # anything else left at `dest` is refused, never followed.
    make_new_folder(dest)
    max_bytes = settings.max_unpacked_mb * MB
    kind = archive_kind(name)
    if kind is None:
        if stored.stat().st_size > max_bytes:
            raise UnpackError(f"the file is larger than {settings.max_unpacked_mb} MB")
        shutil.copyfile(stored, dest / lone_file_name(name))
    else:
        unpack = unpack_zip if kind == "zip" else unpack_tar
        unpack(stored, dest, settings.max_files, max_bytes)
        flatten(dest)  # an archive of one folder (bot/...) is taken from inside it
    normalise_modes(dest)
    files = sum(len(found) for _, _, found in os.walk(dest))
    return f"unpacked: {files} file{'s' * (files != 1)}"


def capabilities_of(folder: Path) -> list[str]:
    """The protocol extensions the bot declares in its manifest (`referee.toml` or `bot.toml`:
    `capabilities = ["position"]`); an unreadable manifest declares none."""
    for name in TOML_MANIFESTS:
        manifest = folder / name
        if not manifest.is_file() or manifest.stat().st_size > MAX_MANIFEST:
            continue
        try:
            declared = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        listed = declared.get("capabilities", [])
        if isinstance(listed, list):
            return [c for c in KNOWN_CAPABILITIES if c in listed]
    return []


async def prepare(arena: Arena, version_id: int, sha256: str, name: str) -> Prepared:
    """Unpack, build and find how to run the version; its log and, on failure, its problem."""
    folder = version_folder(arena.paths, version_id)
    settings = arena.config.build
    stored = arena.paths.uploads / sha256
    try:
        said = await trio.to_thread.run_sync(unpack_upload, stored, name, folder, settings)
    except (UnpackError, OSError) as exc:
        return Prepared(f"unpacking failed: {exc}", f"The upload cannot be unpacked: {exc}.")
    log = [said]
    match = arena.config.match_settings()
    isolation = build_isolation(match.isolation.level)
    built = await build(folder, isolation, match.limits, settings.timeout)
    if built.command is not None:
        log += [f"build: {' '.join(built.command)}", built.output.rstrip("\n")]
    if not built.ok:
        log.append(f"the build failed: {built.problem}")
        return Prepared("\n".join(log), f"The build failed: {built.problem}.")
    await trio.to_thread.run_sync(normalise_modes, folder)  # the build wrote with its umask
    guess = guess_command(folder)
    if guess.command is None:
        log.append(f"no way to run it: {guess.note}")
        return Prepared("\n".join(log), f"The arena cannot tell how to run it: {guess.note}.")
    # A command from the upload names only the version's own files (and its interpreter): not
    # another version's folder beside it, as every submitted command (bot_folders.py).
    if refusal := command_problem(guess.command, folder):
        log.append(f"run: refused: {refusal}")
        return Prepared("\n".join(log), f"The arena cannot run it: {refusal}.")
    digest = await trio.to_thread.run_sync(version_hash, guess.command, folder)
    capabilities = capabilities_of(folder)
    log += [f"run: {guess.command}", f"content hash: {digest}"]
    if capabilities:
        log.append(f"declares: {', '.join(capabilities)}")
    return Prepared("\n".join(log), None, guess.command, digest, capabilities)


# -- the check -------------------------------------------------------------------------------

Outcome = Literal["won", "lost", "draw", "void", "unfinished"]


class FindingSummary(BaseModel):
    title: str
    detail: str
    hint: str
    position: str | None = None


class GameSummary(BaseModel):
    """One check game as the version's page shows it, from the student's bot's side."""

    number: int
    colour: str
    outcome: Outcome
    how: str
    plies: int
    clean: bool
    findings: list[FindingSummary]
    stderr: str  # the tail of the student's bot's stderr (never the opponent's)


class CheckSummary(BaseModel):
    """A version's check, kept as JSON in `versions.check_log`."""

    opponent: str
    games: list[GameSummary]
    startup_ms: float | None  # median start-up to the first move as blue
    clean: bool

    @property
    def problems(self) -> list[str]:
        return list(dict.fromkeys(f.title for g in self.games for f in g.findings))


def _outcome(checked: CheckedGame) -> tuple[Outcome, str]:
    result = checked.record.result
    if result is None:
        return "unfinished", ""
    if result.void:
        return "void", result.why
    if result.label == "draw":  # a double forfeit (neither bot played) is lost, never drawn
        return "draw", result.why
    return ("won" if result.winner is checked.colour else "lost"), result.why


def summarise(report: CheckReport, opponent: str) -> CheckSummary:
    games = []
    for checked in report.games:
        outcome, how = _outcome(checked)
        result = checked.record.result
        mine = result.bots.get(checked.colour) if result is not None else None
        games.append(
            GameSummary(
                number=checked.number,
                colour=checked.colour.value,
                outcome=outcome,
                how=how,
                plies=len(checked.record.plies),
                clean=checked.clean,
                findings=[
                    FindingSummary(title=f.title, detail=f.detail, hint=f.hint, position=f.position)
                    for f in checked.findings
                ],
                stderr=mine.stderr_tail if mine is not None else "",
            )
        )
    startup = statistics.median(report.startup) if report.startup else None
    return CheckSummary(opponent=opponent, games=games, startup_ms=startup, clean=report.clean)


def _spoilt(checked: CheckedGame) -> bool:
    """A game the referee, the machine or the built-in opponent spoilt (played again)."""
    result = checked.record.result
    if result is None or result.void:
        return True
    return result.reason.is_bot_fault and result.winner is checked.colour


@dataclass(frozen=True)
class Checked:
    passed: bool
    problem: str | None
    summary: CheckSummary


async def check(arena: Arena, version_id: int, command: str) -> Checked:
    """The version's check games against `[check] opponent`, `games_per_colour` in each colour,
    under the arena's time control, limits and isolation; played again when the referee spoilt
    them (`RefereeFault` after `CHECK_ATTEMPTS`)."""
    config = arena.config
    folder = version_folder(arena.paths, version_id)
    settings = config.match_settings()
    host = arena.check_host()
    if refused := reach_check(command, folder, host.isolation):
        raise RefereeFault(f"the bots' users cannot reach the version's folder: {refused}")
    records = check_folder(arena.paths, version_id)
    for _ in range(CHECK_ATTEMPTS):
        await trio.to_thread.run_sync(_fresh_folder, records)
        report = await run_check(
            config.game,
            command,
            settings,
            records,
            games_per_colour=config.check.games_per_colour,
            opponent=config.check.opponent,
            seed=version_id,
            cwd=folder,
            host=host,
            options=config.game_options,
        )
        spoilt = [g for g in report.games if _spoilt(g)]
        if not spoilt:
            break
    else:
        why = "; ".join(f.detail for g in spoilt for f in g.findings) or "no result"
        raise RefereeFault(f"the check games were spoilt {CHECK_ATTEMPTS} times: {why}")
    summary = summarise(report, config.check.opponent)
    if summary.clean:
        return Checked(True, None, summary)
    problem = (
        f"The check games against {config.check.opponent} found problems: "
        f"{'; '.join(summary.problems)}. Each game's verdict and your bot's stderr are below."
    )
    return Checked(False, problem, summary)


def _fresh_folder(path: Path) -> None:
    """An empty folder for the records, readable by the referee alone (they hold both bots'
    stderr: never another student's to read)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    private_folder(path.parent)
    make_new_folder(path)
    private_folder(path)

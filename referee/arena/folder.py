"""The arena's folder: what `arena new` makes, and what every other command opens.

    DIR/arena.toml      the settings (config.py)
    DIR/arena.sqlite    the store (store.py; + -wal, -shm)
    DIR/secret.key      the key that signs cookies: 0600, made once, never printed
    DIR/grading.toml    the grading scheme (a course's, with `--from`)
    DIR/tournament.toml the final's tournament file (from a course's [tournament], with `--from`)
    DIR/roster.csv      the roster, when one was given
    DIR/uploads/        every upload, byte for byte
    DIR/versions/       each version unpacked and built
    DIR/games/          the record of each game
    DIR/final/          the final tournament, once the versions are pinned (final.py)
    DIR/grades.csv      the grades, as `referee arena grades` exports them
    DIR/arena.log       the server's log

A key readable by anyone but its owner is refused: whoever reads it can sign a session cookie.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from protocols import UnknownGame, canonical_name
from referee.arena.config import (
    CONFIG_NAME,
    ArenaConfig,
    ArenaConfigError,
    config_text,
    read_config,
    resolve,
)
from referee.arena.final_file import template_text
from referee.arena.store import STORE_NAME, ArenaStore, create_store, open_store
from referee.course.scheme import SCHEME_TEXT, Course, CourseError
from referee.match.host import Host, choose_host
from referee.nofollow import (
    PlantedLink,
    create_file,
    make_folder,
    open_folder,
    refuse_links,
    write_file,
)
from referee.toml_config.writing import align_comments

SECRET_NAME = "secret.key"
FINAL_FILE_NAME = "tournament.toml"  # the final's tournament file arena.toml names by default
ROSTER_NAME = "roster.csv"
LOG_NAME = "arena.log"
LOCK_NAME = "arena.lock"
FOLDERS = ("uploads", "versions", "games")
SECRET_BYTES = 32


class ArenaError(Exception):
    """An arena folder that cannot be made or opened as asked; the message says why."""


@dataclass(frozen=True)
class ArenaPaths:
    """Where each part of the arena in `root` lives."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def store(self) -> Path:
        return self.root / STORE_NAME

    @property
    def secret(self) -> Path:
        return self.root / SECRET_NAME

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"

    @property
    def versions(self) -> Path:
        return self.root / "versions"

    @property
    def games(self) -> Path:
        return self.root / "games"

    @property
    def log(self) -> Path:
        return self.root / LOG_NAME


@dataclass
class Arena:
    """An opened arena: its settings, its store (opened by `open_arena`, closed by `close`) and
    the cookie-signing key."""

    paths: ArenaPaths
    config: ArenaConfig
    store: ArenaStore
    secret: bytes
    # Where the versions' checks are played: chosen once, at the first check (`check_host`).
    checks_host: Host | None = None

    def check_host(self) -> Host:
        """The host of every check game of this server, chosen at its first check (raises
        `IsolationUnavailable` while the machine cannot give the level arena.toml asks for)."""
        if self.checks_host is None:
            # A version checked must see no more of the arena than a ladder game's bot: its own
            # folder, never the store, the key, the uploads nor other versions.
            settings = self.config.match_settings().isolation
            self.checks_host = choose_host(settings, self.paths.root, log=self.paths.log)
        return self.checks_host

    def path(self, configured: Path) -> Path:
        """A path from arena.toml (relative ones are from the arena's folder)."""
        return resolve(self.paths.root, configured)

    def close(self) -> None:
        self.store.close()


def new_arena(
    root: Path,
    *,
    from_course: Path | None = None,
    game: str | None = None,
    name: str | None = None,
    roster: Path | None = None,
) -> list[Path]:
    """Make an arena in `root` (which must not hold one yet): arena.toml, the grading scheme,
    the final's tournament file, secret.key, the folders and an empty store; a course's
    settings with `from_course` (its course.toml or folder); the roster copied in when given.
    Returns what it wrote."""
    paths = ArenaPaths(root)
    if paths.config.exists() or paths.store.exists():
        raise ArenaError(f"{root}: there is an arena here already")
    text, scheme, final = _settings(root, from_course, game, name)
    roster_text = None
    if roster is not None:
        try:
            roster_text = roster.read_bytes()
        except OSError as exc:
            raise ArenaError(f"{roster}: cannot copy the roster: {exc.strerror or exc}") from None
    try:
        _write_files(paths, (text, scheme, final), roster_text)
    except PlantedLink as exc:  # said as the rest of the referee says it, nothing written there
        raise ArenaError(str(exc)) from None
    written = [paths.config, root / "grading.toml", root / FINAL_FILE_NAME]
    if roster is not None:
        written.append(root / ROSTER_NAME)
    return [*written, paths.secret, *(root / f for f in FOLDERS), paths.store]


def _write_files(paths: ArenaPaths, texts: tuple[str, str, str], roster: bytes | None) -> None:
    """The new arena's files and folders, each reached without following a link planted in
    the way (referee/nofollow.py): the folder may be one others can write to."""
    root = paths.root
    for path, content in zip(
        (paths.config, root / "grading.toml", root / FINAL_FILE_NAME), texts, strict=True
    ):
        write_file(path, content)
    if roster is not None:
        write_file(root / ROSTER_NAME, roster)
    _write_secret(paths.secret)
    for folder in FOLDERS:
        make_folder(root / folder)
    private_folder(paths.uploads)  # every student's code as sent: the referee's alone
    refuse_links(root, [STORE_NAME, *(STORE_NAME + s for s in (".new", "-wal", "-shm"))])
    create_store(paths.store).close()


def private_folder(path: Path) -> None:
    """The folder `path`, made where missing (its parents too) without following a planted
    link, readable by the referee alone."""
    descriptor = open_folder(path)
    try:
        os.fchmod(descriptor, 0o700)
    finally:
        os.close(descriptor)


def _settings(
    root: Path, from_course: Path | None, game: str | None, name: str | None
) -> tuple[str, str, str]:
    """The text of arena.toml, of the grading scheme and of the final's tournament file."""
    title = name or root.resolve().name
    if from_course is None:
        chosen = _game_name(game or "lasker-morris")
        scheme = align_comments(SCHEME_TEXT)
        final = template_text(chosen, concurrency=None, baselines=_baselines(scheme))
        return config_text(title, chosen), scheme, align_comments(final)
    try:
        course = Course(from_course)
        scheme = course.scheme_path.read_text(encoding="utf-8")
    except CourseError as exc:
        raise ArenaError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaError(f"{from_course}: cannot read the course's grading scheme: {exc}") from None
    settings = course.config
    chosen = _game_name(game) if game else settings.game
    text = config_text(
        name or settings.name,
        chosen,
        game_options=settings.game_options,
        time_control=settings.time_control,
        isolation=settings.isolation,
        build=settings.build,
        check=settings.check,
    )
    # The course's tournament as `course collect` writes it, but for the students.
    played = settings.tournament
    final = template_text(
        chosen,
        seed=played.seed,
        games=played.games_per_pairing,
        concurrency=played.concurrency,
        baselines=list(dict.fromkeys([*played.baselines, *_baselines(scheme)])),
    )
    return text, scheme, align_comments(final)


def _baselines(scheme: str) -> list[str]:
    """The built-in bots a grading scheme gives points for beating (none, for a scheme that
    does not read: reading the arena's config says what is wrong with it)."""
    try:
        baselines = tomllib.loads(scheme).get("baselines", {})
    except tomllib.TOMLDecodeError:
        return []
    return [str(name) for name in baselines] if isinstance(baselines, dict) else []


def _game_name(game: str) -> str:
    try:
        return canonical_name(game)
    except UnknownGame as exc:
        raise ArenaError(str(exc)) from None


def _write_secret(path: Path) -> None:
    """A new key, created 0600 (never a moment readable by others) and synced."""
    fd = create_file(path, 0o600)
    try:
        os.write(fd, secrets.token_hex(SECRET_BYTES).encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def read_secret(path: Path) -> bytes:
    """The cookie-signing key; refused when missing, too short or readable by others."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the arena's key: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ArenaError(
                f"{path}: the key that signs logins is open to other users "
                f"(mode {stat.S_IMODE(mode):04o}): run `chmod 600 {path}`"
            )
        key = file.read().strip()
    if len(key) < SECRET_BYTES:
        raise ArenaError(f"{path}: the key is too short ({len(key)} bytes)")
    return key


def open_arena(root: Path) -> Arena:
    """Open the arena in `root`: its config checked, its store opened, its key read."""
    paths = ArenaPaths(root)
    if not paths.config.is_file():
        raise ArenaError(f"{root}: not an arena (no {CONFIG_NAME}; see `referee arena new`)")
    try:
        config = read_config(paths.config)
    except ArenaConfigError as exc:
        raise ArenaError(str(exc)) from None
    secret = read_secret(paths.secret)
    return Arena(paths, config, open_store(paths.store), secret)


@contextlib.contextmanager
def serving_lock(arena: Arena) -> Iterator[None]:
    """Held by the one server of an arena (a second would schedule every game twice);
    `ArenaError` if another holds it. The other commands need no lock: the store takes each
    of their writes in turn."""
    fd = os.open(arena.paths.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = f"{arena.paths.root}: another `referee arena serve` runs this arena"
            raise ArenaError(message) from None
        yield
    finally:
        os.close(fd)

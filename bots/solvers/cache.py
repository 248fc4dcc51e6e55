"""The solved tables on disk: built once, then read at start-up instead of being solved again.

Where: the directory a bot is given with `--cache-dir` (the referee can pass its own), else
`cache_dir()`: `$REFEREE_CACHE_DIR`, else `$XDG_CACHE_HOME/referee`, else `~/.cache/referee`.
A bot started by the referee gets a scratch `HOME` and none of these variables, so without
`--cache-dir` it also looks in `~/.cache/referee` of its user account (`account_cache_dir`).

What: one file per table, named by game, board options and `FORMAT_VERSION`
(`l-game.v1.table`, `alak-size11.v1.table`). The file is one line of JSON (the table's name,
the version, the payload's sections and its SHA-256), then the payload: the sections as
little-endian arrays of numbers, back to back. A file whose name, version, layout, size or
checksum does not match is ignored (and rebuilt where the directory is writable); nothing in a
file is executed or unpickled, and values are range-checked before use. The checksum catches
damaged and half-written files, not deliberate edits: only the user running the referee should
be able to write the directory.

Writes are atomic (a temporary file in the same directory, then a rename), so a reader or a
concurrent writer never sees half a table. A bot writes best effort and silently: a sandboxed
bot sees the cache read-only, if at all, and then solves at start-up as before, only slower.

`python -m bots.solvers.cache --build` builds every table the bots can use.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pwd
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bots.config import MAX_PERFECT_ALAK
from bots.morris import endgame, native
from bots.solvers import alak, l_game
from protocols import UnknownGame, get_game

# Bump whenever the file layout or the meaning of any table changes: older files are then
# ignored (their names differ) and rebuilt.
FORMAT_VERSION = 1
ENVIRONMENT_VARIABLE = "REFEREE_CACHE_DIR"
SUFFIX = ".table"
MAX_HEADER_BYTES = 4096
MAX_FILE_BYTES = 1 << 30  # far above any table the bots use; a larger file is not read at all
ITEM_SIZES = {"B": 1, "H": 2, "q": 8}  # the typecodes a section may have, by their byte size
VALID_VALUES = bytes(range(3))  # DRAW, WIN, LOSS in both solvers
MIN_ALAK_SIZE = 5  # the smallest tournament board (`AlakOptions.size`)

Layout = tuple[tuple[str, str], ...]  # (section name, array typecode) in file order
Sections = dict[str, "array[int]"]

L_GAME_LAYOUT: Layout = (("values", "B"), ("distances", "B"))
ALAK_LAYOUT: Layout = (("keys", "q"), ("values", "B"), ("plies", "H"))


# -- where -----------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """The table cache of this process's environment: `$REFEREE_CACHE_DIR`, else
    `$XDG_CACHE_HOME/referee`, else `~/.cache/referee`."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "referee"
    return Path.home() / ".cache" / "referee"


def account_cache_dir() -> Path | None:
    """`~/.cache/referee` of this process's user account, found in the password database rather
    than through `$HOME` (which the referee replaces by a scratch directory)."""
    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "referee"
    except KeyError:  # a bot user of the referee's pool may have no account
        return None


def search_dirs(explicit: Path | None = None) -> list[Path]:
    """Where to look for tables, in order; the first is also where new tables are written.

    An explicit directory is the only one. Otherwise the account's default comes second, and
    only when no variable chose the directory: it is what `cache_dir()` would be with the
    account's own `HOME`.
    """
    if explicit is not None:
        return [explicit]
    found = [cache_dir()]
    account = account_cache_dir()
    chosen = os.environ.get(ENVIRONMENT_VARIABLE) or os.environ.get("XDG_CACHE_HOME")
    if account is not None and not chosen and account not in found:
        found.append(account)
    return found


def file_name(table: str) -> str:
    return f"{table}.v{FORMAT_VERSION}{SUFFIX}"


def alak_table(size: int) -> str:
    return f"alak-size{size}"


L_GAME_TABLE = "l-game"  # one table serves every option: it ignores the draw rules
MORRIS_CORE = "lasker-morris-core"  # the compiled search core (a library, not a table file)
MORRIS_LIMIT = 20  # the course's no-removal limit: the endgame tables built by default


# -- the file format -------------------------------------------------------------------------------


def _little_endian(values: array[int]) -> bytes:
    if sys.byteorder == "big" and values.itemsize > 1:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def encode(table: str, sections: Sections, layout: Layout) -> bytes:
    """A table file's bytes: the header line, then the payload."""
    for name, code in layout:
        if sections[name].typecode != code:
            raise ValueError(f"section {name} holds {sections[name].typecode!r}, not {code!r}")
    payload = b"".join(_little_endian(sections[name]) for name, _ in layout)
    header = {
        "table": table,
        "version": FORMAT_VERSION,
        "sections": [[name, code, len(sections[name])] for name, code in layout],
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + payload


def decode(data: bytes, table: str, layout: Layout) -> Sections | None:
    """The sections of a table file, or None unless every check passes (see the module)."""
    end = data.find(b"\n", 0, MAX_HEADER_BYTES)
    if end < 0:
        return None
    try:
        header = json.loads(data[:end])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("table") != table:
        return None
    if header.get("version") != FORMAT_VERSION or not isinstance(header.get("sha256"), str):
        return None
    counts = _counts(header.get("sections"), layout)
    payload = memoryview(data)[end + 1 :]
    if counts is None:
        return None
    sizes = [count * ITEM_SIZES[code] for count, (_, code) in zip(counts, layout, strict=True)]
    if sum(sizes) != len(payload):
        return None
    if hashlib.sha256(payload).hexdigest() != header["sha256"]:
        return None
    sections: Sections = {}
    start = 0
    for (name, code), size in zip(layout, sizes, strict=True):
        values = array(code)
        values.frombytes(payload[start : start + size])
        if sys.byteorder == "big" and values.itemsize > 1:
            values.byteswap()
        sections[name] = values
        start += size
    return sections


def _counts(found: Any, layout: Layout) -> list[int] | None:
    """The section lengths of a header, if its sections are exactly `layout`'s."""
    if not isinstance(found, list) or len(found) != len(layout):
        return None
    counts = []
    for entry, (name, code) in zip(found, layout, strict=True):
        if not (isinstance(entry, list) and len(entry) == 3 and entry[:2] == [name, code]):
            return None
        count = entry[2]
        if type(count) is not int or count < 0:
            return None
        counts.append(count)
    return counts


def load_table(dirs: Sequence[Path], table: str, layout: Layout) -> Sections | None:
    """The sections of the first valid file of `table` in `dirs`; None if there is none."""
    for directory in dirs:
        try:
            with open(directory / file_name(table), "rb") as stream:
                if os.fstat(stream.fileno()).st_size > MAX_FILE_BYTES:
                    continue
                data = stream.read()
        except OSError:
            continue
        sections = decode(data, table, layout)
        if sections is not None:
            return sections
    return None


def write_table(
    directory: Path,
    table: str,
    layout: Layout,
    make: Callable[[], Sections],
    *,
    parents: bool = True,
) -> Path:
    """Write `table` atomically into `directory`, made if missing (with its parents only if
    `parents`); raises OSError (ValueError or OverflowError for sections that do not fit).

    The temporary file is opened before `make` runs, so a directory that cannot be written
    costs nothing. Files are readable by everyone: bots may run as users of their own.
    """
    if not directory.is_dir():
        directory.mkdir(parents=parents, exist_ok=True)
        # Only the leaf's own mode matters to a sandboxed bot (its parents are recreated open).
        with contextlib.suppress(OSError):
            directory.chmod(0o755)
    final = directory / file_name(table)
    fd, temporary = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(encode(table, make(), layout))
        # No fsync: a file cut short by a crash fails its checksum and is rebuilt.
        os.chmod(temporary, 0o644)
        os.replace(temporary, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return final


def store_table(
    directory: Path, table: str, layout: Layout, make: Callable[[], Sections]
) -> Path | None:
    """A bot's `write_table`: best effort, None (silently) when it cannot be written.

    It makes the cache directory but never its parents: a missing parent means a `HOME` that
    is not a person's (the scratch one the referee gives a bot), where a table would be lost.
    """
    try:
        return write_table(directory, table, layout, make, parents=False)
    except (OSError, ValueError, OverflowError):
        return None


# -- the tables of the games -----------------------------------------------------------------------


def _valid_values(values: array[int]) -> bool:
    return not values.tobytes().translate(None, VALID_VALUES)


def l_game_sections(table: l_game.Table) -> Sections:
    return {"values": array("B", table.values), "distances": array("B", table.distances)}


def l_game_from(sections: Sections) -> l_game.Table | None:
    values, distances = sections["values"], sections["distances"]
    if len(values) != l_game.INDICES or len(distances) != l_game.INDICES:
        return None
    if not _valid_values(values):
        return None
    return l_game.Table(values.tobytes(), distances.tobytes())


def alak_sections(solution: alak.Solution) -> Sections:
    """Rows in increasing key order, which is what lets a reader find keys by bisection."""
    keys = sorted(solution.index)  # plain ints sort several times faster than (key, row) pairs
    rows = list(map(solution.index.__getitem__, keys))
    return {
        "keys": array("q", keys),
        "values": array("B", [solution.values[row] for row in rows]),
        "plies": array("H", [solution.plies[row] for row in rows]),
    }


def alak_from(size: int, sections: Sections) -> alak.Solution | None:
    keys, values, plies = sections["keys"], sections["values"], sections["plies"]
    if not len(keys) == len(values) == len(plies) or not _valid_values(values):
        return None
    return alak.Solution(size, alak.SortedKeys(keys), values.tobytes(), plies)


def load_l_game(dirs: Sequence[Path]) -> l_game.Table | None:
    sections = load_table(dirs, L_GAME_TABLE, L_GAME_LAYOUT)
    return None if sections is None else l_game_from(sections)


def store_l_game(directory: Path, table: l_game.Table) -> Path | None:
    return store_table(directory, L_GAME_TABLE, L_GAME_LAYOUT, lambda: l_game_sections(table))


def load_alak(dirs: Sequence[Path], size: int) -> alak.Solution | None:
    sections = load_table(dirs, alak_table(size), ALAK_LAYOUT)
    return None if sections is None else alak_from(size, sections)


def store_alak(directory: Path, solution: alak.Solution) -> Path | None:
    table = alak_table(solution.size)
    return store_table(directory, table, ALAK_LAYOUT, lambda: alak_sections(solution))


def load_morris_endgame(dirs: Sequence[Path], limit: int) -> endgame.EndgameTables | None:
    """The Lasker Morris endgame tables of a no-removal `limit` (`bots.morris.endgame`)."""
    if not endgame.buildable(limit):
        return None
    sections = load_table(dirs, endgame.table_name(limit), endgame.LAYOUT)
    if sections is None or len(sections["values"]) != endgame.layout().size:
        return None
    return endgame.EndgameTables(sections["values"].tobytes(), limit)


def _build_morris_endgame(directory: Path, limit: int) -> Path:
    """Solve and write the endgame tables; they need the compiled core (OSError without)."""
    path = native.find([directory]) or native.build(directory)
    library = native.load(path) if path is not None else None
    if library is None:
        raise OSError("the Lasker Morris endgame tables need the compiled core (a C compiler)")
    values = endgame.solve(library, limit)
    return write_table(
        directory, endgame.table_name(limit), endgame.LAYOUT, lambda: {"values": array("B", values)}
    )


# -- building them ahead of the games --------------------------------------------------------------


def tables_for(game: str, options: Any = None) -> list[str]:
    """The tables a bot uses for `game` with its parsed `options` (None: the defaults)."""
    if game == "l-game":
        return [L_GAME_TABLE]
    if game == "alak":
        size = (options if options is not None else get_game(game).parse_options({})).size
        return [alak_table(size)] if size <= MAX_PERFECT_ALAK else []
    if game == "lasker-morris":
        limit = options if options is not None else get_game(game).parse_options({})
        limit = limit.no_capture_limit
        return [MORRIS_CORE] + ([endgame.table_name(limit)] if endgame.buildable(limit) else [])
    return []


def all_tables() -> list[str]:
    sizes = range(MIN_ALAK_SIZE, MAX_PERFECT_ALAK + 1)
    morris = [MORRIS_CORE, endgame.table_name(MORRIS_LIMIT)]
    return [L_GAME_TABLE, *(alak_table(size) for size in sizes), *morris]


def _morris_limit(table: str) -> int:
    return int(table.rsplit("-limit", 1)[1])


def _valid_file(table: str, directory: Path) -> bool:
    if table == L_GAME_TABLE:
        return load_l_game([directory]) is not None
    if table == MORRIS_CORE:
        path = native.find([directory])
        return path is not None and native.load(path) is not None
    if table.startswith("lasker-morris-endgame"):
        return load_morris_endgame([directory], _morris_limit(table)) is not None
    return load_alak([directory], _alak_size(table)) is not None


def _build(table: str, directory: Path) -> Path:
    if table == L_GAME_TABLE:
        return write_table(directory, table, L_GAME_LAYOUT, lambda: l_game_sections(l_game.solve()))
    if table == MORRIS_CORE:
        built = native.build(directory)
        if built is None:
            raise OSError("the Lasker Morris core could not be compiled (no C compiler?)")
        return built
    if table.startswith("lasker-morris-endgame"):
        return _build_morris_endgame(directory, _morris_limit(table))
    size = _alak_size(table)
    return write_table(directory, table, ALAK_LAYOUT, lambda: alak_sections(alak.solve(size)))


def _alak_size(table: str) -> int:
    return int(table.removeprefix("alak-size"))


def ensure_table(table: str, directory: Path | None = None) -> tuple[Path, bool]:
    """Make sure a valid file of `table` (a name from `tables_for`) is in `directory` (default
    `cache_dir()`): its path, and whether it had to be built. Raises OSError when it cannot be
    written."""
    directory = directory or cache_dir()
    if _valid_file(table, directory):
        if table == MORRIS_CORE:
            return native.library_path(directory), False
        return directory / file_name(table), False
    return _build(table, directory), True


def ensure_tables(game: str, options: Any = None, directory: Path | None = None) -> list[Path]:
    """Before a game: the table files a bot playing `game` with `options` will read, built
    where missing or invalid. Raises OSError when one cannot be written."""
    return [ensure_table(table, directory)[0] for table in tables_for(game, options)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.solvers.cache",
        description="Show, or with --build make, the solved tables the perfect bots read.",
    )
    parser.add_argument("--build", action="store_true", help="build missing or invalid tables")
    parser.add_argument("--game", default=None, help="only the tables of this game")
    parser.add_argument("--options", default="{}", help="with --game: its options as JSON")
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help=f"the directory (default {cache_dir()})"
    )
    args = parser.parse_args(argv)
    directory: Path = args.cache_dir or cache_dir()
    try:
        tables = all_tables()
        if args.game is not None:
            game = get_game(args.game)
            tables = tables_for(game.name, game.parse_options(json.loads(args.options)))
    except (UnknownGame, ValueError) as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    print(f"cache directory: {directory}")
    return _report(tables, directory, args.build)


def _report(tables: list[str], directory: Path, build: bool) -> int:
    missing = 0
    for table in tables:
        path = (
            native.library_path(directory) if table == MORRIS_CORE else directory / file_name(table)
        )
        started = time.perf_counter()
        if build:
            try:
                path, built = ensure_table(table, directory)
            except OSError as exc:
                print(f"{table}: cannot write: {exc}", file=sys.stderr)
                return 1
            state = "built" if built else "valid"
        else:
            state = "valid" if _valid_file(table, directory) else "missing or invalid"
            missing += state != "valid"
        seconds = time.perf_counter() - started
        print(f"{path.name}: {state} ({_size(path)}, {seconds:.2f} s)")
    return 1 if missing else 0


def _size(path: Path) -> str:
    try:
        return f"{path.stat().st_size / 1e6:.2f} MB"
    except OSError:
        return "no file"


if __name__ == "__main__":
    sys.exit(main())

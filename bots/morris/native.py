"""The compiled core: built once per machine into the table cache, loaded with ctypes.

`core.c` and `endgame.c` are compiled by the C compiler found (`$CC`, `cc` or `gcc`) into a
shared library named by the hash of the sources and flags (`engines/morris-<hash>.so` in the
cache folder), so a changed source is compiled again; building takes about a second. The
referee builds it before a game (`python -m bots.solvers.cache --build --game lasker-morris`),
because a contained bot sees the cache read-only; a bot that finds none plays with the Python
core and, where it may write the cache, compiles the library in the background after its
first move, switching over once it is there.

A library is loaded only when it and its folder belong to this user or to root and nobody else
may write to them: code loaded into the bot must be the project's own.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from array import array
from pathlib import Path

from bots.morris import board
from bots.morris.evaluation import TERMS, WEIGHTS
from bots.morris.pysearch import RootResult

HERE = Path(__file__).parent
SOURCES = (HERE / "core.c", HERE / "endgame.c")
HEADERS = (HERE / "board.h",)
FLAGS = ("-O2", "-shared", "-fPIC", "-std=c11", "-D_POSIX_C_SOURCE=200809L")
FOLDER = "engines"
COMPILE_TIMEOUT = 120.0


def library_name() -> str:
    digest = hashlib.sha256()
    for source in (*SOURCES, *HEADERS):
        digest.update(source.read_bytes())
    digest.update(" ".join(FLAGS).encode())
    return f"morris-{digest.hexdigest()[:16]}.so"


def library_path(directory: Path) -> Path:
    return directory / FOLDER / library_name()


def trusted(path: Path) -> bool:
    """Whether `path` belongs to us or to root and only its owner may write to it."""
    try:
        info = path.stat()
    except OSError:
        return False
    owner_ok = info.st_uid in (os.geteuid(), 0)
    return owner_ok and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def compiler() -> str | None:
    return shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")


def compile_command(output: Path) -> list[str] | None:
    found = compiler()
    if found is None:
        return None
    return [found, *FLAGS, "-o", str(output), *map(str, SOURCES)]


def build(directory: Path) -> Path | None:
    """Compile the library into `directory`'s engine folder; its path, or None on failure. The
    file appears whole (compiled beside it, then renamed)."""
    target = library_path(directory)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        if not trusted(target.parent):
            return None
        handle, temporary = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=target.parent)
        os.close(handle)
        try:
            command = compile_command(Path(temporary))
            if command is None:
                return None
            done = subprocess.run(
                command, capture_output=True, timeout=COMPILE_TIMEOUT, check=False
            )
            if done.returncode != 0:
                return None
            os.chmod(temporary, 0o755)
            os.replace(temporary, target)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except (OSError, subprocess.SubprocessError):
        return None
    return target


class BackgroundBuild:
    """A bot's compile into its cache folder, off its clock: the compiler writes a temporary
    file of its own (bots building at once never share one), renamed into place when done."""

    def __init__(self, directory: Path, process: subprocess.Popen[bytes], temporary: Path):
        self.directory, self.process, self.temporary = directory, process, temporary

    @classmethod
    def start(cls, directory: Path) -> BackgroundBuild | None:
        target = library_path(directory)
        try:
            target.parent.mkdir(exist_ok=True, mode=0o755)
            if not trusted(target.parent) or not os.access(target.parent, os.W_OK):
                return None
            handle, name = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=target.parent)
            os.close(handle)
            command = compile_command(Path(name))
            if command is None:
                os.unlink(name)
                return None
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        except OSError:
            return None
        return cls(directory, process, Path(name))

    def wait(self, timeout: float) -> None:
        self.process.wait(timeout=timeout)

    def finish(self) -> bool | None:
        """None while the compiler runs; then whether the library is in place."""
        if self.process.poll() is None:
            return None
        try:
            if self.process.returncode != 0:
                return False
            os.chmod(self.temporary, 0o755)
            os.replace(self.temporary, library_path(self.directory))
        except OSError:
            return False
        finally:
            self.temporary.unlink(missing_ok=True)
        return True


def find(dirs: list[Path]) -> Path | None:
    """The first trusted compiled library of the current sources in `dirs`."""
    for directory in dirs:
        path = library_path(directory)
        if trusted(path) and trusted(path.parent):
            return path
    return None


@functools.cache
def load(path: Path) -> ctypes.CDLL | None:
    """The library with its tables set, or None when it cannot be loaded."""
    try:
        library = ctypes.CDLL(str(path))
    except OSError:
        return None
    _declare(library)
    keys = [array("Q", row) for row in (*board.OWN_KEYS, *board.OPP_KEYS)]
    library.morris_tables(
        _buffer("I", board.NEIGHBOURS),
        _buffer("I", board.MILL_MASKS),
        _buffer("Q", [k for row in keys[:3] for k in row]),
        _buffer("Q", [k for row in keys[3:] for k in row]),
        _buffer("Q", board.OWN_HAND_KEYS),
        _buffer("Q", board.OPP_HAND_KEYS),
        _buffer("Q", board.REMAINING_KEYS),
        ctypes.c_uint64(board.PARITY_KEY),
    )
    return library


def _buffer(code: str, values: object) -> ctypes.Array[ctypes.c_char]:
    data = array(code, values)  # type: ignore[call-overload]
    buffer: ctypes.Array[ctypes.c_char]
    buffer = (ctypes.c_char * (len(data) * data.itemsize)).from_buffer_copy(data.tobytes())
    return buffer


def _declare(lib: ctypes.CDLL) -> None:
    u32, i32, ptr = ctypes.c_uint32, ctypes.c_int, ctypes.c_void_p
    lib.morris_tables.restype = None
    lib.morris_new.restype = ptr
    lib.morris_new.argtypes = [i32, i32, i32, ptr, i32]
    lib.morris_free.argtypes = [ptr]
    lib.morris_set_endgame.argtypes = [ptr, ptr]
    lib.morris_set_root.argtypes = [ptr, u32, u32, i32, i32, i32, ptr, i32]
    lib.morris_search_root.argtypes = [ptr, ptr, i32, i32, i32, i32, ctypes.c_double, ptr]
    lib.morris_search_root.restype = None
    lib.morris_clear.argtypes = [ptr]
    lib.morris_age.argtypes = [ptr]
    lib.morris_generate.argtypes = [u32, u32, i32, i32, i32, ptr]
    lib.morris_evaluate.argtypes = [ptr, u32, u32, i32, i32, i32]
    lib.morris_features.argtypes = [u32, u32, i32, i32, i32, i32, ptr, ptr]


class NativeCore:
    """`PythonCore`'s interface over the compiled library."""

    def __init__(
        self,
        library: ctypes.CDLL,
        limit: int,
        repetition: int,
        table_bits: int = 22,
        weights: tuple[tuple[int, ...], ...] = WEIGHTS,
        contempt: int = 0,
    ) -> None:
        self.lib = library
        self.limit = limit
        flat = array("i", [w for row in weights for w in row])
        assert len(flat) == 2 * len(TERMS)
        handle = library.morris_new(limit, repetition, table_bits, flat.buffer_info()[0], contempt)
        if not handle:
            raise MemoryError("the search core could not allocate its table")
        self.handle: ctypes.c_void_p | None = ctypes.c_void_p(handle)  # None once freed
        self.endgame: object = None  # kept alive while the core points into it

    def __del__(self) -> None:
        handle = getattr(self, "handle", None)
        if handle is not None:
            self.lib.morris_free(handle)
            self.handle = None

    def set_endgame(self, tables: object, address: int) -> None:
        self.endgame = tables
        self.lib.morris_set_endgame(self.handle, address)

    def set_root(self, pos: board.Position, history: list[int]) -> None:
        keys = array("Q", history)
        address = keys.buffer_info()[0] if history else None
        if not self.lib.morris_set_root(self.handle, *pos, address, len(history)):
            raise MemoryError("the search core could not grow its stack")

    def search_root(
        self, moves: list[int], depth: int, alpha: int, beta: int, seconds: float
    ) -> RootResult:
        given = array("i", moves)
        out = array("q", [0] * 5)
        seconds = min(seconds, 1e9)
        self.lib.morris_search_root(
            self.handle,
            given.buffer_info()[0],
            len(moves),
            depth,
            alpha,
            beta,
            seconds,
            out.buffer_info()[0],
        )
        return RootResult(out[0], out[1], out[2], bool(out[3]), out[4])

    def clear(self) -> None:
        self.lib.morris_clear(self.handle)

    def age(self) -> None:
        self.lib.morris_age(self.handle)

    def generate(self, pos: board.Position) -> list[int]:
        out = array("i", [0] * 1024)
        count = self.lib.morris_generate(*pos, out.buffer_info()[0])
        return list(out[:count])

    def evaluate(self, pos: board.Position) -> int:
        return int(self.lib.morris_evaluate(self.handle, *pos))

"""Exact tables of the small Lasker Morris endings, under the course's no-removal rule.

Every position with both hands empty and 3 to `MAX_STONES` stones on each side is solved for one
no-removal limit (20 in the course) by `endgame.c` (see its header for the method and the byte
values): win, loss or draw, and the distance d, the fewest plies left before the no-removal draw
with which the result is forced, as chess's DTZ tables count moves to the fifty-move rule. With
c plies played since the last removal, the position is decided when d <= limit - c, else drawn.

Positions are stored once per symmetry class of the board: its 16 symmetries (the square's 8,
each with or without swapping the inner and outer squares) are found here from the points'
coordinates and checked against the rules' adjacency and mills.

The tables are built by the compiled core (about 9 s) and cached like the perfect bots' tables
(`bots.solvers.cache`); building needs the C compiler, probing works in either core.
"""

from __future__ import annotations

import ctypes
import functools
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from math import comb

from bots.morris import native
from bots.morris.board import COUNT, MIN_STONES, Position
from protocols.lasker_morris.rules import ADJACENT, MILLS, POINTS

MAX_STONES = 4
LAYOUT = (("values", "B"),)  # the cache file's sections (bots.solvers.cache)
LOSS = 128


def table_name(limit: int) -> str:
    return f"lasker-morris-endgame{MAX_STONES}-limit{limit}"


def buildable(limit: int) -> bool:
    """Tables exist for limits 1..127 (a distance is one byte); 0 (no rule) has none."""
    return 1 <= limit <= 127


# -- the board's symmetries -------------------------------------------------------------------


def _square_maps() -> list[dict[str, str]]:
    def name(x: int, y: int) -> str:
        return f"{'abcdefg'[x]}{y + 1}"

    turns: list[Callable[[int, int], tuple[int, int]]] = [
        lambda x, y: (x, y),
        lambda x, y: (6 - x, y),
        lambda x, y: (x, 6 - y),
        lambda x, y: (6 - x, 6 - y),
        lambda x, y: (y, x),
        lambda x, y: (6 - y, x),
        lambda x, y: (y, 6 - x),
        lambda x, y: (6 - y, 6 - x),
    ]
    maps = []
    for turn in turns:
        for swap in (False, True):
            mapping = {}
            for p in POINTS:
                x, y = "abcdefg".index(p[0]), int(p[1]) - 1
                if swap:  # the outer square becomes the inner one and the other way round
                    dx, dy = x - 3, y - 3
                    ring = max(abs(dx), abs(dy))
                    factor = {1: 3, 2: 1, 3: 1 / 3}[ring]
                    x, y = 3 + round(dx * factor), 3 + round(dy * factor)
                mapping[p] = name(*turn(x, y))
            maps.append(mapping)
    return maps


@functools.cache
def symmetries() -> tuple[tuple[int, ...], ...]:
    """The 16 symmetries as point permutations (index i goes to index perm[i]), identity first;
    each maps neighbours to neighbours and mills to mills."""
    index = {p: i for i, p in enumerate(POINTS)}
    found = []
    mills = {frozenset(m) for m in MILLS}
    for mapping in _square_maps():
        for p, q in mapping.items():
            if {mapping[n] for n in ADJACENT[p]} != set(ADJACENT[q]):
                raise AssertionError(f"a symmetry breaks the adjacency of {p}")
        if {frozenset(mapping[p] for p in m) for m in mills} != mills:
            raise AssertionError("a symmetry breaks the mills")
        found.append(tuple(index[mapping[p]] for p in POINTS))
    return tuple(found)


@functools.cache
def _byte_images() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per symmetry and byte of a mask: the image of each of its 256 values."""
    tables = []
    for perm in symmetries():
        rows = []
        for byte in range(3):
            rows.append(
                tuple(
                    sum(1 << perm[8 * byte + i] for i in range(8) if value >> i & 1)
                    for value in range(256)
                )
            )
        tables.append(tuple(rows))
    return tuple(tables)


def image(s: int, mask: int) -> int:
    rows = _byte_images()[s]
    return rows[0][mask & 255] | rows[1][mask >> 8 & 255] | rows[2][mask >> 16]


def colex(mask: int) -> int:
    """The rank of a set of points among the sets of its size (colexicographic order)."""
    rank, i = 0, 1
    while mask:
        low = mask & -mask
        rank += comb(low.bit_length() - 1, i)
        mask ^= low
        i += 1
    return rank


# -- the layout ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each class lives in the values: per own stone count, the least image of every own
    set (its index among those, and the symmetries reaching it), and per class its offset."""

    reps: dict[int, list[int]]
    own_rep: dict[int, array[int]]
    own_syms: dict[int, array[int]]
    offsets: dict[tuple[int, int], int]
    size: int


def _sets(size: int) -> list[int]:
    """Every set of `size` points, in colex order."""
    found = []
    mask = (1 << size) - 1
    while mask < 1 << COUNT:
        found.append(mask)
        low = mask & -mask
        ripple = mask + low
        mask = ripple | ((mask ^ ripple) // low) >> 2
    return found


@functools.cache
def layout() -> Layout:
    reps: dict[int, list[int]] = {}
    own_rep: dict[int, array[int]] = {}
    own_syms: dict[int, array[int]] = {}
    for a in range(MIN_STONES, MAX_STONES + 1):
        least, syms = [], []
        for mask in _sets(a):
            images = [image(s, mask) for s in range(len(symmetries()))]
            low = min(images)
            least.append(low)
            syms.append(sum(1 << s for s, m in enumerate(images) if m == low))
        reps[a] = sorted(set(least))
        position = {m: i for i, m in enumerate(reps[a])}
        own_rep[a] = array("i", [position[m] for m in least])
        own_syms[a] = array("H", syms)
    offsets, size = {}, 0
    for a in range(MIN_STONES, MAX_STONES + 1):
        for b in range(MIN_STONES, MAX_STONES + 1):
            offsets[(a, b)] = size
            size += len(reps[a]) * comb(COUNT - a, b)
    return Layout(reps, own_rep, own_syms, offsets, size)


def index_of(own: int, opp: int) -> int:
    """The entry of a position (endgame.c's `index_of`)."""
    lay = layout()
    a, b = own.bit_count(), opp.bit_count()
    own_rank = colex(own)
    rep_index, syms = lay.own_rep[a][own_rank], lay.own_syms[a][own_rank]
    rep = lay.reps[a][rep_index]
    least = min(image(s, opp) for s in range(len(symmetries())) if syms >> s & 1)
    rank, i = 0, 1
    while least:
        low = least & -least
        p = low.bit_length() - 1
        rank += comb(p - (rep & (low - 1)).bit_count(), i)
        least ^= low
        i += 1
    return lay.offsets[(a, b)] + rep_index * comb(COUNT - a, b) + rank


# -- tables -------------------------------------------------------------------------------------


class EndgameTables:
    """The solved values of one limit, probed by either core."""

    def __init__(self, values: bytes | bytearray, limit: int) -> None:
        self.values = values
        self.limit = limit

    def probe(self, pos: Position) -> int:
        """+d (the side to move wins), -d (loses), or 0 (a draw, or not in the tables); `pos`
        must have both hands empty."""
        own, opp, counter = pos[0], pos[1], pos[4]
        a, b = own.bit_count(), opp.bit_count()
        if not (MIN_STONES <= a <= MAX_STONES and MIN_STONES <= b <= MAX_STONES):
            return 0
        value = self.values[index_of(own, opp)]
        distance = value & 127
        if not value or distance > self.limit - counter:
            return 0
        return -distance if value & LOSS else distance

    def value(self, pos: Position) -> int:
        """The stored byte of a position (for tests and analysis)."""
        return self.values[index_of(pos[0], pos[1])]


class NativeTables:
    """The C view of a values buffer (kept alive with it)."""

    def __init__(self, library: ctypes.CDLL, values: bytearray | bytes) -> None:
        lay = layout()
        stone_counts = range(MIN_STONES, MAX_STONES + 1)
        self._keep = [
            array("I", [v for rows in _byte_images() for row in rows for v in row]),
            array("i", [v for a in stone_counts for v in lay.own_rep[a]]),
            array("H", [v for a in stone_counts for v in lay.own_syms[a]]),
            array("I", [v for a in stone_counts for v in lay.reps[a]]),
            array("i", [len(lay.reps[a]) for a in stone_counts]),
            array("q", [lay.offsets[(a, b)] for a in stone_counts for b in stone_counts]),
        ]
        self.values = values
        buffer = (
            (ctypes.c_char * len(values)).from_buffer(values)
            if isinstance(values, bytearray)
            else ctypes.c_char_p(values)
        )
        self._buffer = buffer
        address = ctypes.cast(buffer, ctypes.c_void_p).value
        self.library = library
        self.handle = library.morris_endgame_new(
            MAX_STONES,
            *(data.buffer_info()[0] for data in self._keep[:4]),
            self._keep[4].buffer_info()[0],
            self._keep[5].buffer_info()[0],
            address,
        )
        if not self.handle:
            raise MemoryError("the endgame tables could not be set up")

    def rep_counts_address(self) -> int:
        return int(self._keep[4].buffer_info()[0])

    def __del__(self) -> None:
        if getattr(self, "handle", None):
            self.library.morris_endgame_free(self.handle)
            self.handle = None


def declare(library: ctypes.CDLL) -> None:
    ptr, i32 = ctypes.c_void_p, ctypes.c_int
    library.morris_endgame_new.restype = ptr
    library.morris_endgame_new.argtypes = [i32, ptr, ptr, ptr, ptr, ptr, ptr, ptr]
    library.morris_endgame_free.argtypes = [ptr]
    library.morris_endgame_build.argtypes = [ptr, i32, ptr]
    library.morris_endgame_probe.argtypes = [ptr, ctypes.c_uint32, ctypes.c_uint32, i32, i32]


def solve(library: ctypes.CDLL, limit: int) -> bytearray:
    """Build the values for `limit` with the compiled builder."""
    declare(library)
    values = bytearray(layout().size)
    tables = NativeTables(library, values)
    if not library.morris_endgame_build(tables.handle, limit, tables.rep_counts_address()):
        raise ValueError(f"no endgame tables for the no-removal limit {limit}")
    return values


def attach(core: object, tables: EndgameTables) -> None:
    """Let a core probe `tables` (a no-op when the limits differ)."""
    if getattr(core, "limit", None) != tables.limit:
        return
    if isinstance(core, native.NativeCore):
        declare(core.lib)
        view = NativeTables(core.lib, tables.values)
        core.set_endgame(view, view.handle)
    else:
        core.probe = tables.probe  # type: ignore[attr-defined]

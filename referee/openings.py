"""Openings: short move lists a pair of games may start from, so that deterministic bots do not
play the same game over and over.

An opening is a list of move lines in the game's notation. It is legal from the start position
and leaves the game undecided. A seeded random opening of K plies is the same for the same seed,
game, options and K; both games of a pair share one opening (`pair_seed`).

A bot is told an opening through the protocol's `position` extension (docs/protocol.md), which
only a bot that has declared it is sent: see docs/openings.md.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocols import get_game
from protocols.base import Game, IllegalMove

# Random openings that end decided are drawn again; after this many tries the game is given up.
_TRIES = 1000


class OpeningError(ValueError):
    """An opening that is illegal, decided, or cannot be drawn."""


def apply_opening(game: Game[Any, Any, Any], state: Any, opening: Sequence[str]) -> Any:
    """The state after playing `opening` from `state`; raises `OpeningError` for a move that is
    illegal, or for a game that ends during (or right after) the opening."""
    return _play(game, state, opening)[0]


def _play(game: Game[Any, Any, Any], state: Any, lines: Sequence[str]) -> tuple[Any, list[str]]:
    """The state after `lines` and their canonical forms, checked as `apply_opening` says."""
    canonical: list[str] = []
    for number, line in enumerate(lines, 1):
        if game.outcome(state) is not None:
            raise OpeningError(f"opening move {number} ({line!r}): the game is already over")
        try:
            move = game.parse_move(state, line)
        except IllegalMove as exc:
            detail = f"opening move {number} ({line!r}) is illegal: {exc.reason}"
            raise OpeningError(detail) from exc
        canonical.append(game.format_move(move))
        state = game.apply(state, move)
    if lines and game.outcome(state) is not None:
        raise OpeningError("the opening decides the game")
    return state, canonical


def canonical_opening(game_name: str, options: Mapping[str, Any] | None, line: str) -> list[str]:
    """One line of an openings file (moves separated by commas or semicolons; a game whose moves
    are single tokens may also separate them by spaces) as canonical move lines, checked legal."""
    game = get_game(game_name)
    state = game.initial_state(game.parse_options(options))
    parts = [p.strip() for p in line.replace(";", ",").split(",")]
    if len(parts) == 1 and _single_token(game, state):
        parts = parts[0].split()
    return _play(game, state, [p for p in parts if p])[1]


def _single_token(game: Game[Any, Any, Any], state: Any) -> bool:
    legal = game.legal_moves(state)
    return bool(legal) and all(" " not in game.format_move(m) for m in legal)


@dataclass(frozen=True)
class Book:
    """A book of openings as read from its file: each opening with the number of the file's
    line it is on (the unit every message and `start` use), and the sha256 of the file's bytes,
    which a run that resumes checks it still plays from."""

    path: Path
    openings: list[list[str]]
    lines: list[int]
    sha256: str

    def first_from_line(self, line: int) -> int:
        """The index of the first opening on line `line` or after it (blank and comment lines
        hold none); `OpeningError` past the last."""
        index = bisect_left(self.lines, line)
        if index == len(self.lines):
            raise OpeningError(
                f"{self.path}: no opening on line {line} or after it (the last is on line "
                f"{self.lines[-1]})"
            )
        return index


def load_book(path: str | Path, game_name: str, options: Mapping[str, Any] | None = None) -> Book:
    """Every opening of a file: one per line; blank lines and lines starting with `#` skipped.
    `OSError` for a file that cannot be read, `OpeningError` (naming the file and the line) for
    one that is not a book."""
    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OpeningError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    openings: list[list[str]] = []
    lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            openings.append(canonical_opening(game_name, options, line))
        except OpeningError as exc:
            raise OpeningError(f"{path}:{number}: {exc}") from exc
        lines.append(number)
    if not openings:
        raise OpeningError(f"{path}: no openings")
    return Book(path, openings, lines, hashlib.sha256(data).hexdigest())


def load_openings(
    path: str | Path, game_name: str, options: Mapping[str, Any] | None = None
) -> list[list[str]]:
    """The openings of a book (`load_book`), without their lines."""
    return load_book(path, game_name, options).openings


def random_opening(
    game_name: str, options: Mapping[str, Any] | None, plies: int, seed: int
) -> list[str]:
    """A legal opening of `plies` moves drawn uniformly move by move with `seed`, after which the
    game is not decided (a draw that ends early is drawn again)."""
    if plies < 0:
        raise OpeningError("an opening cannot have a negative number of plies")
    game = get_game(game_name)
    start = game.initial_state(game.parse_options(options))
    rng = random.Random(f"opening:{game_name}:{plies}:{seed}")
    for _ in range(_TRIES):
        state = start
        moves: list[str] = []
        for _ply in range(plies):
            legal = game.legal_moves(state)
            if game.outcome(state) is not None or not legal:
                break
            move = legal[rng.randrange(len(legal))]
            moves.append(game.format_move(move))
            state = game.apply(state, move)
        if len(moves) == plies and game.outcome(state) is None:
            return moves
    raise OpeningError(f"no undecided opening of {plies} plies found for {game_name}")


def pair_seed(seed: int, pair: int | str) -> int:
    """The opening seed of pair `pair` (a number from 0, or a key naming the pair) of a match or
    tournament with seed `seed`."""
    return random.Random(f"opening-pair:{seed}:{pair}").getrandbits(63)


def opening_for_pair(
    game_name: str,
    options: Mapping[str, Any] | None,
    seed: int,
    pair: int | str,
    *,
    plies: int = 0,
    book: Sequence[Sequence[str]] | None = None,
) -> list[str]:
    """The opening both games of pair `pair` start from: drawn from `book` when given (with the
    seed, so that pairs spread over the book), otherwise a random opening of `plies` moves."""
    if book:
        rng = random.Random(pair_seed(seed, pair))
        return list(book[rng.randrange(len(book))])
    if plies <= 0:
        return []
    return random_opening(game_name, options, plies, pair_seed(seed, pair))

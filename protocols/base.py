"""The Game interface every rule module implements, and the value types shared by all games.

Rule modules are pure: no I/O, no clocks, no randomness. States and moves are immutable values,
so the referee, the bots, `replay` and the web view can all judge moves with the same code.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from protocols.options import GameOptions as GameOptions
    from protocols.options import RepetitionCount as RepetitionCount


class Side(StrEnum):
    """A player's colour; `blue` always moves first."""

    BLUE = "blue"
    ORANGE = "orange"

    @property
    def other(self) -> Side:
        return _OTHER_SIDE[self]


# Looked up, not computed: under Python 3.11 `Side.BLUE` itself goes through the enum
# metaclass's attribute hook (four times the cost of a plain lookup), and the referee asks for
# the other side several times on every move.
_OTHER_SIDE: dict[Side, Side] = {Side.BLUE: Side.ORANGE, Side.ORANGE: Side.BLUE}


class Reason(StrEnum):
    """Every way a game can end, as recorded in a game record.

    The first group are endings by the rules of a game; the second are faults of a bot (the bot
    loses); the last are faults that void the game (nobody is blamed). An ending that belongs to
    one game alone is `GAME_ENDING`, and the game names it in `Outcome.ending` from its own
    `Game.endings`, so a new game never has to add a member here.
    """

    # Rule endings.
    NO_LEGAL_MOVE = "no-legal-move"  # the player to move cannot move and loses
    NO_CAPTURE_LIMIT = "no-capture-limit"  # draw: too many plies without a capture/removal
    REPETITION = "repetition"  # draw: the same position for the n-th time
    PLY_LIMIT = "ply-limit"  # draw: the game's length cap
    GAME_ENDING = "game-ending"  # an ending of the game's own, named by `Outcome.ending`
    # Bot faults: the offending bot loses.
    ILLEGAL_MOVE = "illegal-move"
    BAD_SYNTAX = "bad-syntax"
    TIMEOUT = "timeout"
    CRASH = "crash"  # exited, closed its output, or failed to start
    RESOURCE_LIMIT = "resource-limit"  # hit its memory, process, file size, disk or CPU limit
    LINE_TOO_LONG = "line-too-long"
    BAD_ENCODING = "bad-encoding"
    OUT_OF_TURN = "out-of-turn"
    # Faults that void the game (a tournament replays it).
    REFEREE_ERROR = "referee-error"  # a bug in the referee (its traceback is in the run's log)
    INFRASTRUCTURE = "infrastructure"  # the machine failed us (e.g. fork: out of processes)
    REFEREE_OVERLOAD = "referee-overload"  # a timeout that coincided with referee lag
    INTERRUPTED = "interrupted"  # Ctrl-C or cancellation

    @property
    def is_bot_fault(self) -> bool:
        return self in _BOT_FAULTS

    @classmethod
    def _missing_(cls, value: object) -> Reason | None:
        # A reason under the name older records and stores give it.
        renamed = RENAMED_REASONS.get(value) if isinstance(value, str) else None
        return cls(renamed) if renamed is not None else None

    @property
    def voids_game(self) -> bool:
        return self in _VOIDING


# Reasons renamed since records were first written: read under their new names.
RENAMED_REASONS = {"referee-fault": "referee-error"}
_VOIDING = frozenset(
    {Reason.REFEREE_ERROR, Reason.INFRASTRUCTURE, Reason.REFEREE_OVERLOAD, Reason.INTERRUPTED}
)
_BOT_FAULTS = frozenset(
    {
        Reason.ILLEGAL_MOVE,
        Reason.BAD_SYNTAX,
        Reason.TIMEOUT,
        Reason.CRASH,
        Reason.RESOURCE_LIMIT,
        Reason.LINE_TOO_LONG,
        Reason.BAD_ENCODING,
        Reason.OUT_OF_TURN,
    }
)


def why_ended(reason: Reason, ending: str | None) -> str:
    """What people read after "by": the game's own ending when there is one, else the reason."""
    return ending or reason.value


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended by its rules: `winner` is None for a draw.

    `ending` is the game's own code (one of its `Game.endings`) exactly when `reason` is
    `GAME_ENDING`, e.g. `Outcome(Side.BLUE, Reason.GAME_ENDING, "...", "king-lost")`.
    """

    winner: Side | None
    reason: Reason
    detail: str = ""
    ending: str | None = None

    def __post_init__(self) -> None:
        if (self.reason is Reason.GAME_ENDING) != (self.ending is not None):
            raise ValueError(
                f"reason {self.reason} with ending {self.ending!r}: an ending code "
                "goes with reason game-ending and only with it"
            )

    @property
    def why(self) -> str:
        """What ended the game as people read it ("by king-lost", "by repetition")."""
        return why_ended(self.reason, self.ending)


@dataclass(frozen=True, slots=True)
class Touched:
    """The squares one move touched, as the game's square ids (`Game.squares`), so that every
    view marks the last move the same way.

    `from_`: squares a piece left; `to`: squares a piece arrived on; `removed`: squares whose
    enemy piece the move took away (a capture may also be a `to` square).
    """

    from_: tuple[str, ...] = ()
    to: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


class IllegalMove(Exception):
    """A line that is not a legal move in the position; `reason` is for humans."""

    reason_code: ClassVar[Reason] = Reason.ILLEGAL_MOVE

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadSyntax(IllegalMove):
    """A line that is not a move at all (wrong token count, unknown token, blank line)."""

    reason_code: ClassVar[Reason] = Reason.BAD_SYNTAX


class GameState(Protocol):
    """What every game's state offers the generic code."""

    @property
    def to_move(self) -> Side: ...

    @property
    def ply(self) -> int: ...


S = TypeVar("S", bound=GameState)
M = TypeVar("M")
Opt = TypeVar("Opt", bound="GameOptions")


class Game(abc.ABC, Generic[S, M, Opt]):
    """A two-player game: a small pure state machine plus its wire format.

    `parse_move` turns one received line into a move legal in `state` or raises `BadSyntax` /
    `IllegalMove` with a specific reason; `format_move` gives the canonical line (single spaces).
    `outcome` applies every ending of the rules, in the order the spec gives, to a state; it is
    None while the game goes on.
    """

    name: ClassVar[str]
    # The game's options model (a `GameOptions`). A built-in game names it with
    # `options_model_at`, so that only validating options imports pydantic.
    options_model: ClassVar[type[GameOptions]]
    # The game's own endings (`Reason.GAME_ENDING`): code -> what it means, in one line.
    endings: ClassVar[Mapping[str, str]] = MappingProxyType({})

    @abc.abstractmethod
    def initial_state(self, options: Opt | None = None) -> S: ...

    @abc.abstractmethod
    def legal_moves(self, state: S) -> Sequence[M]: ...

    @abc.abstractmethod
    def parse_move(self, state: S, line: str) -> M: ...

    @abc.abstractmethod
    def apply(self, state: S, move: M) -> S: ...

    @abc.abstractmethod
    def outcome(self, state: S) -> Outcome | None: ...

    @abc.abstractmethod
    def format_move(self, move: M) -> str: ...

    @abc.abstractmethod
    def squares(self, state: S) -> Sequence[str]:
        """The ids of every square of the board, as `touched` names them (and the web views)."""

    @abc.abstractmethod
    def touched(self, state: S, move: M) -> Touched:
        """The squares `move`, legal in `state` (the position before it), touches."""

    @abc.abstractmethod
    def render_text(self, state: S) -> str:
        """A plain-text picture of the position for terminals and logs."""

    def render_final(self, state: S) -> str:
        """The last position of a finished game, as its summary shows it above the verdict
        that says how it ended: nothing about whose move it is (nobody's: the game is over).
        By default `render_text`; the built-in games leave their mover line out."""
        return self.render_text(state)

    @abc.abstractmethod
    def state_json(self, state: S) -> Mapping[str, Any]:
        """A JSON-ready view of the position for the web view and records."""

    def parse_options(self, raw: Mapping[str, Any] | None) -> Opt:
        """Validate raw options (from a CLI, a config or a record) into this game's model."""
        model = self.options_model.model_validate(dict(raw or {}))
        return model  # type: ignore[return-value]


class _ModelAt:
    """A class attribute that imports the options model it names when it is first read."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> type[GameOptions]:
        model: type[GameOptions] = getattr(importlib.import_module(self.module), self.name)
        return model


def options_model_at(module: str, name: str) -> type[GameOptions]:
    """`Game.options_model` as the class `name` of `module`, imported on first use.

    Validating options is the only thing that needs pydantic, and importing it is most of what a
    bot process spends to start; a built-in bot given the default options never reads this.
    """
    return cast("type[GameOptions]", _ModelAt(module, name))


def __getattr__(name: str) -> Any:
    """`GameOptions` and `RepetitionCount`, where plug-in games have always imported them from,
    loaded from `protocols.options` (with pydantic) only when asked for."""
    if name in ("GameOptions", "RepetitionCount"):
        return getattr(importlib.import_module("protocols.options"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def split_tokens(line: str) -> list[str]:
    """The spec's tokenisation: strip, then split on runs of whitespace."""
    return line.split()

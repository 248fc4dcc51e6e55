"""Values that several commands read from their command line in the same way: a bot's command,
game options given as `-o KEY=VALUE`, a game clock given as `TOTAL[+INC]`, which bots declared
the protocol's position extension (`--position-capable p1|p2|both`), the folder the bots'
commands are read from, and the rating model's options (`--anchor NAME=ELO`, `--min-games`...).

Only the standard library here (and the rating model's plain option dataclasses): the
commands' parsers are built before anything heavy loads.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
from pathlib import Path
from typing import Any

from referee.stats.rating_report import DEFAULT_MIN_GAMES, Anchor, RatingOptions


def bot_command(text: str) -> str:
    """A bot's command as given on the command line (`-p1`, `-p2`, `referee check`'s): it is
    split as a shell would split it, so one that is empty or that a shell could not split
    (an unterminated quote) is a usage error, never a game lost by a bot that could not
    start."""
    try:
        words = shlex.split(text)
    except ValueError as exc:  # shlex's own words: "No closing quotation", "No escaped ..."
        reason = str(exc)[:1].lower() + str(exc)[1:]
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot be split into words as a shell would: {reason} (quote each word "
            """that holds spaces, e.g. "python3 'my bot.py'")"""
        ) from None
    if not words:
        raise argparse.ArgumentTypeError(
            'empty: give the command that starts the bot, e.g. "python3 player.py"'
        )
    return text


def command_line_folder() -> Path:
    """Where a bot given on the command line (`play`, `check`, `match`) runs, and what the
    relative paths of its command are read from: the folder the command was run from, as a
    shell would read them. (Built-in bots run elsewhere, whatever this says.)"""
    return Path.cwd().absolute()


def _seconds(text: str, positive: bool) -> float:
    """A number of seconds as typed; ValueError unless finite and above 0 (`positive`) or at
    least 0. Every limit is finite: a bot that never answers must lose, and a record's times
    stay numbers that every JSON reader reads (`inf` is not JSON)."""
    value = float(text)
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(text)
    return value


def seconds_above_zero(text: str) -> float:
    """`-t 2.5` -> 2.5: a time limit, a finite number of seconds above 0."""
    try:
        return _seconds(text, positive=True)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a time limit: {text!r} (a number of seconds above 0, such as 2.5)"
        ) from None


def seconds(text: str) -> float:
    """`--grace 0.5` -> 0.5: extra time, a finite number of seconds, 0 or more."""
    try:
        return _seconds(text, positive=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a number of seconds: {text!r} (0 or more, such as 0.5)"
        ) from None


def parse_clock(text: str) -> tuple[float, float]:
    """`300+2` -> (300.0, 2.0); `300` -> (300.0, 0.0)."""
    total, _, increment = text.partition("+")
    try:
        return _seconds(total, positive=True), _seconds(increment or "0", positive=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a clock: {text!r} (seconds per side, plus seconds per move: e.g. 300+2)"
        ) from None


POSITION_CAPABLE = {"p1": {"p1"}, "p2": {"p2"}, "both": {"p1", "p2"}}


def position_refusal(undeclared: dict[str, str], declared: str | None, without: str) -> str:
    """Why a game from an opening is refused, in the command line's words: the bots of
    `undeclared` ({"p1": name}) have not declared the protocol's position extension; the
    `--position-capable` value that would declare them with those already `declared`, and
    `without`, how to play without an opening."""
    keys = set(undeclared) | POSITION_CAPABLE.get(declared or "", set())
    value = "both" if len(keys) == 2 else next(iter(keys))
    one = len(undeclared) == 1
    return (
        f"{' and '.join(undeclared.values())} {'has' if one else 'have'} not declared the "
        f"protocol's position extension, so {'it' if one else 'they'} cannot start from an "
        f"opening: give --position-capable {value} if {'it reads' if one else 'both read'} "
        f"`position K` and the opening's moves after the colour (docs/protocol.md), or {without}"
    )


def parse_option_values(pairs: list[str]) -> dict[str, Any]:
    """`["size=9", "name=x"]` -> {"size": 9, "name": "x"}: a value is read as JSON, else kept
    as the text it is; ValueError for a pair that is not KEY=VALUE."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"option {pair!r} is not KEY=VALUE")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def parse_anchor(text: str) -> Anchor:
    """`--anchor`: `NAME=ELO` holds that player at ELO, a bare number puts each component's
    mean there, and a bare `NAME` holds that player at 0."""
    name, sep, value = text.rpartition("=")
    if not sep:
        try:
            return Anchor(float(text))
        except ValueError:
            return Anchor(0.0, text)
    try:
        elo = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=ELO") from None
    if not name or not math.isfinite(elo):
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=ELO")
    return Anchor(elo, name)


def add_rating_options(
    parser: argparse.ArgumentParser, *, bootstrap: bool = True, los_matrix: bool = True
) -> None:
    """The rating model's options (docs/ratings.md), alike for every command that rates."""
    group = parser.add_argument_group("ratings (docs/ratings.md)")
    group.add_argument(
        "--anchor",
        type=parse_anchor,
        default=None,
        help="NAME=ELO holds a player there; ELO puts each component's mean there (default 0)",
    )
    group.add_argument(
        "--min-games",
        type=int,
        default=DEFAULT_MIN_GAMES,
        help=f"fewer games: provisional, shown apart and not ranked ({DEFAULT_MIN_GAMES})",
    )
    group.add_argument(
        "--join-components",
        action="store_true",
        help="rate players that never met on one scale, through the prior",
    )
    if los_matrix:
        group.add_argument(
            "--los-matrix", action="store_true", help="the likelihood of superiority of every pair"
        )
    if bootstrap:
        group.add_argument(
            "--bootstrap",
            type=int,
            default=0,
            metavar="N",
            help="intervals from N resamples instead of Laplace's (0)",
        )


def rating_options(args: argparse.Namespace) -> RatingOptions:
    return RatingOptions(
        anchor=args.anchor,
        min_games=max(0, args.min_games),
        join_components=args.join_components,
        los_matrix=getattr(args, "los_matrix", False),
        bootstrap=max(0, getattr(args, "bootstrap", 0) or 0),
    )

"""One game between two programs (`referee play`): what the command line asked for (a
`PlayRequest`), refused before anything starts when it cannot be played (`PlayRefused`), then
played with its listeners (the move log, the live web view), into a `PlayResult`.

Nothing here prints: the command says the refusals and renders the result (referee/views/).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from referee.bot import unwrap_single
from referee.isolation import Isolation
from referee.match import driver
from referee.match.host import Host, run_log
from referee.match.order import GameOrder
from referee.match.recorder import Listener
from referee.match.settings import MatchSettings
from referee.nofollow import ForeignFolder, PlantedLink, check_file
from referee.openings import OpeningError, canonical_opening
from referee.players import OpeningRefused, PlayerSpec, refuse_undeclared, unreachable_player
from referee.records import GameRecord
from referee.tournament.bot_folders import CrowdedFolder, contain_run, layout_refusal


class PlayRefused(Exception):
    """The game cannot be played as asked: the message after `referee: `, saying why."""


@dataclass(frozen=True)
class PlayRequest:
    """One game as a command line asks for it, its arguments already read and checked."""

    game: str  # the game's canonical name
    options: dict[str, Any]  # as given (the record keeps them so), read by the game's types
    players: tuple[PlayerSpec, PlayerSpec]
    settings: MatchSettings
    isolation: Isolation  # the level chosen on this machine for `settings.isolation`
    seed: int
    record_path: Path
    opening: str | None = None  # the opening's moves as given; None: from the start


@dataclass(frozen=True)
class PreparedGame:
    """A game that nothing stops any more: its order, where it is played, its record."""

    order: GameOrder
    host: Host
    record_path: Path


@dataclass(frozen=True)
class PlayResult:
    """How a game went: its record, or None when it was interrupted (the record so far is on
    disk) or refused before any bot started (`refusal`)."""

    record: GameRecord | None
    refusal: str | None = None


@dataclass(frozen=True)
class WebWatch:
    """`referee play --visual`: the live web view, served before the game and kept up after it
    until Ctrl-C; `on_url` is told its address, `on_finished` the record once the game ends."""

    host: str
    port: int
    on_url: Callable[[str], None]
    on_finished: Callable[[GameRecord], None]


def prepare_game(request: PlayRequest) -> PreparedGame:
    """The order and the host of the game `request` asks for; `PlayRefused` when one bot's
    folder lies inside the other's (or its command names what lies there), an opening does
    not fit, a player cannot be reached under its isolation, or the record's way holds a
    planted link."""
    players = request.players
    # One bot's folder inside the other's (the inner would be hidden from itself and lose by
    # crash), or a command naming what lies in the other's folder: refused as `match` and
    # tournaments refuse it, before anything is written.
    if refused := layout_refusal(players):
        raise PlayRefused(refused)
    # Each kept from the other's files, and records; a referee error's log by the record.
    # The record being written is hidden by its own path too: its folder may be one the bots
    # are shown (the one they run in, a bot's own), which is not hidden from them whole.
    record = request.record_path.absolute()
    try:
        isolation = contain_run(request.isolation, players).hiding_unless_own(record.parent)
    except CrowdedFolder as exc:  # more records where the bots run than can be hidden
        raise PlayRefused(str(exc)) from None
    isolation = isolation.hiding(record)
    host = Host(isolation, run_log(request.record_path.parent))
    try:
        opening: list[str] = []
        if request.opening is not None:
            opening = canonical_opening(request.game, request.options, request.opening)
        order = GameOrder(
            game=request.game,
            options=request.options,
            players=players,
            settings=request.settings,
            seed=request.seed,
            opening=tuple(opening),
        )
        refuse_undeclared(order.players, order.opening)
    except (OpeningError, OpeningRefused) as exc:
        raise PlayRefused(f"--opening: {exc}") from None
    if refused := unreachable_player(players, isolation):  # the path and the fix
        raise PlayRefused(refused)
    try:
        check_file(request.record_path)  # a planted link, refused before anything starts
    except ForeignFolder as exc:
        elsewhere = "--record FILE writes it elsewhere"
        raise PlayRefused(f"cannot write the record: {exc}; {elsewhere}") from None
    except PlantedLink as exc:
        raise PlayRefused(f"cannot write the record: {exc}") from None
    return PreparedGame(order, host, request.record_path)


def play_game(
    game: PreparedGame, listener: Listener | None = None, web: WebWatch | None = None
) -> PlayResult:
    """Play `game` in this process, its record's lines told to `listener` as they are written
    (and to the live view, with `web`). Ctrl-C ends it as interrupted. A `WebServerError` or a
    ValueError says the web view could not be served (before the game starts)."""
    if web is not None:
        return _play_watched(game, listener, web)
    try:
        record = trio.run(
            lambda: driver.play(
                game.order, game.host, record_path=game.record_path, listener=listener
            )
        )
    except KeyboardInterrupt:
        return PlayResult(None)
    except PlantedLink as exc:  # planted since it was checked: raised before any bot starts
        return PlayResult(None, f"cannot write the record: {exc}")
    return PlayResult(record)


def _play_watched(game: PreparedGame, listener: Listener | None, web: WebWatch) -> PlayResult:
    """The game with its live view, then the view stays up until Ctrl-C."""
    # Deferred: the web stack (starlette, hypercorn) loads only for a watched game.
    from referee.web.live import chain
    from referee.web.server import check_can_bind
    from referee.web.watch import play_watched

    async def play(live: Listener) -> GameRecord:
        lines = chain(listener, live)
        return await driver.play(
            game.order, game.host, record_path=game.record_path, listener=lines
        )

    check_can_bind(web.host, web.port)  # before any game starts (the port is checked)
    record_path = game.record_path
    try:
        watched = trio.run(
            lambda: play_watched(
                play,
                record=record_path,
                port=web.port,
                host=web.host,
                folders=[record_path.parent],
                title=record_path.stem,
                on_url=web.on_url,
                on_finished=web.on_finished,
            )
        )
    except BaseExceptionGroup as group:  # the record refused, from inside the view's nursery
        if not isinstance(planted := unwrap_single(group), PlantedLink):
            raise
        return PlayResult(None, f"cannot write the record: {planted}")
    return PlayResult(watched.record)

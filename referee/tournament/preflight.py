"""Before a tournament's first game: start every bot once, so that a bot that cannot start (a typo
in its command, a missing library) is named at once instead of silently losing every game.

Each bot is started exactly as in a game (same isolation, limits and folder), told it plays blue,
and given the time a first move of a game has (its clock's: start-up allowance, move limit or
game clock, grace) to answer with one line. In a tournament that starts its games from
openings, a bot that has declared the `position` extension is told what a game would tell it
(docs/protocol.md): the colour on move after one of the tournament's openings, `position K` and
its moves; told only its colour, it would wait for those lines, and the check for the whole
first move's time.

What it answers is not judged: a bot that answers, or that is merely slow, can start. A bot that
cannot be started, exits or closes its output before answering cannot, and the verdict says why
(with its last words on stderr). A machine that fails to start a bot says nothing about the bot:
that is reported apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import trio

from protocols.base import Reason, Side
from referee.bot import BotInfrastructureError, BotUnreachable
from referee.exchange import BotFault
from referee.isolation import Isolation, ran_as_root_warning
from referee.match.clock import first_move_budget
from referee.match.judge import first_lines
from referee.match.player import open_bot_player
from referee.match.settings import MatchSettings
from referee.players import POSITION, PlayerSpec

NOT_STARTED = "could not start: "  # said once, by the report: "NAME: cannot start: ..."


@dataclass(frozen=True)
class StartCheck:
    """How one bot's trial start went: `problem` is None when it started."""

    name: str
    problem: str | None = None
    machine_failed: bool = False  # the machine, not the bot, failed to start it
    warning: str | None = None  # it starts, but runs as root (see `ran_as_root_warning`)
    unreachable: bool = False  # its own user cannot reach its files here: the run must not start

    @property
    def broken(self) -> bool:
        return self.problem is not None and not self.machine_failed


async def check_bots(
    players: Sequence[PlayerSpec],
    settings: MatchSettings,
    isolation: Isolation,
    concurrency: int,
    opening: Sequence[str] = (),
) -> list[StartCheck]:
    """Start each bot once, `concurrency` at a time, as in a game from `opening` (none: from
    the start); the checks in the players' order."""
    limiter = trio.CapacityLimiter(max(1, concurrency))
    found: dict[str, StartCheck] = {}

    async def one(player: PlayerSpec) -> None:
        async with limiter:
            found[player.name] = await check_bot(player, settings, isolation, opening)

    async with trio.open_nursery() as nursery:
        for player in players:
            nursery.start_soon(one, player)
    return [found[p.name] for p in players]


def trial_lines(player: PlayerSpec, opening: Sequence[str]) -> list[str]:
    """What a game tells `player` before its first move, as the side on move: blue from the
    start, and from an opening (to a bot that declared `position`) the colour on move after it
    (blue after an even count, as the sides alternate in every game)."""
    if not opening or not player.understands(POSITION):
        return first_lines(Side.BLUE, ())
    return first_lines(Side.BLUE if len(opening) % 2 == 0 else Side.ORANGE, opening)


async def check_bot(
    player: PlayerSpec, settings: MatchSettings, isolation: Isolation, opening: Sequence[str] = ()
) -> StartCheck:
    """Start one bot as the side on move and wait for its first line (or its failure)."""
    budget = first_move_budget(settings)  # the time a first move of a game has
    trial = settings.model_copy(update={"exit_grace": 0.2, "freeze": False})
    warning = None
    try:
        async with open_bot_player(player, player, trial, isolation, None) as bot:
            level, note = bot.isolation_level, bot.isolation_note
            warning = ran_as_root_warning(player.name, isolation, level, note)
            *told, asked = trial_lines(player, opening)
            if told:  # one write, as in a game: the bot finds the rest after its colour
                await bot.send_line("\n".join(told))
            await bot.ask(asked, trio.current_time() + budget)
    except BotUnreachable as exc:
        return StartCheck(player.name, exc.detail, True, unreachable=True)
    except BotInfrastructureError as exc:
        return StartCheck(player.name, f"the machine could not start it: {exc.detail}", True)
    except BotFault as fault:
        if fault.reason in (Reason.TIMEOUT, Reason.OUT_OF_TURN):
            # It runs: slow or chatty is for the games to judge.
            return StartCheck(player.name, warning=warning)
        return StartCheck(player.name, fault.detail.removeprefix(NOT_STARTED))
    return StartCheck(player.name, warning=warning)

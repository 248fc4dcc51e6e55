"""The server's part in the deadline: wait for it, pin the versions, play the final, work out
the grades; started again with the server, it goes on from where it stopped.

At the deadline uploads are closed already (`deadline.uploads_open` reads the clock) and the
ladder starts no game (`deadline.ladder_open`). The task then waits, reading the store every
`POLL` seconds, for the versions uploaded in time to end their checks (such a version counts
if it passes) and for the ladder's running games to end, pins the versions (`finalists.pin`),
and plays the final in this process. A server stopped mid-final (Ctrl-C, or killed) plays the
rest when it starts again: the tournament's store knows which games are done. Once the final is
over with no void game, the grades are worked out and kept, hidden until the staff release
them; with void games, or a final that cannot be played, the log says why, and the staff go on
with `referee arena final DIR` or `referee arena grades DIR`. Without a deadline nothing
happens here: the staff pin and play the final with `referee arena final DIR --now`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import trio

from referee.arena.deadline import wait_until
from referee.arena.final import FinalError, log_event, open_final, play_final
from referee.arena.finalists import entries, pin, pinned_at, running_games, waiting_checks
from referee.arena.folder import Arena
from referee.arena.grades import GradesError, computed_at, final_grades, save

POLL = 2.0  # seconds between looks at the store while the final waits
log = logging.getLogger("referee.arena")


async def final_at_deadline(
    arena: Arena,
    clock: Callable[[], datetime],
    *,
    poll: float = POLL,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The deadline's work (see the module docstring), until done or cancelled."""
    task_status.started()
    store = arena.store
    if await store.read(pinned_at) is None:
        at = arena.config.deadline.at
        if at is None:
            return
        await wait_until(clock, at)
        log.info("the deadline has passed: uploads are closed, the ladder starts no new game")
        await settle(arena, poll)
        await store.write(pin, clock(), None)
        log.info("the versions are pinned for the final")
    try:
        loaded = await open_final(arena)
        finished = await play_final(loaded, emit=log_event)
    except FinalError as exc:
        log.error("the final cannot be played: %s", exc)
        return
    if not finished.complete or finished.void:
        log.error(
            "the final ended with %d void games and %d not played: see `referee tournament "
            "results %s --games`; `referee arena final` plays what is left, `referee arena "
            "grades` grades without the void games",
            finished.void, finished.pending, loaded.directory,
        )  # fmt: skip
        return
    if await store.read(computed_at) is None:
        await grade(arena, clock())


async def settle(arena: Arena, poll: float) -> None:
    """Wait until no version uploaded in time is being checked and no ladder game runs."""
    said = False
    while True:
        waiting = await arena.store.read(waiting_checks)
        running = await arena.store.read(running_games)
        if not waiting and not running:
            return
        if not said:
            log.info(
                "the final waits for %d checks of versions uploaded in time and %d ladder games",
                len(waiting), running,
            )  # fmt: skip
            said = True
        await trio.sleep(poll)


async def grade(arena: Arena, now: datetime) -> None:
    """Work out the grades from the final and keep them (hidden until released)."""
    people = await arena.store.read(entries)
    try:
        worked = await trio.to_thread.run_sync(final_grades, arena, people, now)
    except GradesError as exc:
        log.error("the grades cannot be worked out: %s", exc)
        return
    await arena.store.write(save, worked, now, None)
    log.info("the grades of %d students are kept, hidden until released", len(worked.grades))

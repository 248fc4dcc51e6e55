"""The submission worker: takes the versions waiting in the store, one after the other (at most
`[check] concurrency` at once, one per account), and carries each to `active` or `failed`.

It runs in the server's nursery (`server.start_background`). At its start, what a stopped
server left half done is taken again: versions left `building` or `checking` wait once more
(their folder is unpacked afresh), unfinished uploads are swept away, and a store from before
versions kept their content hash gets it (version_hash.py). It looks for waiting
versions every `POLL_SECONDS`; a version's check takes a few seconds of games anyway.

A failure of the referee or the machine (`RefereeFault`, or an error in the referee itself,
logged with its traceback in DIR/arena.log) fails the version with a problem that says so and
that it is not the bot's fault; the account's active version stays active, and the worker goes
on with the next version.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import trio

from referee.arena import versions
from referee.arena.folder import Arena, ArenaPaths, private_folder
from referee.arena.preflight import RefereeFault, check, checks_root, prepare, version_folder
from referee.arena.rows import Version, VersionStatus
from referee.arena.uploads import sweep_incoming
from referee.arena.version_hash import new_hashes, store_hashes, to_rehash
from referee.isolation.levels import IsolationUnavailable
from referee.records import utc_now

POLL_SECONDS = 0.25
REFEREE_FAILED = (
    "The referee could not check this version ({why}): not your bot's fault. The staff can "
    "see why in the server's log; upload it again later."
)
log = logging.getLogger("referee.arena")
Clock = Callable[[], datetime]


async def run_worker(
    arena: Arena,
    *,
    clock: Clock = utc_now,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Check waiting versions until cancelled; started once what was interrupted is requeued."""
    await start_up(arena)
    slots = trio.Semaphore(arena.config.check.concurrency)
    async with trio.open_nursery() as nursery:
        task_status.started()
        while True:
            await slots.acquire()
            version = None
            if await arena.store.read(versions.any_waiting):
                version = await arena.store.write(versions.claim_next)
            if version is None:
                slots.release()
                await trio.sleep(POLL_SECONDS)
                continue
            nursery.start_soon(_then_release, arena, version, clock, slots)


async def _then_release(
    arena: Arena, version: Version, clock: Clock, slots: trio.Semaphore
) -> None:
    try:
        await process(arena, version, clock)
    finally:
        slots.release()


async def start_up(arena: Arena) -> None:
    """What a stopped server left: versions half checked wait again; unfinished uploads go."""
    requeued = await arena.store.write(versions.requeue_interrupted)
    if requeued:
        log.info("%d version(s) interrupted by a stop will be checked again", requeued)
    await trio.to_thread.run_sync(_private_folders, arena.paths)
    await trio.to_thread.run_sync(sweep_incoming, arena.paths.uploads)
    await rehash(arena)


async def rehash(arena: Arena) -> None:
    """A store from before versions kept their content hash gets it, once (version_hash.py)."""
    found = await arena.store.read(to_rehash)
    folders = {version: version_folder(arena.paths, version) for version, _, _ in found}
    hashes = await trio.to_thread.run_sync(new_hashes, found, folders)
    if changed := await arena.store.write(store_hashes, hashes):
        log.info("%d version(s) now carry their content hash, as their games record it", changed)


def _private_folders(paths: ArenaPaths) -> None:
    """The uploads and the check records are the referee's alone: no bot (run without the
    sandbox, as a user of its own) may read another student's code or stderr there."""
    private_folder(paths.uploads)
    private_folder(checks_root(paths))


async def check_next(arena: Arena, clock: Clock = utc_now) -> int | None:
    """Claim the next waiting version and carry it to its end; its id, or None if none waits."""
    version = await arena.store.write(versions.claim_next)
    if version is None:
        return None
    await process(arena, version, clock)
    return version.id


async def process(arena: Arena, version: Version, clock: Clock) -> VersionStatus | None:
    """Build and check one claimed version; the status it ends in (None: the staff changed it
    meanwhile)."""
    try:
        return await _process(arena, version, clock)
    except (RefereeFault, IsolationUnavailable) as exc:
        log.warning("version %d could not be checked: %s", version.id, exc)
        why = str(exc)
    except Exception:
        log.exception("version %d: the referee failed while checking it", version.id)
        why = "an error in the referee"
    problem = REFEREE_FAILED.format(why=why)
    return await arena.store.write(
        versions.finish, version.id, clock(), passed=False, problem=problem
    )


async def _process(arena: Arena, version: Version, clock: Clock) -> VersionStatus | None:
    found = await arena.store.read(versions.entry, version.id)
    assert found is not None  # claimed just now; versions are never deleted
    upload = found.upload
    prepared = await prepare(arena, version.id, upload.sha256, upload.name)
    if prepared.problem is not None or prepared.command is None:
        # The staff see in the log why a version never reached its check (its page says it too).
        first_line = (prepared.problem or "no command").splitlines()[0][:300]
        log.info(
            "version %d (%s v%d): failed: %s",
            version.id,
            found.username,
            version.number,
            first_line,
        )
        return await arena.store.write(
            versions.finish,
            version.id,
            clock(),
            passed=False,
            problem=prepared.problem,
            build_log=prepared.log,
        )
    await arena.store.write(
        versions.built,
        version.id,
        build_log=prepared.log,
        command=prepared.command,
        content_hash=prepared.content_hash or "",
        capabilities=prepared.capabilities,
    )
    checked = await check(arena, version.id, prepared.command)
    status = await arena.store.write(
        versions.finish,
        version.id,
        clock(),
        passed=checked.passed,
        problem=checked.problem,
        check_log=checked.summary.model_dump_json(),
    )
    log.info("version %d (%s v%d): %s", version.id, found.username, version.number, status)
    return status

"""Opening the cluster for `referee tournament run --cluster`: which address (the option, else
the config's `[cluster] address`), the lines to say (given to a callback: the terminal is the
command's), and the session held open for the run (closed, with a `local:N` cluster stopped,
when the run ends however it ends)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, AsyncExitStack

from referee.cluster.address import ClusterAddress, parse_address
from referee.cluster.client import ClusterError, ClusterSession, open_cluster
from referee.tournament.config import ClusterSettings, LoadedConfig
from referee.tournament.roster import Roster

MISSING_EXTRA = (
    "the cluster needs Dask: pip install 'referee[cluster]' here and on every worker "
    "(docs/cluster.md)"
)


async def enter_cluster(
    stack: AsyncExitStack,
    loaded: LoadedConfig,
    roster: Roster,
    text: str,
    say: Callable[[str], None],
    connecting: Callable[[str], AbstractContextManager[object]],
) -> ClusterSession | None:
    """The open cluster session, kept open by `stack`; None (why given to `say`) if it cannot
    be. `connecting(address)` is held while it connects; its workers and the bots it sent are
    given to `say`, a line each."""
    try:
        address: ClusterAddress = parse_address(text)
    except ValueError as exc:
        say(f"referee: --cluster: {exc}")
        return None
    settings = loaded.config.cluster or ClusterSettings()
    try:
        # Deferred: the optional `cluster` extra, asked for only to say plainly when it is missing.
        import distributed  # noqa: F401
    except ImportError:
        say(f"referee: {MISSING_EXTRA}")
        return None
    try:
        with connecting(str(address)):
            session = await stack.enter_async_context(
                open_cluster(loaded, roster, address, settings)
            )
    except (ClusterError, OSError, TimeoutError) as exc:
        say(f"referee: {exc}")
        return None
    workers = session.workers()
    bots = "a shared filesystem" if settings.shared_filesystem else "shipped by content hash"
    say(
        f"cluster: {address}: {workers} worker{'s' * (workers != 1)}, {session.slots()} game "
        f"slots; bots: {bots}; "
        "each worker chooses its isolation level"
    )
    for line in shipping_report(session):
        say(line)
    return session


def shipping_report(session: ClusterSession) -> list[str]:
    """What the opening sent: each bot's content hash and to how many workers."""
    if not session.packs:
        return []
    lines = []
    for seat in sorted(session.seats.values(), key=lambda seat: seat.name):
        if seat.digest is None:
            continue
        workers = sum(sent == seat.digest for _, sent in session.shipped)
        # Counted by the caches it was stored in: the workers of `local:N` share this
        # machine's, so there a bot is sent to 1 worker and the others find it there.
        plural = "s" * (workers != 1)
        what = f"sent to {workers} worker{plural}" if workers else "already held by the workers"
        lines.append(f"bot {seat.name}: {seat.digest[:12]} {what}")
    return lines

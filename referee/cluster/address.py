"""Where the games of a tournament are played: `local:N` (a Dask cluster of N worker processes
started on this machine for the run) or the address of a running Dask scheduler
(`tcp://host:port`, or `host:port`, which means the same)."""

from __future__ import annotations

import re
from dataclasses import dataclass

LOCAL_PREFIX = "local:"
_HOST_PORT = re.compile(
    r"^(?P<scheme>[a-z][a-z0-9+]*://)?(?P<host>\[[0-9a-fA-F:.]+\]|[^:/\s]+):(?P<port>\d+)$"
)
MAX_LOCAL_WORKERS = 256


@dataclass(frozen=True)
class ClusterAddress:
    """A parsed cluster address: `local` workers to start, or a scheduler to connect to."""

    local_workers: int | None = None
    scheduler: str | None = None

    def __str__(self) -> str:
        if self.local_workers is not None:
            return f"{LOCAL_PREFIX}{self.local_workers}"
        assert self.scheduler is not None
        return self.scheduler


def parse_address(text: str) -> ClusterAddress:
    """`local:N` or a scheduler's address; ValueError says what is wrong."""
    text = text.strip()
    if text.startswith(LOCAL_PREFIX):
        count = text[len(LOCAL_PREFIX) :]
        if not count.isdigit() or not 1 <= int(count) <= MAX_LOCAL_WORKERS:
            raise ValueError(
                f"{text!r}: local:N needs a number of workers from 1 to {MAX_LOCAL_WORKERS}"
            )
        return ClusterAddress(local_workers=int(count))
    match = _HOST_PORT.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not a cluster address: use local:N or a scheduler's tcp://HOST:PORT"
        )
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise ValueError(f"{text!r}: the port must be from 1 to 65535")
    scheme = match["scheme"] or "tcp://"
    return ClusterAddress(scheduler=f"{scheme}{match['host']}:{port}")

"""`referee doctor`: what isolation this machine offers for bots, and why (not).

Shows each isolation feature with the reason it is or is not available, the level `auto` picks,
the default resource limits, and then starts a tiny bot at that level to prove it works. Exit
code 0 when the trial bot answered, 1 when it did not.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import trio
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from referee.bot import BotInfrastructureError, open_bot
from referee.commands import EXIT_OK
from referee.exchange import BotFault
from referee.isolation import landlock, syscall_filter
from referee.isolation.levels import (
    FEATURE_ORDER,
    Feature,
    Isolation,
    IsolationSettings,
    IsolationUnavailable,
    choose,
    describe,
    detect,
)
from referee.isolation.limits import Limits
from referee.players import BUILTIN_CWD

EXIT_TRIAL_FAILED = 1
WHAT_IT_GIVES = {
    "sandbox": "own pid namespace, only the system's folders and its own, private /tmp",
    "users": "a user of its own per bot: no signals, /proc or files across bots",
    "cgroup": "memory and process limits on the whole tree, exact CPU, kill all",
}
TRIAL_BOT = "import sys; print('ready ' + sys.stdin.readline().strip(), flush=True)"
OWN_PACKAGES = ("bots", "protocols")  # installed beside `referee`, under these generic names


def register(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace, out: Console, err: Console) -> int:
    detection = detect()
    table = Table(title="Isolation of bots on this machine", show_edge=False)
    for column in ("level", "available", "why", "what it gives"):
        table.add_column(column)
    table.add_row("basic", "yes", "always", "own process group, minimal environment, limits")
    for feature in FEATURE_ORDER:
        check = detection.checks[feature]
        mark = "[green]yes[/green]" if check.available else "[red]no[/red]"
        table.add_row(feature.value, mark, check.reason, WHAT_IT_GIVES[feature.value])
    out.print(table)
    try:
        isolation = choose(IsolationSettings(), detection)
    except IsolationUnavailable as exc:  # a root referee with nothing but root to offer
        out.print(f"[red]auto: {escape(str(exc))}[/red]", highlight=False)
        return EXIT_TRIAL_FAILED
    out.print(f"[bold]auto[/bold] chooses: {describe(isolation).removeprefix('isolation: ')}")
    for line in what_each_bot_gets(isolation):
        out.print(line, highlight=False)
    out.print(f"default limits per bot: {Limits().summary()}")
    shadowed = foreign_packages()
    for name, where in shadowed:
        out.print(
            f"[red]`import {name}` loads {where}, not the referee's own {name} package: "
            f"another distribution installs a package of that name; uninstall it or use a "
            f"virtualenv of the referee's own[/red]",
            highlight=False,
        )
    return trial(isolation, out) or (EXIT_TRIAL_FAILED if shadowed else EXIT_OK)


# What no level closes between two bots that collude (docs/isolation.md, "What remains").
COVERT_CHANNELS = (
    "left open between two colluding bots, at every level: timing (CPU, memory, caches), locks "
    "on and access to the system's shared read-only files (/etc, /usr); the game records show "
    "collusion, no sandbox stops it"
)


def what_each_bot_gets(isolation: Isolation) -> list[str]:
    """What the chosen level gives every bot besides its features: its network, what it shares
    with other bots, its system calls, and what is left of it after a game."""
    root = os.geteuid() == 0
    own = isolation.namespaces_of_its_own
    network = "allowed" if isolation.settings.network else "never" if own else "the machine's"
    lines = [f"network: {network}"]
    if root:
        lines[0] = f"bots run as root: never (unless a run allows it); {lines[0]}"
    if own:
        lines.append(
            "each bot has its own: IPC (SysV, POSIX queues), /tmp, /var/tmp, /dev/shm, "
            "/run/lock, session keyring"
        )
    else:
        lines.append(
            "each bot has its own: session keyring; it shares IPC and /tmp with the referee's "
            "user (no sandbox, not root)"
        )
    lines.append(own_folder(root))
    lines.append(
        f"system calls: filtered at every level ({syscall_filter.machine()}); "
        f"{syscall_filter.summary()}"
    )
    lines.append(COVERT_CHANNELS)
    lines.append(landlock.summary())
    lines.append(f"processes in sight: {processes_in_sight(isolation)}")
    if own:
        lines.append(
            "left after a game: nothing of the bot (no process, kernel key or IPC object, "
            "nothing in /tmp, /var/tmp, /dev/shm, /run/lock)"
        )
    else:
        lines.append("left after a game: no process; what it wrote as the referee's user stays")
    return lines


def own_folder(root: bool) -> str:
    """What a bot may do to its own folder, and what `writable_dir = true` lets it do there."""
    owner = (
        "a bot user id that later games give other bots, who may read or change them"
        if root
        else "the referee's user"
    )
    setid = (
        "; the folder is nosuid and nodev in the sandbox, and after each game the set-user-id "
        "and set-group-id bits of what a bot user id owns there are cleared"
        if root
        else ""
    )
    return (
        "its own folder: read-only to it (writable_dir = false, the default); writable_dir = "
        "true is for trusted bots only: it bounds each file (file_size_mb), not their total nor "
        f"their number (the start check writes there too), and what a bot writes stays, owned by "
        f"{owner}{setid}; a bot can still leave links (to /etc, /root), FIFOs, sockets and files "
        "open to all there, and delete or replace its own program, which voids its later games"
    )


def processes_in_sight(isolation: Isolation) -> str:
    """Which processes of the machine a bot sees in /proc at this level (their command lines
    and CPU time, whatever it may do to them)."""
    if isolation.has(Feature.SANDBOX):
        return "its own only (a pid namespace of its own)"
    if isolation.has(Feature.USERS):
        return "its own only (its /proc shows no other user's processes)"
    return (
        "every process of the machine, with its command line and CPU time (no sandbox and no "
        "user of its own)"
    )


def foreign_packages() -> list[tuple[str, Path]]:
    """The referee's top-level packages with generic names (`bots`, `protocols`) that import
    from somewhere other than beside `referee` itself: another distribution's package of the
    same name, earlier on the path, would be run in their place."""
    home = Path(__file__).resolve().parents[2]  # the folder that holds the `referee` package
    found = []
    for name in OWN_PACKAGES:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        if origin is None or origin.parent.parent != home:
            found.append((name, origin.parent if origin else Path("nowhere")))
    return found


def trial(isolation: Isolation, out: Console) -> int:
    """Start a tiny bot at the chosen level and ask it one line; say why if it ran below it."""

    async def ask() -> str:
        command = f'{sys.executable} -c "{TRIAL_BOT}"'
        start = time.perf_counter()
        async with open_bot(command, cwd=BUILTIN_CWD, isolation=isolation, exit_grace=0.5) as bot:
            answer = await bot.ask("hello", trio.current_time() + 30)
            elapsed = (time.perf_counter() - start) * 1000
            level = bot.confinement.level
            said = f"answered {answer!r} after {elapsed:.0f} ms (level {level}"
            if level != isolation.name:
                said += f", below {isolation.name}: {bot.isolation_note}"
            return said + ")"

    try:
        message = trio.run(ask)
    except (BotFault, BotInfrastructureError) as exc:
        # Escaped: a hint names config tables (`[match.isolation]`), not markup.
        out.print(f"[red]trial bot failed: {escape(str(exc))}[/red]")
        return EXIT_TRIAL_FAILED
    out.print(f"trial bot: {escape(message)}")
    return EXIT_OK

"""`referee tournament new`: find the bots in a folder and write a commented example config.

Each subfolder is one bot, named after the folder; how to start it is found from its layout
(`layouts.py`: a `run.txt` manifest, a Python main, a jar, compiled Java, a Makefile's program,
a lone executable). Python files directly in the folder are bots too, each first moved into a
folder of its own (`give_folders`): a bot runs in its folder and reads what is there, so loose
programs side by side would read each other's code and data. A bot whose command cannot be told
is written commented out, with a note saying what was found and what to add; a bot that must be
built first gets that note above its entry. `describe_bots` gives the same notes, one line per
folder, for the command's output.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from protocols import canonical_name
from referee.players import builtins_playing
from referee.printable import printable
from referee.toml_config.writing import align_comments, toml_string
from referee.tournament.bot_folders import command_problem
from referee.tournament.layouts import guess_command


@dataclass(frozen=True)
class FoundBot:
    name: str
    folder: Path
    command: str | None  # None: could not be told
    note: str | None = None  # what the instructor must do (build it, or write its command)
    example: str | None = None  # with no command: the likeliest one, written commented out


def loose_programs(folder: Path) -> list[Path]:
    """The Python files directly in `folder` that are bots of their own."""
    return [p for p in sorted(folder.glob("*.py")) if p.is_file() and not p.name.startswith("_")]


def give_folders(folder: Path) -> list[tuple[Path, Path]]:
    """Move each loose program of `folder` into a folder of its own, named after it
    (`bots/eve.py` -> `bots/eve/eve.py`); the moves made. A link, or one whose folder name is
    taken, stays where it is (`discover_bots` says so)."""
    moved = []
    for program in loose_programs(folder):
        home = folder / program.stem
        if program.is_symlink() or home.exists() or home.is_symlink():
            continue  # a link would no longer lead where it did
        home.mkdir()
        home.chmod(0o755)  # bots run as users of their own: they must reach their folder
        target = home / program.name
        program.rename(target)
        moved.append((program, target))
    return moved


def discover_bots(folder: Path) -> list[FoundBot]:
    """The bots in `folder`, sorted by name. A loose program still beside them (its folder's
    name was taken) is written commented out: it would run among the other bots' folders."""
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.name.startswith((".", "_")):
            guess = guess_command(entry)
            if guess.command is not None and (refusal := command_problem(guess.command, entry)):
                found.append(FoundBot(entry.name, entry, None, refusal, guess.command))
                continue
            found.append(FoundBot(entry.name, entry, guess.command, guess.note, guess.example))
    found += [
        FoundBot(
            entry.stem,
            folder,
            None,
            f"{entry.name} lies loose beside the bots' folders: move it into a folder of its "
            f"own ({entry.stem}/ is taken, or it is a link), where no other bot's files are",
            f"python3 {entry.name}",
        )
        for entry in loose_programs(folder)
    ]
    return sorted(found, key=lambda bot: bot.name)


def describe_bots(bots: list[FoundBot]) -> list[str]:
    """One line per bot that needs the instructor: "bots/carol: 3 .py files and no main; ..."
    (what a submission named, its folder's name among it, shown with its controls escaped)."""
    return [printable(f"{bot.folder}: {bot.note}") for bot in bots if bot.note is not None]


def _comment(text: str) -> list[str]:
    """`text` as comment lines of at most 100 columns (a line break in it would end a comment,
    and a control character would make the file no TOML: both are written as escapes)."""
    flat = printable(" ".join(text.split()))
    lines = textwrap.wrap(flat, width=98, break_long_words=False, break_on_hyphens=False)
    return ["# " + line for line in lines]


HEAD = """\
# A tournament for `referee tournament run {config}`.
# Results go to the folder in `directory` (default: one named after this file, beside it):
# the store tournament.sqlite and one record per game in games/. Run the same command again after
# Ctrl-C, a crash or a reboot: finished games are kept and the tournament resumes.

name = {name}
game = {game}                # any game `referee games` lists (lasker-morris, alak, ...)
seed = {seed}                      # fixes the schedule: pairings, colours and each game's seed
format = "round-robin"          # or "gauntlet": `challengers` against everybody else
# challengers = ["alice"]       # gauntlet only
games_per_pairing = 2           # every pair plays this many games, colours swapped in turn
# concurrency = 4               # games at once (default: the number of CPU cores)
one_game_per_player = false     # true: no bot plays two games at the same time
max_replays = 3                 # how often a void game (referee or machine failure) is replayed
# directory = "results"

[game_options]                  # the game's options, e.g. no_capture_limit = 20 (defaults if empty)

[time_control]                  # seconds
move_timeout = 5.0              # per move
grace = 0.5                     # tolerated on every move
startup_allowance = 5.0         # extra on each bot's first move (interpreter or JVM start-up)
# clock_total = 300.0           # a game clock per side instead of the per-move limit
# clock_increment = 2.0         # added after each move
overload_threshold = 0.25       # a timeout during referee lag above this is void, not a loss

[match]                         # other settings of every match
exit_grace = 1.0                # seconds a bot may take to exit after END
max_line_bytes = 4096

[match.isolation]               # how untrusted bots are contained (see `referee doctor`)
level = "auto"                  # auto: the strongest this machine offers (sandbox+users+cgroup
                                # where available); or basic, or features joined by +
writable_dir = false            # true: a bot may write in its own folder: for trusted bots
                                # only (each file is bounded, not their total; it may
                                # leave links and replace its own program; see doctor)

[match.limits]                  # per bot; a player's own [players.limits] table overrides them
memory_mb = 1024                # the bot's whole process tree
processes = 512                 # processes and threads
file_size_mb = 64               # largest file it may write
tmp_mb = 64                     # all it may write in its private /tmp and HOME

# One [[players]] table per bot. `command` is split like a shell would (no shell is run) and is
# run in `cwd` (relative to this file); `{{seed}}` in a command becomes each game's seed, and
# `builtin:random` (also {builtins}) runs a built-in bot.
"""


def example_config(bots: list[FoundBot], config_path: Path, name: str, game: str, seed: int) -> str:
    """The text of a commented config for `bots`, to be written at `config_path`."""
    text = HEAD.format(
        config=config_path.name,
        name=toml_string(name),
        game=toml_string(game),
        seed=seed,
        builtins=", ".join(b for b in builtins_playing(canonical_name(game)) if b != "random"),
    )
    base = config_path.resolve().parent
    for bot in bots:
        cwd = os.path.relpath(bot.folder.resolve(), base)
        lines = [
            "[[players]]",
            f"name = {toml_string(bot.name)}",
            f"command = {toml_string(bot.command or bot.example or '...')}",
            f"cwd = {toml_string(cwd)}",
        ]
        if bot.command is None:
            note = bot.note or "no way to start this bot was found"
            todo = f"{bot.folder}: {note} (or check the command below and uncomment it)"
            lines = [*_comment(todo), *("# " + line for line in lines)]
        elif bot.note is not None:
            lines = [*_comment(f"{bot.folder}: {bot.note}"), *lines]
        text += "\n" + "\n".join(lines) + "\n"
    return align_comments(text)

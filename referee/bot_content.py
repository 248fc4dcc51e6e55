"""What a bot is made of, as one SHA-256: the content hash a game's record keeps for each player.

A league (`referee.league`) tells two versions of a bot apart by it: the same name with another
hash is a resubmitted bot. The hash covers what the player's command runs, as it stood when the
tournament started the game:

- the command as configured (before built-ins are expanded and `{seed}` filled in);
- for a built-in bot (`builtin:NAME`), the referee's version too (the bots ship with it);
- every file the command names (`python3 alice.py`: alice.py; `./bot`: bot), found from the
  folder it runs in; a bare program name found on the PATH (`python3`, `java`) is not a file
  of the bot and is left out;
- the whole of the player's own folder (`cwd` in its config), when it has one (a `cwd` it
  shares, `shared_cwd = true` as `referee match` writes, is not its own).

So an edit of the program, of anything in its folder, or of its command line gives a new hash.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

BUILTIN_PREFIX = "builtin:"
_BLOCK = 1 << 20


def folder_hash(folder: Path) -> str:
    """sha256 over every file's relative path and bytes (sorted, `.git` skipped): the same
    folder always gives the same hash, and any change to what was built changes it."""
    digest = hashlib.sha256()
    _add_folder(digest, folder)
    return digest.hexdigest()


def _add_folder(digest: hashlib._Hash, folder: Path) -> None:
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            path = Path(here, name)
            if path.is_symlink() or not path.is_file():
                continue
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            _add_file(digest, path)
            digest.update(b"\0")


def _add_file(digest: hashlib._Hash, path: Path) -> None:
    with path.open("rb") as file:
        for block in iter(lambda: file.read(_BLOCK), b""):
            digest.update(block)


def command_files(command: str, cwd: Path) -> list[Path]:
    """The existing files that `command`'s words name, relative to `cwd` (not the PATH)."""
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: the command will fail to start anyway
        words = command.split()
    found = []
    for index, word in enumerate(words):
        if index == 0 and "/" not in word:
            continue  # a program found on the PATH (python3, java): not the bot's own file
        path = cwd / word
        try:
            if path.is_file():
                found.append(path)
        except OSError:  # a word too long to be a file name
            continue
    return found


def bot_content_hash(command: str, cwd: Path, own_folder: Path | None, version: str) -> str:
    """The content hash of a player: see the module's docstring. `command` as configured,
    `cwd` the folder it runs in, `own_folder` the player's own folder if it has one."""
    digest = hashlib.sha256(b"command\0" + command.strip().encode() + b"\0")
    if command.strip().startswith(BUILTIN_PREFIX):
        digest.update(b"builtin\0" + version.encode() + b"\0")
        return digest.hexdigest()
    for path in command_files(command, cwd):
        digest.update(b"file\0" + os.path.relpath(path, cwd).encode() + b"\0")
        _add_file(digest, path)
    if own_folder is not None and own_folder.is_dir():
        digest.update(b"folder\0")
        _add_folder(digest, own_folder)
    return digest.hexdigest()

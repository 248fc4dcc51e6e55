"""`referee arena submit URL PATH`: a student's upload from the command line, through the
arena's API with their API token (`POST /api/versions`), and, with `--wait`, the result of its
check as the version's page shows it (`GET /api/versions/ID`, asked every second).

PATH is a file, sent as it is, or a folder, packed here into a .tar.gz of its files (links
that stay inside it are packed as the files they lead to) without what a student does not
mean to send (`LEFT_OUT`: version control, caches, virtualenvs, the records of `referee
check`). The archive is the same bytes for the same files (no times, owners or order of the
disk in it), so an unchanged folder uploads as the same SHA-256.

Everything the server sends back that came from a bot (its build's output, its stderr, the
file name) is printed through `printable`: shown, never obeyed by the terminal.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.printable import printable

TOKEN_VARIABLE = "REFEREE_ARENA_TOKEN"
LEFT_OUT = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "referee-games", ".venv", "venv", ".tox"}
    | {".mypy_cache", ".pytest_cache", ".ruff_cache", ".idea", ".vscode", "__MACOSX"}
    | {".DS_Store", "Thumbs.db", ".env"}
)
LEFT_OUT_SUFFIXES = (".pyc", ".pyo", ".swp", "~")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
WAITING = ("received", "building", "checking")
REQUEST_SECONDS = 60.0
VERSION_KEYS = frozenset({"id", "number", "status", "waiting", "late", "describe", "url"})


class SubmitError(Exception):
    """The upload or the wait failed: the message says why, in the arena's words if it said."""


@dataclass
class Packed:
    """A folder packed for upload: the .tar.gz's bytes, and what was left out and why."""

    data: bytes
    files: int
    left_out: list[str] = field(default_factory=list)


def left_out(name: str) -> bool:
    return name in LEFT_OUT or name.endswith(LEFT_OUT_SUFFIXES)


def pack_folder(folder: Path) -> Packed:
    """The files of `folder` as a .tar.gz, at the top of the archive, in name order, with
    only their modes kept (644, or 755 when executable)."""
    root = folder.resolve()
    raw = io.BytesIO()
    packed = Packed(b"", 0)
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for here, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not _skipped(Path(here, d), root, packed))
            for name in sorted(files):
                path = Path(here, name)
                if not _skipped(path, root, packed):
                    _add(tar, path, path.relative_to(root).as_posix())
                    packed.files += 1
    packed.data = raw.getvalue()
    return packed


def _skipped(path: Path, root: Path, packed: Packed) -> bool:
    """Left out: what a student would not mean to send, and links that lead outside."""
    shown = path.relative_to(root).as_posix()
    if left_out(path.name):
        packed.left_out.append(shown)
        return True
    if path.is_symlink():
        real = path.resolve()
        if root not in real.parents or not real.exists():
            packed.left_out.append(f"{shown} (a link that leads outside the folder)")
            return True
        if real.is_dir():  # a link to a folder inside: its files are packed where they are
            packed.left_out.append(f"{shown} (a link to a folder of the same files)")
            return True
    return False


def _add(tar: tarfile.TarFile, path: Path, name: str) -> None:
    data = path.read_bytes()  # through a link: the file it leads to
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def what_to_send(path: Path) -> tuple[str, bytes, Packed | None]:
    """(file name, bytes, the packing if a folder) for PATH."""
    if path.is_dir():
        packed = pack_folder(path)
        if packed.files == 0:
            raise SubmitError(f"{path}: the folder has no file to send")
        return f"{path.resolve().name or 'bot'}.tar.gz", packed.data, packed
    try:
        return path.name, path.read_bytes(), None
    except OSError as exc:
        raise SubmitError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def read_token(token_file: Path | None) -> str:
    """The API token: from `--token-file`, else the environment's REFEREE_ARENA_TOKEN."""
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise SubmitError(f"{token_file}: cannot read the token: {exc}") from None
    else:
        token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if not token:
        raise SubmitError(
            f"no API token: make one on your account page (URL/account), then put it in "
            f"{TOKEN_VARIABLE} or in a file named by --token-file"
        )
    return token


def arena_url(url: str) -> str:
    """The arena's address without a trailing slash; refused if not http(s)://HOST."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SubmitError(f"{url}: give the arena's address, http://HOST[:PORT] or https://...")
    return url.strip().rstrip("/")


def unencrypted(url: str) -> bool:
    """Whether the token would cross a network in clear (http to another machine)."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme == "http" and parts.hostname not in LOCAL_HOSTS


class ArenaClient:
    """The arena's API as the token's owner: every request carries `Authorization: Bearer`."""

    def __init__(self, url: str, token: str, timeout: float = REQUEST_SECONDS) -> None:
        self.url = arena_url(url)
        self.token = token
        self.timeout = timeout

    def _ask(self, method: str, path: str, body: bytes | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/octet-stream"
        request = urllib.request.Request(self.url + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise SubmitError(f"the arena refused: {_said(exc)}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise SubmitError(f"cannot reach the arena at {self.url}: {reason}") from None
        except ValueError:
            raise SubmitError(f"{self.url} did not answer as an arena does") from None

    def upload(self, name: str, data: bytes) -> dict[str, Any]:
        query = urllib.parse.urlencode({"name": name})
        return self._version(self._ask("POST", f"/api/versions?{query}", data))

    def version(self, version_id: int) -> dict[str, Any]:
        return self._version(self._ask("GET", f"/api/versions/{version_id}"))

    def _version(self, answer: Any) -> dict[str, Any]:
        """A version as the API describes it, or `SubmitError` for anything else."""
        if not isinstance(answer, dict) or not answer.keys() >= VERSION_KEYS:
            raise SubmitError(f"{self.url} did not answer as an arena does")
        return answer


def _said(error: urllib.error.HTTPError) -> str:
    """The arena's own words for a refusal (its JSON `error`), else the HTTP status."""
    try:
        said = json.loads(error.read()).get("error")
    except (ValueError, AttributeError, OSError):
        said = None
    if said:
        return printable(str(said))
    if error.code == 413:  # refused by the body limit, before the arena had a word
        return "the file is larger than the arena takes (HTTP 413)"
    return f"HTTP {error.code} {error.reason}"


def wait_for(
    client: ArenaClient,
    version_id: int,
    *,
    timeout: float,
    poll: float = 1.0,
    on_status: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any] | None:
    """The version once its check is over (None if still waiting after `timeout` s);
    `on_status` hears each new status on the way."""
    deadline = time.monotonic() + timeout
    seen = None
    while True:
        version = client.version(version_id)
        if version["status"] != seen and on_status is not None:
            on_status(version["status"])
        seen = version["status"]
        if not version["waiting"]:
            return version
        if time.monotonic() >= deadline:
            return None
        sleep(poll)


def describe(version: dict[str, Any]) -> list[str]:
    """A version's result as lines of text, everything the bot wrote made printable."""
    lines = [printable(f"v{version['number']}: {version['describe']}")]
    if version.get("problem"):
        lines += ["", "problem:", *_indented(version["problem"])]
    if version.get("build_log"):
        lines += ["", "build:", *_indented(version["build_log"])]
    check = version.get("check")
    if check:
        lines += ["", f"check games against {printable(check['opponent'])}:"]
        for game in check["games"]:
            how = f" {game['how']}" if game["how"] else ""
            lines.append(f"  game {game['number']} ({game['colour']}): {game['outcome']}{how}")
            for finding in game["findings"]:
                lines.append(f"    {finding['title']}: {printable(finding['detail'])}")
                lines.append(f"    hint: {finding['hint']}")
            if game["stderr"] and not game["clean"]:
                lines += ["    the end of your bot's stderr:", *_indented(game["stderr"], 6)]
    lines += ["", f"the version's page: {printable(str(version['url']))}"]
    return lines


def _indented(text: str, by: int = 2) -> list[str]:
    return [" " * by + line for line in printable(text, lines=True).splitlines()]

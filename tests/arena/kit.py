"""What the tests of versions upload: tic-tac-toe bots that pass, crash or do not build, and
hostile archives; the upload form and the API as a browser and a program send them."""

from __future__ import annotations

import io
import tarfile
import zipfile
from typing import Any

import trio
from starlette.testclient import TestClient

from referee.arena import versions
from referee.arena.folder import Arena
from referee.arena.submissions import check_next
from referee.arena.versions import Entry
from referee.records import utc_now
from tests.arena.conftest import session_csrf

GOOD_BOT = b"""\
import sys
taken = set()
squares = [c + r for r in "123" for c in "abc"]
mine = sys.stdin.readline().strip() == "blue"
while True:
    if not mine:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        taken.add(line.lower())
    mine = False
    move = next(s for s in squares if s not in taken)
    taken.add(move)
    print(move, flush=True)
"""
CRASHING_BOT = b"""\
import sys
sys.stdin.readline()
print("thinking about my first move", file=sys.stderr, flush=True)
print(1 // 0)
"""
BROKEN_C_BOT = b"""\
#include <stdio.h>
int main(void) { return no_such_variable; }
"""


def zip_of(files: dict[str, bytes], *, links: dict[str, str] | None = None) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16) | 0
            archive.writestr(info, target)
    return raw.getvalue()


def tar_of(files: dict[str, bytes], *, links: dict[str, str] | None = None) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            link = tarfile.TarInfo(name)
            link.type = tarfile.SYMTYPE
            link.linkname = target
            archive.addfile(link)
    return raw.getvalue()


def upload_by_page(client: TestClient, name: str, data: bytes, **extra: Any) -> Any:
    """The upload form, sent as the browser sends it (with the session's CSRF token)."""
    form = {"csrf": session_csrf(client), **extra}
    return client.post("/versions", data=form, files={"file": (name, data)})


def upload_by_api(client: TestClient, token: str, name: str, data: bytes) -> Any:
    return client.post(
        "/api/versions",
        params={"name": name},
        content=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
    )


def version_id(response: Any) -> int:
    """The id of the version an upload made (the page's redirect, or the API's answer)."""
    if response.status_code == 303:
        return int(response.headers["location"].rsplit("/", 1)[1])
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def check_all(arena: Arena, clock: Any = None) -> list[int]:
    """Run the submission worker until no version waits; the ids it took, in order."""

    async def drain() -> list[int]:
        taken = []
        while (found := await check_next(arena, clock or utc_now)) is not None:
            taken.append(found)
        return taken

    return trio.run(drain)


def entry(arena: Arena, version: int) -> Entry:
    found = versions.entry(arena.store.writer, version)
    assert found is not None
    return found

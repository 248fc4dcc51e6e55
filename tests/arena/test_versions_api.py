"""The versions' API as `referee arena submit` and an attacker use it: the raw file with its
name, a Bearer token and nothing else, each account's versions alone."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.rows import VersionStatus
from tests.arena.conftest import Clock, log_in
from tests.arena.kit import CRASHING_BOT, GOOD_BOT, check_all, entry, upload_by_api, version_id


def token_of(arena: Arena, username: str) -> str:
    found = accounts.by_username(arena.store.writer, username)
    assert found is not None
    return accounts.rotate_token(arena.store.writer, found.id)


@pytest.fixture
def token(arena: Arena) -> str:
    return token_of(arena, "alice")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_an_upload_by_the_api_becomes_a_version_with_its_check(
    client: TestClient, arena: Arena, clock: Clock, token: str
) -> None:
    answer = upload_by_api(client, token, "bot.py", GOOD_BOT)
    assert answer.status_code == 201
    made = answer.json()
    assert made["number"] == 1 and made["status"] == "received" and made["waiting"]
    assert made["sha256"] == hashlib.sha256(GOOD_BOT).hexdigest()
    assert made["url"] == f"http://127.0.0.1:8000/versions/{made['id']}"
    assert (arena.paths.uploads / made["sha256"]).read_bytes() == GOOD_BOT
    check_all(arena, clock)
    one = client.get(f"/api/versions/{made['id']}", headers=bearer(token)).json()
    assert one["status"] == "active" and not one["waiting"]
    assert one["command"] == "python3 bot.py"
    assert [g["outcome"] for g in one["check"]["games"]] == ["won", "won"]
    listed = client.get("/api/versions", headers=bearer(token)).json()["versions"]
    assert [v["id"] for v in listed] == [made["id"]]
    assert "build_log" not in listed[0]  # the list is short; one version has it all


def test_the_api_shows_a_crashing_bots_stderr_to_its_owner_alone(
    client: TestClient, arena: Arena, clock: Clock, token: str
) -> None:
    version = version_id(upload_by_api(client, token, "bot.py", CRASHING_BOT))
    check_all(arena, clock)
    failed = client.get(f"/api/versions/{version}", headers=bearer(token)).json()
    assert failed["status"] == "failed"
    assert any("ZeroDivisionError" in g["stderr"] for g in failed["check"]["games"])
    other = client.get(f"/api/versions/{version}", headers=bearer(token_of(arena, "bob")))
    assert other.status_code == 404 and other.json() == {"error": "Not found."}
    staff = client.get(f"/api/versions/{version}", headers=bearer(token_of(arena, "tess")))
    assert staff.status_code == 200


def test_the_api_takes_no_cookie_and_no_forged_token(
    client: TestClient, arena: Arena, token: str
) -> None:
    log_in(client, "alice")  # a browser's session is worth nothing to the API
    assert upload_by_api(client, "", "bot.py", GOOD_BOT).status_code == 401
    assert upload_by_api(client, token + "x", "bot.py", GOOD_BOT).status_code == 401
    plain = client.post("/api/versions", params={"name": "bot.py"}, content=GOOD_BOT)
    assert plain.status_code == 401
    assert list(arena.paths.uploads.iterdir()) == []


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"name": None}, 400, "Name the file you upload"),
        ({"content": b""}, 400, "The file is empty."),
        ({"multipart": True}, 415, "send the file itself as the request's body"),
    ],
)
def test_the_api_refuses_what_is_not_one_file_in_its_limits(
    client: TestClient, arena: Arena, token: str, change: dict[str, object], status: int, words: str
) -> None:
    params = {} if "name" in change else {"name": "bot.py"}
    headers = bearer(token)
    if change.get("multipart"):
        answer = client.post(
            "/api/versions", params=params, headers=headers, files={"file": ("bot.py", GOOD_BOT)}
        )
    else:
        content = change.get("content", GOOD_BOT)
        assert isinstance(content, bytes)
        answer = client.post("/api/versions", params=params, headers=headers, content=content)
    assert answer.status_code == status
    assert words in answer.json()["error"]
    assert list(arena.paths.uploads.iterdir()) == []


def test_a_body_past_the_limit_is_refused(client: TestClient, arena: Arena, token: str) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"#" * 100_000  # 10 MB, sent chunked: no Content-Length to judge it by

    name = {"name": "bot.py"}
    declared = client.post(
        "/api/versions", params=name, headers=bearer(token), content=b"#" * 5_000_001
    )
    assert declared.status_code == 413
    chunked = client.post("/api/versions", params=name, headers=bearer(token), content=chunks())
    assert chunked.status_code == 413
    assert upload_by_api(client, token, "bot.py", b"#" * 5_000_000).status_code == 201  # the limit
    assert len(list(arena.paths.uploads.iterdir())) == 1


def test_staff_tokens_upload_nothing(client: TestClient, arena: Arena) -> None:
    answer = upload_by_api(client, token_of(arena, "tess"), "bot.py", GOOD_BOT)
    assert answer.status_code == 403
    assert list(arena.paths.uploads.iterdir()) == []


def test_the_api_counts_uploads_with_the_pages(
    client: TestClient, arena: Arena, token: str
) -> None:
    for _ in range(arena.config.uploads.per_hour):
        assert upload_by_api(client, token, "bot.py", GOOD_BOT).status_code == 201
    refused = upload_by_api(client, token, "bot.py", GOOD_BOT)
    assert refused.status_code == 429 and "in the last hour" in refused.json()["error"]
    assert entry(arena, 1).version.status is VersionStatus.RECEIVED

"""Versions from upload to the ladder, played for real: a bot uploaded by the page or the API
is kept byte for byte, built in the sandbox and checked against the built-in bot by the
submission worker; only a version that passes becomes active."""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import stat
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from starlette.testclient import TestClient

from referee.arena import accounts, versions
from referee.arena.finalists import pin
from referee.arena.folder import Arena
from referee.arena.preflight import check_folder, version_folder
from referee.arena.rows import VersionStatus
from referee.arena.sessions import CookieSigner
from referee.arena.store import set_state, stamp, transaction
from referee.arena.submissions import start_up
from referee.arena.web.site import Site
from tests.arena.conftest import ORIGIN, Clock, browser, log_in, session_csrf
from tests.arena.kit import (
    BROKEN_C_BOT,
    CRASHING_BOT,
    GOOD_BOT,
    check_all,
    entry,
    tar_of,
    upload_by_page,
    version_id,
    zip_of,
)


@pytest.fixture
def alice(client: TestClient) -> TestClient:
    log_in(client, "alice")
    return client


def test_a_python_bot_uploaded_by_the_page_becomes_active(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    uploaded = upload_by_page(alice, "bot.py", GOOD_BOT)
    version = version_id(uploaded)
    waiting = alice.get(f"/versions/{version}")
    assert waiting.status_code == 200
    assert "waiting for its check" in waiting.text
    assert '<script src="/static/version.js">' in waiting.text  # the page follows it
    assert check_all(arena, clock) == [version]
    done = entry(arena, version)
    assert done.version.status is VersionStatus.ACTIVE, done.version.problem
    assert done.version.activated_at == done.version.checked_at == stamp(clock())
    assert done.version.command == "python3 bot.py"
    page = alice.get(f"/versions/{version}").text
    assert "active: it passed its check" in page
    assert "run: python3 bot.py" in page
    assert page.count('class="clean"') == 2  # both check games, one in each colour
    assert "version.js" not in page  # nothing left to follow
    assert "v1" in alice.get("/").text  # the student's home lists it


def test_the_upload_is_kept_unchanged_under_its_hash(alice: TestClient, arena: Arena) -> None:
    data = GOOD_BOT + b"# \xff\x00 not even UTF-8\r\n"
    version = version_id(upload_by_page(alice, "bot.py", data))
    upload = entry(arena, version).upload
    digest = hashlib.sha256(data).hexdigest()
    kept = arena.paths.uploads / digest
    assert (upload.sha256, upload.size, upload.name) == (digest, len(data), "bot.py")
    assert kept.read_bytes() == data
    assert stat.S_IMODE(kept.stat().st_mode) == 0o444
    assert [p.name for p in arena.paths.uploads.iterdir()] == [digest]  # no temporary left
    again = version_id(upload_by_page(alice, "again.py", data))  # the same bytes: one file
    assert entry(arena, again).upload.sha256 == digest
    assert entry(arena, again).version.number == 2
    assert [p.name for p in arena.paths.uploads.iterdir()] == [digest]


def test_a_version_folder_is_readable_by_bots_and_writable_by_the_referee_alone(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    archive = zip_of({"bot/main.py": GOOD_BOT, "bot/lib/helper.py": b"X = 1\n"})
    version = version_id(upload_by_page(alice, "bot.zip", archive))
    check_all(arena, clock)
    assert entry(arena, version).version.status is VersionStatus.ACTIVE
    folder = version_folder(arena.paths, version)
    found = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    assert found == ["lib", "lib/helper.py", "main.py"]  # unpacked from inside bot/
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        assert info.st_uid == os.getuid()
        assert info.st_mode & stat.S_IROTH, path  # a bot's own user reads it
        assert not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH), path  # and writes nothing
    assert stat.S_IMODE(arena.paths.uploads.stat().st_mode) == 0o700  # others' uploads: no
    records = check_folder(arena.paths, version)
    assert stat.S_IMODE(records.parent.stat().st_mode) == 0o700
    assert len(list(records.glob("*.jsonl"))) == 2


def test_a_c_bot_that_does_not_build_fails_with_its_log(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    version = version_id(upload_by_page(alice, "bot.c", BROKEN_C_BOT))
    check_all(arena, clock)
    failed = entry(arena, version).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None and failed.problem.startswith("The build failed: `gcc")
    assert failed.check_log is None  # never played
    page = alice.get(f"/versions/{version}").text
    assert "What went wrong" in page
    assert "no_such_variable" in page  # the compiler's own words, in the build log


def test_a_python_bot_that_crashes_fails_with_its_stderr(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    version = version_id(upload_by_page(alice, "bot.py", CRASHING_BOT))
    check_all(arena, clock)
    failed = entry(arena, version).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None and "crash" in failed.problem
    page = alice.get(f"/versions/{version}").text
    assert "thinking about my first move" in page  # its own stderr, on its own page
    assert "ZeroDivisionError" in page
    assert "The end of your bot's stderr" in page


def test_a_second_good_version_supersedes_the_first_only_once_checked(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    first = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    check_all(arena, clock)
    second = version_id(upload_by_page(alice, "bot.py", GOOD_BOT + b"# v2\n"))
    db = arena.store.writer
    claimed = versions.claim_next(db)  # the worker has taken it: it is being built
    assert claimed is not None and claimed.id == second
    assert entry(arena, first).version.status is VersionStatus.ACTIVE
    assert entry(arena, second).version.status is VersionStatus.BUILDING
    with transaction(db):
        db.execute("UPDATE versions SET status = 'received' WHERE id = ?", (second,))
    check_all(arena, clock)
    assert entry(arena, second).version.status is VersionStatus.ACTIVE
    assert entry(arena, first).version.status is VersionStatus.SUPERSEDED
    third = version_id(upload_by_page(alice, "bot.py", CRASHING_BOT))
    check_all(arena, clock)
    assert entry(arena, third).version.status is VersionStatus.FAILED
    assert entry(arena, second).version.status is VersionStatus.ACTIVE  # still the one


def test_of_several_waiting_versions_only_the_newest_is_checked(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    ids = [version_id(upload_by_page(alice, "bot.py", GOOD_BOT + b"#%d\n" % n)) for n in range(3)]
    assert check_all(arena, clock) == [ids[2]]
    assert entry(arena, ids[2]).version.status is VersionStatus.ACTIVE
    for skipped in ids[:2]:
        version = entry(arena, skipped).version
        assert version.status is VersionStatus.SUPERSEDED
        assert version.problem == "Not checked: v3, uploaded after it, was checked instead."
        assert version.activated_at is None


def test_a_version_left_half_checked_by_a_stopped_server_is_checked_again(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    version = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    claimed = versions.claim_next(arena.store.writer)
    assert claimed is not None
    folder = version_folder(arena.paths, version)
    folder.mkdir(parents=True)
    (folder / "half-unpacked.py").write_text("")  # what the stopped server left
    incoming = arena.paths.uploads / ".incoming-dead"
    incoming.write_bytes(b"half an upload")
    os.utime(incoming, (0, 0))
    assert check_all(arena, clock) == []  # being built: not taken twice
    trio.run(start_up, arena)
    assert entry(arena, version).version.status is VersionStatus.RECEIVED
    assert not incoming.exists()
    assert check_all(arena, clock) == [version]
    assert entry(arena, version).version.status is VersionStatus.ACTIVE
    assert not (folder / "half-unpacked.py").exists()  # unpacked afresh


@pytest.fixture
def strict(arena: Arena, clock: Clock) -> Iterator[TestClient]:
    """Alice signed in to an arena with small limits: 2 uploads an hour, 1.5 MB per upload,
    1 MB unpacked, 20 files."""
    config = arena.config
    arena.config = config.model_copy(
        update={
            "uploads": config.uploads.model_copy(update={"per_hour": 2, "max_bytes": 1_500_000}),
            "build": config.build.model_copy(update={"max_unpacked_mb": 1, "max_files": 20}),
        }
    )
    site = Site(arena.store, arena.config, CookieSigner(arena.secret), clock=clock)
    with browser(site) as client:
        log_in(client, "alice")
        yield client


def test_uploads_are_limited_per_account_per_hour(
    strict: TestClient, arena: Arena, clock: Clock
) -> None:
    for _ in range(2):
        assert upload_by_page(strict, "bot.py", GOOD_BOT).status_code == 303
    refused = upload_by_page(strict, "bot.py", GOOD_BOT)
    assert refused.status_code == 429
    assert "You have uploaded 2 times in the last hour" in refused.text
    assert len(versions.of_account(arena.store.writer, 1)) == 2
    clock.advance(minutes=61)
    assert upload_by_page(strict, "bot.py", GOOD_BOT).status_code == 303


def test_an_upload_past_the_size_limit_is_refused_before_it_is_read(
    strict: TestClient, arena: Arena
) -> None:
    huge = upload_by_page(strict, "bot.py", b"#" * 3_000_000)
    assert huge.status_code == 413
    just_over = upload_by_page(strict, "bot.py", b"#" * 1_500_001)  # within the form's overhead
    assert just_over.status_code == 413
    assert "larger than the arena takes (1,500,000 bytes)" in just_over.text
    assert list(arena.paths.uploads.iterdir()) == []
    assert versions.of_account(arena.store.writer, 1) == []


@pytest.mark.parametrize(
    ("name", "archive", "problem"),
    [
        ("bot.zip", "zip-traversal", "a path that leaves its folder: '../evil.py'"),
        ("bot.tar.gz", "tar-traversal", "a path that leaves its folder: 'bot/../../evil.py'"),
        ("bot.tar.gz", "tar-absolute", "an absolute path: '/tmp/evil.py'"),
        ("bot.tar.gz", "tar-link", "a link or a special file: 'passwd'"),
        ("bot.zip", "zip-link", "a symbolic link: 'passwd'"),
        ("bot.zip", "zip-bomb", "unpacks to more than 1 MB"),
        ("bot.tgz", "tar-bomb", "unpacks to more than 1 MB"),
        ("bot.zip", "many-files", "more than 20 files"),
        ("huge.py", "huge-file", "larger than 1 MB"),
        ("bot.zip", "not-a-zip", "not a readable zip archive"),
    ],
)
def test_hostile_archives_are_refused_with_a_clear_problem(
    strict: TestClient, arena: Arena, clock: Clock, name: str, archive: str, problem: str
) -> None:
    version = version_id(upload_by_page(strict, name, hostile(archive)))
    assert check_all(arena, clock) == [version]
    failed = entry(arena, version).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None
    assert failed.problem.startswith("The upload cannot be unpacked: ")
    assert problem in failed.problem
    assert not (arena.paths.versions / "evil.py").exists()
    assert not (arena.paths.root / "evil.py").exists()
    page = strict.get(f"/versions/{version}").text
    assert "The upload cannot be unpacked" in page


def hostile(kind: str) -> bytes:
    zeros = b"\0" * (3 << 20)
    archives = {
        "zip-traversal": lambda: zip_of({"main.py": GOOD_BOT, "../evil.py": b"x"}),
        "tar-traversal": lambda: tar_of({"bot/main.py": GOOD_BOT, "bot/../../evil.py": b"x"}),
        "tar-absolute": lambda: tar_of({"/tmp/evil.py": b"x"}),
        "tar-link": lambda: tar_of({"main.py": GOOD_BOT}, links={"passwd": "/etc/passwd"}),
        "zip-link": lambda: zip_of({"main.py": GOOD_BOT}, links={"passwd": "/etc/passwd"}),
        "zip-bomb": lambda: zip_of({"main.py": GOOD_BOT, "zeros.bin": zeros}),
        "tar-bomb": tar_bomb,
        "many-files": lambda: zip_of({f"f{n}.py": b"" for n in range(25)}),
        "huge-file": lambda: os.urandom(1_200_000),
        "not-a-zip": lambda: b"PK\x03\x04 but nothing after",
    }
    data = archives[kind]()
    assert len(data) <= 1_500_000  # within the upload limit: refused when unpacked
    return data


def tar_bomb() -> bytes:
    """A .tar.gz whose first member says it holds 64 GiB: refused at its header, before a
    byte of it is unpacked (here the bytes are not even there: reading on would fail)."""
    header = tarfile.TarInfo("zeros.bin")
    header.size = 64 << 30
    return gzip.compress(header.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 100_000)


@pytest.mark.parametrize("leaves", ["ln -s {secret} run.txt", "mkfifo referee.toml"])
def test_what_a_build_leaves_for_the_referee_to_follow_fails_the_build(
    alice: TestClient, arena: Arena, clock: Clock, tmp_path: Path, leaves: str
) -> None:
    secret = tmp_path / "referee-only.txt"
    secret.write_text("echo the referee's secret\n")
    makefile = f"all:\n\t{leaves.format(secret=secret)}\n".encode()
    archive = tar_of({"bot.py": GOOD_BOT, "Makefile": makefile})
    version = version_id(upload_by_page(alice, "bot.tar.gz", archive))
    check_all(arena, clock)
    failed = entry(arena, version).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None and failed.problem.startswith("The build failed: ")
    assert "the referee's secret" not in alice.get(f"/versions/{version}").text


def test_a_hostile_file_name_is_kept_as_text_and_shown_harmlessly(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    name = "../../<script>alert(1)</script>\u202e.py"
    version = version_id(upload_by_page(alice, name, GOOD_BOT))
    assert entry(arena, version).upload.name == name  # stored as given
    for page in (alice.get(f"/versions/{version}").text, alice.get("/versions").text):
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;\\u202e.py" in page
    check_all(arena, clock)
    assert entry(arena, version).version.status is VersionStatus.ACTIVE
    folder = version_folder(arena.paths, version)
    assert [p.name for p in folder.iterdir()] == ["script__.py"]  # its last part, made safe
    assert not list(arena.paths.root.parent.glob("*.py"))


def test_uploads_during_the_freeze_are_kept_as_late_and_never_checked(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    set_state(arena.store.writer, "frozen", "1")
    uploaded = upload_by_page(alice, "bot.py", GOOD_BOT)
    version = version_id(uploaded)
    late = entry(arena, version)
    assert late.version.late and late.version.status is VersionStatus.RECEIVED
    assert (arena.paths.uploads / late.upload.sha256).read_bytes() == GOOD_BOT  # kept
    assert check_all(arena, clock) == []
    page = alice.get(f"/versions/{version}").text
    assert "kept, but never built or played" in page
    assert "version.js" not in page
    set_state(arena.store.writer, "frozen", "0")
    after = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    assert check_all(arena, clock) == [after]  # the late one stays unplayed
    assert entry(arena, version).version.status is VersionStatus.RECEIVED


def test_uploads_after_the_deadline_are_kept_as_late(arena: Arena, clock: Clock) -> None:
    config = arena.config
    deadline = config.deadline.model_copy(update={"at": clock()})
    arena.config = config.model_copy(update={"deadline": deadline})
    site = Site(arena.store, arena.config, CookieSigner(arena.secret), clock=clock)
    with browser(site) as client:
        log_in(client, "alice")
        version = version_id(upload_by_page(client, "bot.py", GOOD_BOT))
        assert entry(arena, version).version.late
        assert "late" in client.get("/versions").text
    assert check_all(arena, clock) == []


def test_uploads_after_the_finals_pin_are_kept_as_late(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    # `referee arena final --now` pins the versions before the deadline: uploads close with it.
    pin(arena.store.writer, clock(), None)
    version = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    assert entry(arena, version).version.late
    assert check_all(arena, clock) == []


def test_a_freeze_set_off_leaves_uploads_open(
    alice: TestClient, arena: Arena, clock: Clock
) -> None:
    # One reading of the staff's flag for the uploads, the deadline and the pages alike.
    set_state(arena.store.writer, "frozen", "off")
    version = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    assert not entry(arena, version).version.late


def account(arena: Arena, username: str) -> int:
    found = accounts.by_username(arena.store.writer, username)
    assert found is not None
    return found.id


def test_another_students_version_is_a_404_by_any_url(
    alice: TestClient, site: Site, arena: Arena, clock: Clock
) -> None:
    version = version_id(upload_by_page(alice, "alice-bot.py", CRASHING_BOT))
    check_all(arena, clock)
    alice_page = alice.get(f"/versions/{version}")
    assert "ZeroDivisionError" in alice_page.text
    bob_token = accounts.rotate_token(arena.store.writer, account(arena, "bob"))
    with browser(site) as bob:
        log_in(bob, "bob")
        missing = bob.get("/versions/99999")
        for url in (f"/versions/{version}", f"/versions/{version}/status"):
            answer = bob.get(url)
            assert answer.status_code == 404
            assert "ZeroDivisionError" not in answer.text
        assert bob.get(f"/versions/{version}").text == missing.text  # nothing to probe
        assert "alice-bot.py" not in bob.get("/versions").text
        api = bob.get(f"/api/versions/{version}", headers={"Authorization": f"Bearer {bob_token}"})
        assert api.status_code == 404 and "ZeroDivisionError" not in api.text
        mine = bob.get("/api/versions", headers={"Authorization": f"Bearer {bob_token}"})
        assert mine.json() == {"versions": []}
    with browser(site) as tess:
        log_in(tess, "tess")  # the staff see every version
        assert "ZeroDivisionError" in tess.get(f"/versions/{version}").text
        assert "alice-bot.py" in tess.get("/versions").text


def test_an_upload_without_the_forms_token_or_from_another_site_is_refused(
    alice: TestClient, arena: Arena, site: Site
) -> None:
    files = {"file": ("bot.py", GOOD_BOT)}
    assert alice.post("/versions", files=files).status_code == 403
    forged = {"csrf": "forged"}
    assert alice.post("/versions", data=forged, files=files).status_code == 403
    with TestClient(
        alice.app, base_url=ORIGIN, backend="trio", headers={"Origin": "https://evil.example"}
    ) as other:
        other.cookies = alice.cookies
        token = {"csrf": session_csrf(alice)}
        assert other.post("/versions", data=token, files=files).status_code == 403
    assert versions.of_account(arena.store.writer, account(arena, "alice")) == []
    assert list(arena.paths.uploads.iterdir()) == []


def test_staff_do_not_upload(site: Site, arena: Arena) -> None:
    with browser(site) as tess:
        log_in(tess, "tess")
        refused = upload_by_page(tess, "bot.py", GOOD_BOT)
        assert refused.status_code == 403 and "Staff accounts do not upload" in refused.text
    assert list(arena.paths.uploads.iterdir()) == []


def test_the_status_the_page_polls(alice: TestClient, arena: Arena, clock: Clock) -> None:
    version = version_id(upload_by_page(alice, "bot.py", GOOD_BOT))
    assert alice.get(f"/versions/{version}/status").json() == {
        "status": "received",
        "waiting": True,
    }
    check_all(arena, clock)
    assert alice.get(f"/versions/{version}/status").json() == {
        "status": "active",
        "waiting": False,
    }


def test_an_upload_with_no_file_says_so(alice: TestClient, arena: Arena) -> None:
    answer = alice.post("/versions", data={"csrf": session_csrf(alice)})
    assert answer.status_code == 400 and "Choose a file to upload." in answer.text
    empty = upload_by_page(alice, "bot.py", b"")
    assert empty.status_code == 400 and "The file is empty." in empty.text
    assert list(arena.paths.uploads.iterdir()) == []


def test_the_navigation_bar_leads_to_uploads_and_grades(site: Site) -> None:
    with browser(site) as student, browser(site) as staff:
        log_in(student, "alice")
        log_in(staff, "tess")
        mine, theirs = student.get("/").text, staff.get("/").text
    assert '<a href="/versions">Upload</a>' in mine and '<a href="/grades">Grade</a>' in mine
    assert '<a href="/versions">Versions</a>' in theirs
    assert '<a href="/staff/grades">Grades</a>' in theirs


def test_a_version_that_does_not_unpack_or_build_gets_a_line_in_the_log(
    alice: TestClient, arena: Arena, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    broken = version_id(upload_by_page(alice, "bot.c", BROKEN_C_BOT))
    with caplog.at_level(logging.INFO, logger="referee.arena"):
        check_all(arena, clock)
        unpacked = version_id(upload_by_page(alice, "bot.zip", b"PK\x03\x04 but nothing after"))
        check_all(arena, clock)
    said = [r.getMessage() for r in caplog.records if r.name == "referee.arena"]
    assert any(m.startswith(f"version {broken} (alice v1): failed: The build failed") for m in said)
    assert any(
        m.startswith(f"version {unpacked} (alice v2): failed: The upload cannot be unpacked")
        for m in said
    )


def test_a_version_page_seen_by_staff_speaks_of_the_student_s_bot(
    alice: TestClient, site: Site, arena: Arena, clock: Clock
) -> None:
    version = version_id(upload_by_page(alice, "bot.py", CRASHING_BOT))
    check_all(arena, clock)
    with browser(site) as staff:
        log_in(staff, "tess")
        page = staff.get(f"/versions/{version}").text
    assert "thinking about my first move" in page
    assert "The end of the bot's stderr" in page and "Its colour" in page
    assert "Your colour" not in page and "All your versions" not in page
    assert "The end of your bot's stderr" in alice.get(f"/versions/{version}").text

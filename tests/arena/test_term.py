"""A term of the arena, end to end, against a real `referee arena serve` (port 0): the staff
make the accounts from a roster, two students upload bots (one by the page, one by `referee
arena submit`), both are checked and become active, the ladder plays them, the leaderboard
shows them, neither reaches the other's version, code or stderr by any URL, the deadline
passes, the final is played and verified, and the grades are released."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
from starlette.routing import Route

from referee.arena.web.app import ROUTE_MODULES
from tests.arena.serving import serving
from tests.commandline import referee

ROSTER = (
    "username,name,role\n"
    "alice,Alice Student,student\n"
    "bob,Bob Student,student\n"
    "tess,Tess Staff,staff\n"
)
# Said by alice's bot on its stderr and written in its code: bob must never read either.
ALICE_STDERR = "alice-stderr-8c1f2e"
ALICE_CODE = "alice-code-5b9d07"
BOT = """\
import sys
# {mark}
ORDER = {order!r}
taken = set()
mine = sys.stdin.readline().strip() == "blue"
print({said!r}, file=sys.stderr, flush=True)
while True:
    if not mine:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        taken.add(line.lower())
    mine = False
    move = next(s for s in ORDER if s not in taken)
    taken.add(move)
    print(move, flush=True)
"""
SQUARES = [c + r for r in "123" for c in "abc"]
ALICE_BOT = BOT.format(mark=ALICE_CODE, order=SQUARES, said=ALICE_STDERR)
BOB_BOT = BOT.format(mark="bob", order=SQUARES[::-1], said="bob thinks")
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TOKEN = re.compile(r'<pre class="secret" id="token">([^<]+)</pre>')
WAIT = 120.0  # seconds: the most any step may take on a busy machine


def until(what: str, done: Callable[[], Any], timeout: float = WAIT) -> Any:
    """Ask `done` again until it gives something true; that."""
    end = time.monotonic() + timeout
    while not (found := done()):
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.2)
    return found


def store(folder: Path) -> sqlite3.Connection:
    """The arena's store, read-only, as the test looks at it beside the server."""
    return sqlite3.connect(f"file:{folder / 'ar' / 'arena.sqlite'}?mode=ro", uri=True)


def ask(folder: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    with store(folder) as db:
        return db.execute(query, args).fetchall()


class Browser:
    """A person's browser on the arena: cookies kept, forms sent with their CSRF token."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx2.Client(base_url=url, headers={"Origin": url}, timeout=WAIT)

    def log_in(self, username: str, password: str) -> None:
        form = {"username": username, "password": password, "csrf": self.csrf("/login")}
        assert self.http.post("/login", data=form).status_code == 303

    def csrf(self, page: str) -> str:
        found = CSRF.search(self.http.get(page).text)
        assert found is not None, f"no form on {page}"
        return found.group(1)

    def get(self, path: str) -> httpx2.Response:
        return self.http.get(path)

    def read(self, path: str) -> str:
        """What a GET of `path` shows: a page whole, a live stream's first event."""
        with self.http.stream("GET", path) as answer:
            if answer.headers.get("content-type", "").startswith("text/event-stream"):
                return next(answer.iter_text(), "")
            return answer.read().decode("utf-8", "replace")

    def post(self, path: str, form: dict[str, str], **extra: Any) -> httpx2.Response:
        return self.http.post(path, data={"csrf": self.csrf("/account"), **form}, **extra)


def passwords(made: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert made.returncode == 0, made.stderr
    return {row["username"]: row["password"] for row in csv.DictReader(io.StringIO(made.stdout))}


def set_toml(folder: Path, table: str, key: str, value: str) -> None:
    """Set `key = value` in arena.toml's `[table]` (in place of its line, or its commented
    example), as a TA edits it."""
    path = folder / "ar" / "arena.toml"
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"[{table}]"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    setting = f"{key} = {value}"
    for i in range(start + 1, end):
        if re.match(rf"#?\s*{key}\s*=", lines[i]):
            lines[i] = setting
            break
    else:
        lines.insert(start + 1, setting)
    path.write_text("\n".join(lines) + "\n")


def id_routes() -> list[str]:
    """Every GET route of the arena that takes an id in its path."""
    found = []
    for module in ROUTE_MODULES:
        for route in module.ROUTES:
            gets = isinstance(route, Route) and "GET" in (route.methods or ())
            if gets and "{" in route.path:
                found.append(route.path)
    return found


def with_id(path: str, value: int) -> str:
    return re.sub(r"\{[^}]+\}", str(value), path)


def test_a_term(tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "roster.csv").write_text(ROSTER)
    made = referee("arena", "new", "ar", "-g", "tic-tac-toe", cwd=folder)
    assert made.returncode == 0, made.stderr
    set_toml(folder, "schedule", "concurrency", "2")
    set_toml(folder, "ratings", "min_games", "2")
    # The staff make the accounts from the roster: each password printed once.
    people = passwords(referee("arena", "accounts", "ar", "roster.csv", "--passwords", cwd=folder))
    assert set(people) == {"alice", "bob", "tess"}
    bob_folder = folder / "bobbot"
    bob_folder.mkdir()
    (bob_folder / "bot.py").write_text(BOB_BOT)

    with serving(folder) as url:
        alice, bob, tess = Browser(url), Browser(url), Browser(url)
        for browser, name in ((alice, "alice"), (bob, "bob"), (tess, "tess")):
            browser.log_in(name, people[name])
        # Alice uploads by the page: refused without the form's token, taken with it.
        files = {"file": ("bot.py", ALICE_BOT.encode())}
        forged = alice.http.post("/versions", data={"csrf": "forged"}, files=files)
        assert forged.status_code == 403
        sent = alice.post("/versions", {}, files=files)
        assert sent.status_code == 303
        alice_page = sent.headers["location"]
        alice_version = int(alice_page.rsplit("/", 1)[1])
        # Bob makes his API token on his account page and submits his folder from the shell.
        token_page = bob.post("/account/token", {}).text
        token = TOKEN.search(token_page)
        assert token is not None, token_page
        (folder / "bob.token").write_text(token.group(1))
        submitted = referee(
            "arena", "submit", url, "bobbot", "--token-file", "bob.token", "--wait",
            cwd=folder, timeout=WAIT,
        )  # fmt: skip
        assert submitted.returncode == 0, submitted.stdout + submitted.stderr
        assert "active: it passed its check" in submitted.stdout
        status = until(
            "alice's version is checked",
            lambda: (s := alice.get(f"{alice_page}/status").json())["waiting"] is False and s,
        )
        assert status["status"] == "active"
        (bob_version,) = ask(folder, "SELECT id FROM versions WHERE id <> ?", alice_version)[0]

        # The ladder plays them against each other and rates them; the leaderboard shows both.
        until(
            "ladder games between them are played and rated",
            lambda: ask(folder, "SELECT count(*) FROM ratings WHERE games >= 2")[0][0] == 2,
        )
        board = bob.get("/leaderboard").text
        assert "Alice Student" in board and "Bob Student" in board
        assert "not rated yet" not in board and board.count("<td>v1</td>") == 2

        # Bob, as an attacker: alice's version, code and stderr by every URL with an id.
        games = [g for (g,) in ask(folder, "SELECT id FROM games")]
        (alice_account,) = ask(folder, "SELECT id FROM accounts WHERE username = 'alice'")[0]
        ids = {alice_version, alice_account, *games}
        for path in id_routes():
            for value in ids:
                seen = bob.read(with_id(path, value))
                assert ALICE_STDERR not in seen, with_id(path, value)
                assert ALICE_CODE not in seen, with_id(path, value)
        for path in (f"/versions/{alice_version}", f"/versions/{alice_version}/status"):
            assert bob.get(path).status_code == 404
        api = bob.http.get(
            f"/api/versions/{alice_version}",
            headers={"Authorization": f"Bearer {token.group(1)}"},
        )
        assert api.status_code == 404
        # Alice herself reads her own stderr in her games, and staff read everything.
        assert ALICE_STDERR in alice.get(alice_page).text
        assert ALICE_STDERR in tess.get(alice_page).text

    # The deadline: the TA sets it a few seconds ahead and restarts the server.
    deadline = datetime.now(UTC) + timedelta(seconds=5)
    set_toml(folder, "deadline", "at", deadline.isoformat(timespec="seconds"))
    with serving(folder) as url:
        time.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()) + 0.5)
        late = referee(
            "arena", "submit", url, "bobbot", "--token-file", "bob.token", cwd=folder,
            timeout=WAIT,
        )  # fmt: skip
        assert late.returncode == 1, late.stdout + late.stderr
        assert "late" in late.stderr
        # The server pins the versions, plays the final and works out the grades.
        until("the grades", lambda: ask(folder, "SELECT count(*) FROM grades")[0][0] == 2)
        pinned = dict(ask(folder, "SELECT player, version_id FROM finalists"))
        assert pinned == {"alice": alice_version, "bob": bob_version}
        bob = Browser(url)
        bob.log_in("bob", people["bob"])
        assert "not released yet" in bob.get("/grades").text
        tess = Browser(url)
        tess.log_in("tess", people["tess"])
        release = tess.post("/staff/switch", {"switch": "grades_released", "on": "1"})
        assert release.status_code in (200, 303), release.text
        mine = bob.get("/grades").text
        assert "version 1" in mine and "Alice" not in mine
        table = tess.get("/staff/grades.csv").text
        rows = {row["username"]: row for row in csv.DictReader(io.StringIO(table))}
        assert set(rows) == {"alice", "bob"}
        assert rows["alice"]["version"] == "1" and rows["bob"]["version"] == "1"
    verified = referee("tournament", "verify", "ar/final", cwd=folder)
    assert verified.returncode == 0, verified.stdout + verified.stderr

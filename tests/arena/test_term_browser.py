"""A whole term in a real Chromium, as a TA follows docs/arena.md: `referee arena new` with a
roster (its invite links), `referee arena serve` (a real process, port 0), three students who
accept their invites and upload through the *Upload* page's file input (a good Python bot, a C
bot that does not compile, a Python bot that crashes at its first move when its opponent opens
in a corner), each reading the check's result on their version's page; the ladder plays, a
student watches a game, the leaderboard moves by itself, the crashing student reads the crash on
their losses page; the deadline passes, the server plays the final, the staff release the
grades on the staff page and download grades.csv.

Every wait is on what a page shows (playwright's waits, or a reload until it shows it), with
timeouts only against a hang: the test passes on a loaded machine, beside other tests."""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.arena.serving import serving
from tests.arena.test_term import ask, set_toml
from tests.commandline import referee

WAIT_MS = 180_000  # only against a hang: a loaded machine builds, checks and plays slowly
PASSWORDS = {name: f"{name} chose this long password" for name in ("alice", "bob", "carol", "tess")}
ROSTER = (
    "username,name,role,email\n"
    "alice,Alice Good,student,alice@example.edu\n"
    "bob,Bob Broken,student,bob@example.edu\n"
    "carol,Carol Crash,student,carol@example.edu\n"
    "tess,Tess Staff,staff\n"
)
# Tic-tac-toe: wins when it can, blocks when it must, else a corner first.
GOOD_BOT = """\
import sys
LINES = [("a1","b1","c1"),("a2","b2","c2"),("a3","b3","c3"),("a1","a2","a3"),("b1","b2","b3"),
         ("c1","c2","c3"),("a1","b2","c3"),("c1","b2","a3")]
ORDER = ["a1","b2","c1","a3","c3","b1","a2","c2","b3"]
mine, theirs = set(), set()
def finishing(own, other):
    for line in LINES:
        free = [s for s in line if s not in own and s not in other]
        if len(free) == 1 and sum(s in own for s in line) == 2:
            return free[0]
    return None
turn = sys.stdin.readline().strip() == "blue"
while True:
    if not turn:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        theirs.add(line)
    turn = False
    move = finishing(mine, theirs) or finishing(theirs, mine)
    move = move or next(s for s in ORDER if s not in mine and s not in theirs)
    mine.add(move)
    print(move, flush=True)
"""
BROKEN_BOT = """\
#include <stdio.h>
int main(void) {
    printf("a1\\n")   /* the semicolon forgotten */
    return 0;
}
"""
# Its answers to blue's first move leave out the corner a1: a KeyError at its first move when
# blue opens there. The good bot does; the check's random bot, whose seed is fixed (the
# version's id), does not.
CRASH_BOT = """\
import sys
ANSWER = {"b2": "a1", "b1": "b2", "c1": "b2", "a2": "b2", "c2": "b2", "a3": "b2", "b3": "b2",
          "c3": "b2"}
SQUARES = [c + r for r in "123" for c in "abc"]
taken = set()
turn = sys.stdin.readline().strip() == "blue"
first = not turn
while True:
    if not turn:
        line = sys.stdin.readline().strip()
        if not line or line == "END":
            break
        taken.add(line)
    turn = False
    move = ANSWER[line] if first else next(s for s in SQUARES if s not in taken)
    first = False
    taken.add(move)
    print(move, flush=True)
"""


class People:
    """A browser context per person (cookies of their own), each page failing the test on a
    JavaScript error or a Content-Security-Policy refusal."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.problems: list[str] = []

    def page(self) -> Any:
        context = self.browser.new_context(viewport={"width": 1200, "height": 900})
        context.set_default_timeout(WAIT_MS)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.problems.append(str(error)))
        page.on(
            "console",
            lambda m: self.problems.append(m.text) if "Content Security" in m.text else None,
        )
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def people(browser: Any) -> Iterator[People]:
    made = People(browser)
    yield made
    made.close()
    assert made.problems == []


def invites(made: Any) -> dict[str, str]:
    """The invite links `arena new --roster` printed, by username: their paths (the links name
    arena.toml's address; this server listens on a port of its own)."""
    assert made.returncode == 0, made.stderr
    rows = csv.DictReader(io.StringIO(made.stdout))
    return {row["username"]: urlsplit(row["invite"]).path for row in rows}


def accept(page: Any, url: str, invite: str, username: str) -> None:
    """Follow the invite link, choose a password: signed in."""
    page.goto(url + invite)
    page.fill('input[name="password"]', PASSWORDS[username])
    page.fill('input[name="confirm"]', PASSWORDS[username])
    page.click('button[type="submit"]')
    page.wait_for_url(f"{url}/")


def navigate(page: Any, label: str) -> None:
    """Follow the navigation bar's link `label`."""
    page.locator("nav.bar").get_by_role("link", name=label, exact=True).click()
    page.wait_for_load_state()


def upload(page: Any, folder: Path, name: str, text: str) -> None:
    """Upload `name` on the Upload page: lands on the new version's page."""
    path = folder / name
    path.write_text(text)
    navigate(page, "Upload")
    page.set_input_files('input[type="file"]', str(path))
    page.click('#upload button[type="submit"]')
    page.wait_for_url(re.compile(r"/versions/\d+$"))


def checked(page: Any) -> str:
    """The version's status once its check is over (the page follows it and reloads)."""
    status = page.locator('#version-status[data-waiting="false"]')
    status.wait_for()
    return str(status.get_attribute("data-status"))


def reload_until(page: Any, shown: Callable[[], bool], what: str) -> None:
    """Reload `page` until `shown()` (for a page that does not follow what it waits for)."""
    end = time.monotonic() + WAIT_MS / 1000
    while not shown():
        assert time.monotonic() < end, f"never: {what}"
        page.wait_for_timeout(500)
        page.reload()


def test_a_term_in_the_browser(people: People, tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "roster.csv").write_text(ROSTER)
    # Section 1: the arena from a roster; the invite links are printed once.
    made = referee("arena", "new", "ar", "-g", "tic-tac-toe", "--roster", "roster.csv", cwd=folder)
    links = invites(made)
    assert set(links) == {"alice", "bob", "carol", "tess"}
    set_toml(folder, "schedule", "concurrency", "2")
    set_toml(folder, "ratings", "min_games", "2")
    alice, bob, carol, tess = (people.page() for _ in range(4))

    with serving(folder) as url:
        for page, name in ((alice, "alice"), (bob, "bob"), (carol, "carol"), (tess, "tess")):
            accept(page, url, links[name], name)

        # Alice's good bot passes its check; she reads its games on the version's page.
        upload(alice, folder, "bot.py", GOOD_BOT)
        assert checked(alice) == "active"
        assert alice.locator("#check tbody tr.clean").count() == 2
        navigate(alice, "Leaderboard")
        mine = alice.locator("p.mine")
        assert "not rated yet" in mine.inner_text()

        # Bob's C bot does not compile: failed, the compiler's complaint in the build's log.
        upload(bob, folder, "bot.c", BROKEN_BOT)
        assert checked(bob) == "failed"
        assert "error" in bob.locator("#build pre.log").inner_text()
        assert bob.locator("#problem").is_visible()

        # Carol's bot passes its check (the random bot did not open in a1) ...
        upload(carol, folder, "bot.py", CRASH_BOT)
        assert checked(carol) == "active", carol.locator("#check").inner_text()

        # ... and the ladder plays them: Alice's leaderboard moves by itself (no reload).
        mine.filter(has_text="rank 1").wait_for()
        board = alice.locator("#leaderboard table tbody")
        assert "Alice Good" in board.inner_text() and "Carol Crash" in board.inner_text()

        # Carol watches one of her games: the replay is drawn on the page.
        navigate(carol, "Games")
        carol.locator('table a[href^="/games/"]').first.click()
        carol.locator("svg.board").wait_for()
        # Her page links her losses: the crash, with her bot's stderr.
        navigate(carol, "My page")
        carol.locator('a[href$="/losses"]').click()
        carol.locator("pre", has_text="KeyError").first.wait_for()

    # Section 8: the deadline a few seconds ahead, and the server started again.
    deadline = datetime.now(UTC) + timedelta(seconds=3)
    set_toml(folder, "deadline", "at", deadline.isoformat(timespec="seconds"))
    with serving(folder) as url:
        # The server pins the versions at the deadline, plays the final, works out the grades.
        tess.goto(f"{url}/staff/grades")
        reload_until(tess, lambda: tess.locator("table").count() > 0, "the grades")
        assert "hidden" in tess.locator("main").inner_text()
        bob.goto(f"{url}/")
        navigate(bob, "Grade")
        assert "not released yet" in bob.locator("main").inner_text()
        # The staff page's button releases them.
        navigate(tess, "Staff")
        tess.click('#grades_released button:has-text("Release grades")')
        tess.locator("#grades_released", has_text="released").wait_for()
        # The CSV, downloaded as the page offers it.
        navigate(tess, "Grades")
        with tess.expect_download() as download:
            tess.click("text=Download grades.csv")
        saved = Path(download.value.path())
        rows = {r["username"]: r for r in csv.DictReader(io.StringIO(saved.read_text()))}
        # Bob, who never had an active version, is in it with no version and no game.
        bob.goto(f"{url}/grades")
        bob.locator("#grade").wait_for()
        assert "absent from the final" in bob.locator("main").inner_text()
    assert set(rows) == {"alice", "bob", "carol"}
    assert rows["alice"]["version"] == "1" and rows["carol"]["version"] == "1"
    assert int(rows["alice"]["rank"]) < int(rows["carol"]["rank"])
    assert float(rows["alice"]["points"]) > float(rows["carol"]["points"])
    assert int(rows["carol"]["faults"]) > 0 and rows["alice"]["faults"] == "0"
    # What the scheme gives a student with no version in the final: no points, no rank, and
    # the grade of its lowest step (default grading.toml: F from 0 points).
    assert rows["bob"]["version"] == "" and rows["bob"]["games"] == "0"
    assert float(rows["bob"]["points"]) == 0.0 and rows["bob"]["rank"] == ""
    assert rows["bob"]["grade"] == "F"
    pinned = dict(ask(folder, "SELECT player, version_id FROM finalists"))
    assert pinned["bob"] is None
    verified = referee("tournament", "verify", "ar/final", cwd=folder)
    assert verified.returncode == 0, verified.stdout + verified.stderr

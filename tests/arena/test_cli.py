"""`referee arena` as a TA types it: new, accounts, invite, token, disable, and serve until
Ctrl-C."""

from __future__ import annotations

import csv
import io
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.commandline import referee, referee_here

ROSTER = "username,name,role,email\nalice,Alice,student,alice@example.edu\ntess,Tess,staff\n"
LINK = re.compile(r"^http://127\.0\.0\.1:8000/invite/[A-Za-z0-9_-]{40,}$")


def rows(stdout: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(stdout)))


def test_new_with_a_roster_prints_each_invite_once(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text(ROSTER)
    done = referee_here("arena", "new", "ar", "-g", "alak", "--roster", "roster.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    invites = rows(done.stdout)
    assert [r["username"] for r in invites] == ["alice", "tess"]
    assert all(LINK.match(r["invite"]) for r in invites)
    assert "2 accounts added, 0 already there" in done.stderr
    again = referee_here("arena", "accounts", "ar", cwd=tmp_path)  # arena.toml's roster
    assert again.returncode == 0, again.stderr
    assert again.stdout == ""
    assert "0 accounts added, 2 already there" in again.stderr


def test_new_names_its_folder_in_what_to_do_next(tmp_path: Path) -> None:
    done = referee("arena", "new", "cs 4341", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "set `[server] url` in 'cs 4341/arena.toml'" in done.stderr
    assert "`referee arena accounts 'cs 4341' ROSTER.csv`" in done.stderr
    assert "`referee arena serve 'cs 4341'`" in done.stderr and " DIR" not in done.stderr


def test_the_invites_csv_is_safe_to_open_in_a_spreadsheet(tmp_path: Path) -> None:
    evil = '"=HYPERLINK(""http://evil.example"",""mail"")"'
    (tmp_path / "roster.csv").write_text(f"username,name,role\nalice,{evil},student\n")
    for folder, extra in (("a1", []), ("a2", ["--passwords"])):
        assert referee("arena", "new", folder, cwd=tmp_path).returncode == 0
        done = referee("arena", "accounts", folder, "roster.csv", *extra, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        (line,) = rows(done.stdout)
        assert line["name"] == '\'=HYPERLINK("http://evil.example","mail")'


def test_initial_passwords_instead_of_invites(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text(ROSTER)
    assert referee_here("arena", "new", "ar", cwd=tmp_path).returncode == 0
    done = referee_here("arena", "accounts", "ar", "roster.csv", "--passwords", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    passwords = rows(done.stdout)
    assert [r["username"] for r in passwords] == ["alice", "tess"]
    assert all(len(r["password"]) >= 16 for r in passwords)
    one = referee_here("arena", "invite", "ar", "alice", cwd=tmp_path)
    assert one.returncode == 0 and LINK.match(rows(one.stdout)[0]["invite"])


def test_a_bad_roster_imports_nobody_and_says_where(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text("alice,Alice,student\nbob,Bob,boss\n")
    assert referee_here("arena", "new", "ar", cwd=tmp_path).returncode == 0
    done = referee_here("arena", "accounts", "ar", "roster.csv", cwd=tmp_path)
    assert done.returncode == 2
    assert "roster.csv:2: role: 'boss' is neither 'student' nor 'staff'" in done.stderr
    assert done.stdout == ""
    (tmp_path / "roster.csv").write_text("alice,Alice,student\n")
    assert rows(referee_here("arena", "accounts", "ar", "roster.csv", cwd=tmp_path).stdout)


def test_token_and_disable_name_the_account(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text(ROSTER)
    assert (
        referee_here("arena", "new", "ar", "--roster", "roster.csv", cwd=tmp_path).returncode == 0
    )
    token = referee_here("arena", "token", "ar", "alice", cwd=tmp_path)
    assert token.returncode == 0 and re.fullmatch(r"[A-Za-z0-9_-]{40,}\n", token.stdout)
    missing = referee_here("arena", "token", "ar", "nobody", cwd=tmp_path)
    assert missing.returncode == 2 and "no account 'nobody'" in missing.stderr
    disabled = referee_here("arena", "disable", "ar", "alice", cwd=tmp_path)
    assert disabled.returncode == 0 and "alice disabled" in disabled.stderr


def test_commands_on_a_folder_that_is_not_an_arena_say_so(tmp_path: Path) -> None:
    done = referee_here("arena", "accounts", "nowhere", "x.csv", cwd=tmp_path)
    assert done.returncode == 2 and "nowhere: not an arena" in done.stderr


def test_serve_answers_until_ctrl_c(tmp_path: Path) -> None:
    assert referee("arena", "new", "ar", cwd=tmp_path).returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "referee", "arena", "serve", "ar", "--port", "0"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        url = None
        for line in server.stderr:
            if found := re.search(r"the arena: (http://\S+?)/ ", line):
                url = found.group(1)
                break
        assert url is not None, "the server never said where it listens"
        with urllib.request.urlopen(f"{url}/login", timeout=30) as page:
            assert page.status == 200 and b"Log in" in page.read()
        busy = referee("arena", "serve", "ar", "--port", "0", cwd=tmp_path, timeout=60)
        assert busy.returncode == 2 and "another `referee arena serve`" in busy.stderr
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
        assert "stopped" in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert "serving" in (tmp_path / "ar" / "arena.log").read_text()

"""What a bot wrote (the name it was given, the line it lost by, its stderr) reaches a web page
as it reaches the terminal (referee/printable.py): controls, C1's CSI and bidi overrides shown
as visible escapes, in the served player, the HTML export and the dashboard alike; and the
exported file holds none of them raw, so that its source in a terminal or an editor acts on
nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ReadableFolders
from tests.web.conftest import serve_in_thread

# ESC [2J clears a terminal; U+009B is C1's CSI; U+202E turns the text after it around.
HOSTILE = "\x1b[2J\u202eevil\x9b"
SHOWN = "\\x1b[2J\\u202eevil\\x9b"
BOT = f"""
import sys
sys.stdin.readline()
sys.stderr.write({HOSTILE!r} + "\\n")
sys.stderr.flush()
print({HOSTILE!r}, flush=True)
sys.stdin.readline()
"""


@pytest.fixture(scope="module")
def record(readable_folders: ReadableFolders) -> Path:
    """A real game: the bot named eve<U+202E>... loses by the line HOSTILE, which it also wrote
    to its stderr."""
    folder = readable_folders.mktemp("bot-text")
    (folder / "evil.py").write_text(BOT)
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "tic-tac-toe", "-p1",
         f"{sys.executable} evil.py", "-p2", "builtin:random", "--name1", "eve\u202eevil",
         "--record", "game.jsonl"],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "game.jsonl"


def shown_text(page: Any) -> str:
    page.wait_for_selector(".rp-verdict .offending", timeout=30000)
    text: str = page.inner_text("#app")
    assert text.isprintable() or set(c for c in text if not c.isprintable()) <= {"\n", "\t"}
    return text


def check_page(page: Any) -> None:
    text = shown_text(page)
    assert "eve\\u202eevil" in page.inner_text(".rp-title"), text
    # Quoted as the terminal quotes it: Python's repr of the line.
    assert page.inner_text(".rp-verdict .offending") == f"offending line: {HOSTILE!r}", text
    assert page.inner_text(".rp-stderr pre") == SHOWN, text


def test_the_served_player_shows_bot_text_made_visible(page: Any, record: Path) -> None:
    with serve_in_thread([record.parent]) as server:
        page.goto(f"{server.url}/replay/0/{record.name}")
        check_page(page)


def test_the_exported_page_holds_and_shows_no_raw_control(page: Any, record: Path) -> None:
    target = record.with_suffix(".html")
    done = subprocess.run(
        [sys.executable, "-m", "referee", "replay", "--html", str(record), "-o", str(target)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    source = target.read_text(encoding="utf-8")
    raw = {c for c in source if not c.isprintable() and c not in "\n\t"}
    assert raw == set(), raw
    assert "eve\\u202eevil" in source  # the title, as the terminal writes it
    page.goto(target.as_uri())
    check_page(page)


def test_the_dashboard_lists_the_names_made_visible(page: Any, record: Path) -> None:
    with serve_in_thread([record.parent]) as server:
        page.goto(server.url)
        page.wait_for_selector("#archive table", timeout=30000)
        listed = page.inner_text("#archive")
    assert "eve\\u202eevil" in listed, listed
    assert {c for c in listed if not c.isprintable()} <= {"\n", "\t"}, listed

"""The web view in a real browser: recorded games of every built-in game, the HTML export, the
dashboard, and a live game watched as it is played (with the move-to-screen latency measured).

Pieces are checked by their SVG elements (`.piece` with data-square/data-owner/...), never by
pixels. Screenshots of every board go to test-artifacts/web/ for people to look at.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.records import read_record
from referee.replay import Replay, build_replay, load_replay
from tests.conftest import ReadableFolders
from tests.replay.make_records import GAMES, random_record
from tests.web.conftest import ROOT, ServerThread, serve_in_thread

SLOW_BOT = Path(__file__).with_name("slow_bot.py")


def expected_pieces(game: str, state: dict[str, Any]) -> set[tuple[Any, ...]]:
    """What the renderer must draw for `state`: (square, owner, height, king) per piece."""
    if game == "lasker-morris":
        return {(p, o, None, None) for p, o in state["points"].items() if o}
    if game == "lielow":
        return {
            (s["square"], s["owner"], str(s["height"]), "true" if s["king"] else None)
            for s in state["stacks"]
        }
    if game == "legionnaires":
        return {(sq, side, None, None) for side, sqs in state["pawns"].items() for sq in sqs}
    if game == "l-game":
        return {
            (f"{x},{y}", "neutral" if key == "neutrals" else key, None, None)
            for key in ("blue", "orange", "neutrals")
            for x, y in state[key]
        }
    if game == "tic-tac-toe":
        return {(sq, o, None, None) for sq, o in state["cells"].items() if o}
    return {
        ("abcdefghijklmnopqrstuvwxyz"[i], o, None, None) for i, o in enumerate(state["points"]) if o
    }


SNAPSHOT_JS = """board => ({
    ply: Number(board.dataset.ply),
    pieces: [...board.querySelectorAll(".piece")].map(e => [e.dataset.square,
        e.dataset.owner || null, e.dataset.height || null, e.dataset.king || null]),
    to: [...board.querySelectorAll(".mark-to")].map(e => e.dataset.square),
})"""


def check_frame(page: Any, replay: Replay, ply: int, playing: bool = False) -> None:
    """The board shows ply `ply` (while `playing`, it or a later one) exactly as the replay has
    it: its ply, pieces and marks read in one step, so a playing page cannot move on between."""
    reached = ">=" if playing else "==="
    page.wait_for_function(
        f"Number(document.querySelector('svg.board')?.dataset.ply) {reached} {ply}",
        timeout=30000,
    )
    shown = page.eval_on_selector("svg.board", SNAPSHOT_JS)
    frame = replay.frames[shown["ply"]]
    assert shown["ply"] >= ply if playing else shown["ply"] == ply
    pieces = {tuple(p) for p in shown["pieces"]}
    assert pieces == expected_pieces(replay.game, frame.state), f"ply {shown['ply']}"
    assert set(shown["to"]) == set(frame.marks["to"]), f"ply {shown['ply']}"


@pytest.fixture(scope="module")
def records(readable_folders: ReadableFolders) -> Path:
    folder = readable_folders.mktemp("records")
    for number, game in enumerate(GAMES):
        random_record(folder / f"{game}.jsonl", game, 10 + number)
    return folder


@pytest.fixture(scope="module")
def server(records: Path) -> Iterator[ServerThread]:
    with serve_in_thread([records]) as running:
        yield running


@pytest.mark.parametrize("game", GAMES)
def test_recorded_game_shows_the_pieces_at_a_ply(
    page: Any, server: ServerThread, records: Path, artifacts: Path, game: str
) -> None:
    replay = load_replay(records / f"{game}.jsonl")
    ply = max(1, len(replay.plies) // 2)
    page.goto(f"{server.url}/replay/0/{game}.jsonl#ply={ply}")
    check_frame(page, replay, ply)
    page.screenshot(path=str(artifacts / f"{game}.png"), full_page=True)
    page.click('button[data-action="next"]')
    check_frame(page, replay, ply + 1)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    check_frame(page, replay, ply - 1)
    page.click('.rp-moves button[data-ply="1"]')
    check_frame(page, replay, 1)
    page.click('button[data-action="end"]')
    check_frame(page, replay, len(replay.plies))
    verdict = page.inner_text(".rp-verdict")
    assert replay.result is not None and f"by {replay.result.why}" in verdict


@pytest.mark.parametrize("game", GAMES)
def test_html_export_plays_back_without_a_server(
    page: Any, records: Path, tmp_path: Path, artifacts: Path, game: str
) -> None:
    target = tmp_path / f"{game}.html"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "replay", "--html", str(records / f"{game}.jsonl"),
         "-o", str(target)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    replay = load_replay(records / f"{game}.jsonl")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(target.as_uri() + "#ply=3")
    check_frame(page, replay, 3)
    page.click('button[data-action="play"]')
    check_frame(page, replay, 4, playing=True)  # playing steps on by itself
    assert requests == [target.as_uri()]  # the page itself, nothing fetched from anywhere
    if game == "lielow":
        page.screenshot(path=str(artifacts / "export-lielow.png"), full_page=True)


def test_dashboard_lists_the_archive_and_opens_a_replay(
    page: Any, server: ServerThread, artifacts: Path
) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("#archive tr[data-record]")
    rows = page.eval_on_selector_all(
        "#archive tr[data-record]", "rs => rs.map(r => r.dataset.record)"
    )
    assert sorted(rows) == sorted(f"0/{game}.jsonl" for game in GAMES)
    page.screenshot(path=str(artifacts / "dashboard-archive.png"), full_page=True)
    page.click('#archive tr[data-record="0/alak.jsonl"] a')
    page.wait_for_selector('svg.board.alak[data-ply="0"]')


# -- a live game ---------------------------------------------------------------------------------


def start_visual_play(tmp_path: Path, game: str, delay: float) -> tuple[subprocess.Popen[str], str]:
    bot = f"{sys.executable} {SLOW_BOT} {game}"
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "play", game, "-p1", f"{bot} 1 {delay}",
         "-p2", f"{bot} 2 {delay}", "--visual", "--port", "0", "--record", "live.jsonl",
         "--seed", "4"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "REFEREE_NO_BROWSER": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert process.stderr is not None
    first = process.stderr.readline()
    assert first.startswith("isolation: "), first  # every run names its level first
    line = process.stderr.readline()
    found = re.search(r"live view: (http://\S+)", line)
    assert found, line
    return process, found.group(1)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
def test_watch_a_live_game(page: Any, tmp_path: Path, artifacts: Path) -> None:
    process, url = start_visual_play(tmp_path, "alak", 0.25)
    try:
        watch_until_the_end(page, url, artifacts)
        record = read_record(tmp_path / "live.jsonl")
        final = build_replay(record)
        check_frame(page, final, len(final.plies))
        measure_idle_cpu(page, process.pid, artifacts)
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert stdout.strip().splitlines()[-1].startswith("Game over!")


def watch_until_the_end(page: Any, url: str, artifacts: Path) -> None:
    page.goto(url)
    page.wait_for_selector("svg.board[data-ply]")
    dashboard = page.context.new_page()
    dashboard.goto(url.rsplit("/live/", 1)[0] + "/")
    page.bring_to_front()  # a page in the background draws late (frames are throttled)
    for view in (page, dashboard):
        view.evaluate("window.loadedOnce = true")
    first = int(page.get_attribute("svg.board", "data-ply"))
    page.wait_for_function(
        f"Number(document.querySelector('svg.board').dataset.ply) >= {first + 2}", timeout=30000
    )
    page.screenshot(path=str(artifacts / "live.png"), full_page=True)
    moves = page.eval_on_selector_all(".rp-moves button[data-ply]", "bs => bs.length")
    assert moves >= first + 2
    assert "in progress" in dashboard.inner_text('#live tr[data-live="match"]')
    dashboard.wait_for_function(  # the ply count follows the game, pushed by the server
        """Number(document.querySelector('#live td[data-plies="match"]').textContent) >= 2"""
    )
    dashboard.screenshot(path=str(artifacts / "dashboard-live.png"), full_page=True)
    page.wait_for_selector(".rp-verdict:not([hidden])", timeout=120000)
    assert "FINISHED" in page.inner_text(".rp-live")
    # The dashboard hears that the game ended: it leaves the live list for the archive.
    dashboard.wait_for_selector('#archive tr[data-record="0/live.jsonl"]', timeout=30000)
    dashboard.wait_for_selector('#live tr[data-live="match"]', state="detached", timeout=30000)
    for view in (page, dashboard):
        assert view.evaluate("window.loadedOnce") is True  # the same pages: no reload
    latencies = page.evaluate("window.refereeLatencies")
    assert latencies, "no move was drawn live"
    summary = {
        "moves": len(latencies),
        "median_ms": statistics.median(latencies),
        "max_ms": max(latencies),
        "latencies_ms": latencies,
    }
    (artifacts / "live-latency.json").write_text(json.dumps(summary, indent=1))
    print(f"move accepted -> drawn: median {summary['median_ms']:.1f} ms over {len(latencies)}")


def measure_idle_cpu(page: Any, pid: int, artifacts: Path) -> None:
    """The referee after the game, with a live page and a dashboard open: it should sleep."""
    assert len(page.context.pages) == 2  # the game and the dashboard
    start_cpu, start = cpu_seconds(pid), time.monotonic()
    time.sleep(5)
    used = (cpu_seconds(pid) - start_cpu) / (time.monotonic() - start)
    (artifacts / "idle-cpu.json").write_text(json.dumps({"cpu_fraction_of_one_core": used}))
    print(f"referee CPU while idle with two pages open: {used:.2%} of one core")
    assert used < 0.2, f"the idle referee used {used:.0%} of a core (busy-waiting?)"

"""The tournament dashboard: standings of a finished tournament, and a tournament watched while it
is played through the hook a tournament run uses (`watch_tournament`)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.request import urlopen

import pytest
import trio
from rich.console import Console

from referee.app.config import load_config
from referee.records import Ply, RecordWriter
from referee.tournament.report import build_report
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner, played_here
from referee.tournament.store import open_view
from referee.views.tournament import elo_cells, standings_table
from referee.web.server import WebServer, start_web_server
from referee.web.tournaments import watch_tournament
from tests.conftest import ReadableFolders
from tests.replay.make_records import record_lines
from tests.tournament.faulty import GAMES, play_chatty_tournament
from tests.web.conftest import serve_in_thread

SLOW_BOT = Path(__file__).with_name("slow_bot.py")


def config_text(name: str, players: dict[str, str], pairings: int = 1) -> str:
    entries = "".join(
        # Trusted: the commands name bots of the tests, outside the config's folder.
        f'[[players]]\nname = "{n}"\ncommand = "{command}"\ntrusted = true\n'
        for n, command in players.items()
    )
    return (
        f'name = "{name}"\ngame = "alak"\nseed = 5\ngames_per_pairing = {pairings}\n'
        f"concurrency = 2\n{entries}"
    )


def slow(seed: int, delay: float) -> str:
    return f"{sys.executable} {SLOW_BOT} alak {seed} {delay}"


def table_rows(page: Any, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        selector, "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))"
    )


@pytest.fixture(scope="module")
def finished_tournament(readable_folders: ReadableFolders) -> Path:
    folder = readable_folders.mktemp("cup")
    players = {"ann": slow(1, 0), "ben": slow(2, 0), "cat": slow(3, 0)}
    (folder / "cup.toml").write_text(config_text("cup", players, pairings=2))
    done = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", "cup.toml", "-q"],
        cwd=folder, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "cup"


def test_standings_of_a_finished_tournament(
    page: Any, finished_tournament: Path, artifacts: Path
) -> None:
    view = open_view(finished_tournament)
    report = build_report(view)
    view.close()
    with serve_in_thread([finished_tournament]) as server:
        page.goto(server.url + "/")
        page.wait_for_selector('section.tournament[data-tournament="0"] tr[data-player]')
        rows = table_rows(page, "section.tournament tr[data-player]")
        expected = [
            [str(s.rank), s.name, str(s.points), str(s.games), str(s.wins), str(s.draws)]
            for s in report.standings
        ]
        assert [row[:6] for row in rows] == expected
        progress = page.get_attribute("section.tournament [data-progress]", "data-progress")
        assert progress == f"{len(report.games)}/{len(report.games)}"
        results = table_rows(page, "section.tournament tr[data-game]")
        assert len(results) == len(report.games)  # 6 games, all among the latest
        page.screenshot(path=str(artifacts / "dashboard-tournament.png"), full_page=True)
        page.click("section.tournament tr[data-game] a")
        page.wait_for_selector("svg.board.alak")


@contextmanager
def tournament_with_web(config: Path) -> Iterator[dict[str, Any]]:
    """Play a tournament in a background trio loop with its web view, as `--web` does."""
    loaded = load_config(config)
    store, _ = open_tournament(loaded)
    box: dict[str, Any] = {"finished": threading.Event()}
    ready = threading.Event()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server: WebServer = await start_web_server(nursery, [loaded.directory], 0)
            play, emit = watch_tournament(server.hub, played_here(loaded), lambda event: None)
            runner = Runner(loaded, store, emit=emit, play=play)
            box.update(
                server=server, token=trio.lowlevel.current_trio_token(), scope=nursery.cancel_scope
            )
            ready.set()
            box["final"] = await runner.run(handle_signals=False)
            box["finished"].set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    assert ready.wait(60)
    try:
        yield box
    finally:
        trio.from_thread.run_sync(box["scope"].cancel, trio_token=box["token"])
        thread.join(60)
        store.close()


@pytest.mark.slow
def test_watch_a_tournament_while_it_is_played(page: Any, tmp_path: Path, artifacts: Path) -> None:
    players = {"ann": slow(1, 0.15), "ben": slow(2, 0.15), "cat": slow(3, 0.15)}
    (tmp_path / "live.toml").write_text(config_text("live cup", players))
    with tournament_with_web(tmp_path / "live.toml") as box:
        url = box["server"].url
        page.goto(url + "/")
        page.evaluate("window.loadedOnce = true")
        page.wait_for_selector("section.tournament a:text('watch live')", timeout=60000)
        page.screenshot(path=str(artifacts / "dashboard-tournament-live.png"), full_page=True)
        assert page.evaluate("window.loadedOnce") is True  # the games appeared without a reload
        # The live list is drawn again as games move on: click whichever link is there then.
        page.locator("section.tournament a:text('watch live')").first.click(timeout=60000)
        page.wait_for_selector("svg.board.alak[data-ply]")
        first = int(page.get_attribute("svg.board", "data-ply"))
        page.wait_for_function(
            f"Number(document.querySelector('svg.board').dataset.ply) > {first}", timeout=60000
        )
        page.go_back()
        page.evaluate("window.loadedOnce = true")
        page.wait_for_selector('[data-progress="3/3"]', timeout=120000)
        assert page.evaluate("window.loadedOnce") is True  # progress pushed, not reloaded
        assert box["finished"].wait(60)
        view = open_view(tmp_path / "live")
        report = build_report(view)
        view.close()
        page.wait_for_function(
            "document.querySelectorAll('section.tournament tr[data-game] a').length >= 3"
        )
        rows = table_rows(page, "section.tournament tr[data-player]")
        assert [row[:3] for row in rows] == [
            [str(s.rank), s.name, str(s.points)] for s in report.standings
        ]


def answer(url: str) -> bytes:
    """The body at `url`, once the server that was announced listens (it starts right after)."""
    for _ in range(300):
        try:
            with urlopen(url, timeout=30) as response:
                body: bytes = response.read()
                return body
        except URLError:
            time.sleep(0.1)
    raise AssertionError(f"{url}: the announced server never answered")


def test_tournament_run_web_serves_the_dashboard_while_it_plays(page: Any, tmp_path: Path) -> None:
    players = {"ann": slow(1, 0.2), "ben": slow(2, 0.2)}
    (tmp_path / "web.toml").write_text(config_text("web cup", players))
    command = [sys.executable, "-m", "referee", "tournament", "run", "web.toml", "-q"]
    process = subprocess.Popen(
        [*command, "--web", "--port", "0"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        # The address to open comes first, before the isolation level and any warning.
        assert line.startswith("dashboard: http://127.0.0.1:"), line
        assert process.stderr.readline().startswith("isolation: ")
        url = line.split()[1].rstrip("/")
        tournaments = json.loads(answer(url + "/api/tournaments"))
        assert [t["name"] for t in tournaments["tournaments"]] == ["web cup"]
        live: list[dict[str, Any]] = []
        for _ in range(200):  # a game shows up live while it is played
            live = json.loads(urlopen(url + "/api/live", timeout=30).read())["matches"]
            if live:
                break
            time.sleep(0.05)
        assert live and "ann" in live[0]["title"] and "ben" in live[0]["title"]
        page.goto(url + "/")  # the standings, in the browser, while the games go on
        page.wait_for_selector('section.tournament tr[data-player="ann"]', timeout=30000)
        rows = table_rows(page, "section.tournament tr[data-player]")
        assert sorted(row[1] for row in rows) == ["ann", "ben"]
        assert process.poll() is None, "the tournament was over before the page showed it"
        assert process.wait(timeout=300) == 0
    finally:
        process.kill()
        process.wait()


def test_standings_show_every_bot_fault(page: Any, tmp_path: Path) -> None:
    directory = play_chatty_tournament(tmp_path)
    with serve_in_thread([directory]) as server:
        found = json.loads(urlopen(server.url + "/api/tournaments", timeout=30).read())
        standings = {s["name"]: s for s in found["tournaments"][0]["standings"]}
        assert standings["chatty"]["faults"] == {"out-of-turn": GAMES}
        page.goto(server.url + "/")
        page.wait_for_selector('section.tournament tr[data-player="chatty"]')
        headers = page.eval_on_selector_all("section.tournament table:first-of-type th",
                                            "ths => ths.map(th => th.textContent)")  # fmt: skip
        assert headers[-1] == "faults" and "timeouts" not in headers
        rows = {row[1]: row[-1] for row in table_rows(page, "tr[data-player]")}
        assert rows == {"steady": "", "chatty": f"{GAMES} out-of-turn"}


def test_numbers_stand_under_their_headers_and_intervals_read_as_in_the_terminal(
    page: Any, tmp_path: Path
) -> None:
    directory = play_chatty_tournament(tmp_path)
    view = open_view(directory)
    report = build_report(view)
    view.close()
    with serve_in_thread([directory]) as server:
        page.goto(server.url + "/")
        page.wait_for_selector('section.tournament tr[data-player="chatty"]')
        aligned = page.eval_on_selector(
            "section.tournament table",
            """table => [...table.tHead.rows[0].cells].map((th, i) => [th.textContent,
                getComputedStyle(th).textAlign,
                getComputedStyle(table.tBodies[0].rows[0].cells[i]).textAlign])""",
        )
        rows = {row[1]: row for row in table_rows(page, "section.tournament tr[data-player]")}
    assert [header for header, _, _ in aligned][:3] == ["#", "player", "pts"]
    for header, th, td in aligned:
        assert th == td, f"{header}: header {th}, values {td}"
    assert dict((h, th) for h, th, _ in aligned)["pts"] == "right"
    terminal = Console(record=True, width=120, color_system=None)
    terminal.print(standings_table(report.standings))
    text = terminal.export_text()
    for s in report.standings:
        shown = rows[s.name]
        elo, interval = elo_cells(s)  # the model's figures as the terminal shows them
        assert shown[7] == elo
        assert shown[8] == interval and interval in text


def test_a_match_folder_shows_the_match_figures(page: Any, tmp_path: Path) -> None:
    # The dashboard of a match's folder shows the lines `referee match` printed (pairs, SPRT
    # and the rating model's difference included) and says which Elo is which.
    command = [sys.executable, "-m", "referee", "match", "alak", "-q", "--games", "4", "-j", "2"]
    command += ["-p1", "builtin:greedy --seed {seed}", "-p2", "builtin:random --seed {seed}"]
    command += ["--isolation", "basic+root", "--dir", "m", "--sprt", "elo1=200"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()[:-1]  # the summary, without the folder's line
    assert printed[1].startswith("pairs (0, 1/2, 1, 3/2, 2 points of 2): ")
    assert printed[5].startswith("SPRT elo0=0 elo1=200 alpha=0.05 beta=0.05: LLR ")
    assert printed[-1].startswith("rating model (docs/ratings.md): greedy - random")
    with serve_in_thread([tmp_path / "m"]) as server:
        page.goto(server.url + "/")
        page.wait_for_selector("section.tournament pre.match-figures")
        shown = page.text_content("section.tournament pre.match-figures")
        note = page.text_content("section.tournament p.muted")
    assert shown is not None and shown.splitlines() == printed
    assert note is not None and note.startswith("Elo: Bradley-Terry with a draw margin")
    assert "the match's pentanomial Elo above is from its game pairs" in note


def test_a_live_games_record_is_listed_at_once_and_moves_with_it(page: Any, tmp_path: Path) -> None:
    """The dashboard's list of records shows a game's record as soon as the game starts, and
    its plies as the live game plays them, not only once it has ended."""
    lines = record_lines("tic-tac-toe", 3)
    header, plies = lines[0], [line for line in lines if isinstance(line, Ply)]
    record = tmp_path / "g.jsonl"
    with serve_in_thread([tmp_path]) as server:
        page.goto(server.url + "/")
        page.wait_for_selector("#archive p, #archive table")  # the empty list, drawn
        writer = RecordWriter(record)
        try:
            match = server.call(server.hub.open_match, "a test game", "g1", record)
            writer.write(header)  # as a match does: the line written, then the listeners
            server.call(match.listener, header)
            row = '#archive tr[data-record="0/g.jsonl"]'
            page.wait_for_selector(row, timeout=30000)
            for ply in plies[:3]:
                writer.write(ply)
                server.call(match.listener, ply)
            page.wait_for_function(
                f"document.querySelector('{row} td[data-record-plies]').textContent === '3'",
                timeout=30000,
            )
            assert page.text_content('#live td[data-plies="g1"]') == "3"
            assert "unfinished" in (page.text_content(row) or "")
        finally:
            writer.close()

"""Every bot fault is shown wherever standings are: the results table, CSV and JSON, the
`--events` stream and the live display, not only timeouts, crashes and illegal moves."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from protocols.base import Reason, Side
from referee.tournament.runner import RunState
from referee.tournament.standings import GameResult
from referee.views.tournament_live import LiveDisplay
from tests.commandline import referee
from tests.conftest import ReadableFolders
from tests.tournament.faulty import GAMES, play_chatty_tournament

BOT_FAULTS = [r.value for r in Reason if r.is_bot_fault]


@pytest.fixture(scope="module")
def played(readable_folders: ReadableFolders) -> Path:
    folder = readable_folders.mktemp("faults")
    play_chatty_tournament(folder)
    return folder


def test_the_table_names_out_of_turn_losses(played: Path) -> None:
    table = referee("tournament", "results", "cup.toml", cwd=played)
    assert table.returncode == 0, table.stderr
    header = next(line for line in table.stdout.splitlines() if "player" in line)
    assert "faults" in header and "timeouts" not in header
    chatty = next(line for line in table.stdout.splitlines() if "chatty" in line)
    steady = next(line for line in table.stdout.splitlines() if "steady" in line)
    assert chatty.rstrip().endswith(f"{GAMES} out-of-turn")
    assert not any(reason in steady for reason in BOT_FAULTS)


def test_csv_has_a_column_for_every_bot_fault(played: Path) -> None:
    done = referee("tournament", "results", "cup.toml", "-f", "csv", cwd=played)
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(done.stdout))}
    assert set(BOT_FAULTS) <= set(rows["chatty"])  # even those that never happened
    assert rows["chatty"]["out-of-turn"] == str(GAMES) and rows["chatty"]["protocol"] == str(GAMES)
    assert all(rows["chatty"][r] == "0" for r in BOT_FAULTS if r != "out-of-turn")
    assert all(rows["steady"][r] == "0" for r in BOT_FAULTS)
    assert (rows["chatty"]["losses"], rows["steady"]["wins"]) == (str(GAMES), str(GAMES))


def test_json_and_events_count_faults_by_reason(played: Path) -> None:
    done = referee("tournament", "results", "cup.toml", "-f", "json", cwd=played)
    standings = {s["name"]: s for s in json.loads(done.stdout)["standings"]}
    assert standings["chatty"]["faults"] == {"out-of-turn": GAMES}
    assert standings["steady"]["faults"] == {}
    events = [json.loads(line) for line in (played / "events.jsonl").read_text().splitlines()]
    final = {s["name"]: s for s in events[-1]["standings"]}
    assert final["chatty"]["faults"] == {"out-of-turn": GAMES}


async def test_the_live_display_shows_every_fault_most_frequent_first() -> None:
    state = RunState(players=["ann", "bob"], total=6)
    for reason in (Reason.OUT_OF_TURN, Reason.OUT_OF_TURN, Reason.BAD_ENCODING, Reason.TIMEOUT):
        state.results.append(GameResult("ann", "bob", Side.ORANGE, reason))
    state.results.append(GameResult("bob", "ann", Side.ORANGE, Reason.LINE_TOO_LONG))
    console = Console(record=True, width=80)
    console.print(LiveDisplay(console, state, "cup").render())
    lines = console.export_text().splitlines()
    ann = next(i for i, line in enumerate(lines) if "│ ann" in line)
    assert [line.split("│")[-1].strip() for line in lines[ann : ann + 3]] == [
        "2 out-of-turn",
        "1 timeout",
        "1 bad-encoding",
    ]
    assert any("│ bob" in line and line.rstrip().endswith("1 line-too-long") for line in lines)

"""The live display of a staged tournament: the stage being played, its group tables with who
advances, the bracket with byes and seeds, and the final order once there is one."""

from __future__ import annotations

import re

from rich.console import Console

from referee.tournament.formats import plan_for
from referee.tournament.runner import RunState
from referee.views.tournament_live import LiveDisplay
from tests.tournament.test_formats_rules import config, play, stronger


def rendered(state: RunState) -> str:
    console = Console(record=True, width=140, color_system=None)
    console.print(LiveDisplay(console, state, "cup").render())
    return console.export_text()


async def test_the_live_display_shows_the_current_groups_and_the_bracket() -> None:
    cfg = config("stages", 8)
    plan, rows = play(cfg, stronger)
    # Stop half-way through the second stage: its group is shown, not the first stage's.
    second_stage_start = 24
    partial = plan_for(cfg, rows[: second_stage_start + 5])
    state = RunState(players=cfg.player_names, total=second_stage_start + 12, plan=partial)
    text = rendered(state)
    assert "stage: Second Round" in text
    assert "Second Round (playing): Group A" in text and "First Round" not in text

    state.plan = plan  # finished: the finals' bracket and the final order
    text = rendered(state)
    assert "stage: finished" in text
    assert "Final Round" in text and "Championship" in text and "Third Place Match" in text
    assert "Final order" in text
    assert re.search(r"^1 │ p00 +│ won the Championship \(4-0\)", text, re.M), text
    assert re.search(r"^2 │ p01 +│ lost the Championship \(0-4\)", text, re.M), text


async def test_a_knockout_shows_its_byes_and_seeds() -> None:
    cfg = config("knockout", 5)
    plan, _ = play(cfg, stronger)
    text = rendered(RunState(players=cfg.player_names, total=8, plan=plan))
    first_round = text[text.index("Quarter-final") : text.index("Semi-final")]
    assert first_round.count("(bye)") == 3 and "p03 (4)" in first_round
    assert "p04 (5)" in first_round

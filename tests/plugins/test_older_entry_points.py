"""Plug-ins published before a game's parts were found beside its rules declared its evaluation
(`referee.evaluations`) and its web renderer (`referee.renderers`) as entry points of their own:
they keep working. A part beside the rules comes first, and an entry point of the older groups
for a game that has one is not even loaded (an upgraded plug-in's stale metadata is harmless)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import protocols
from bots.evaluation import model_for
from protocols.search import GenericModel
from referee.web.renderers import all_renderers, renderer_source
from tests.plugins.race import EVALUATION, FILES, RENDERER, RULES, write

OLD_RENDERER = RENDERER.replace('class: "board race"', 'class: "board race old-style"')
OLD_STYLE = {
    "old_race/__init__.py": "",
    "old_race/rules.py": RULES,
    "old_race/scoring.py": EVALUATION.replace("race_game", "old_race"),
    "old_race/web.py": f"RENDERER = {OLD_RENDERER!r}\n",
    "referee_old_race-0.1.dist-info/METADATA": "Name: referee-old-race\nVersion: 0.1\n",
    "referee_old_race-0.1.dist-info/entry_points.txt": (
        "[referee.games]\nrace = old_race.rules:GAME\n\n"
        "[referee.evaluations]\nrace = old_race.scoring:evaluate\n\n"
        "[referee.renderers]\nrace = old_race.web:RENDERER\n"
    ),
}
# The new shape, with the older entry points still in its metadata, naming modules now gone.
STALE = {
    **{name: text for name, text in FILES.items() if not name.endswith("entry_points.txt")},
    "referee_race-0.1.dist-info/entry_points.txt": (
        "[referee.games]\nrace = race_game.rules:GAME\n\n"
        "[referee.evaluations]\nrace = race_game.gone:evaluate\n\n"
        "[referee.renderers]\nrace = race_game.web:RENDERER\n"
    ),
}


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Installs (on the path of this process) the files a test writes into the folder it gets."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.split(".")[0] in ("old_race", "race_game")]:
        del sys.modules[name]
    protocols.refresh()


def test_an_older_plugin_has_its_evaluation_and_renderer(installed: Path) -> None:
    write(installed, OLD_STYLE)
    protocols.refresh()
    model = model_for("race")
    assert isinstance(model, GenericModel) and model.evaluation is not None
    assert model.evaluation.__module__ == "old_race.scoring"
    assert "board race old-style" in renderer_source("race")
    assert "board race old-style" in all_renderers()


def test_the_parts_beside_the_rules_come_first(installed: Path) -> None:
    write(installed, STALE)
    protocols.refresh()
    model = model_for("race")
    assert isinstance(model, GenericModel) and model.evaluation is not None
    assert model.evaluation.__module__ == "race_game.evaluation"
    script = all_renderers()
    assert 'class: "board race" }' in script and "console.warn" not in script
    assert renderer_source("race") == RENDERER

"""`referee play`'s game as the app plays it (referee/app/play_game.py): a request in, a result
out, nothing printed; what cannot be played is refused, as a value, before any bot starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.app.play_game import PlayRefused, PlayRequest, play_game, prepare_game
from referee.match.host import choose_host
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.records import Ply, read_record


def request(tmp_path: Path, record: str = "game.jsonl", opening: str | None = None) -> PlayRequest:
    settings = MatchSettings(random_assignment=False)
    players = tuple(
        PlayerSpec(
            name=name, command=resolve_command("builtin:random", "tic-tac-toe"), cwd=tmp_path
        )
        for name in ("first", "second")
    )
    return PlayRequest(
        game="tic-tac-toe",
        options={},
        players=(players[0], players[1]),
        settings=settings,
        isolation=choose_host(settings.isolation).isolation,
        seed=7,
        record_path=tmp_path / record,
        opening=opening,
    )


def test_a_game_is_played_to_its_record_and_its_lines_told_as_they_come(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    told: list[object] = []
    game = prepare_game(request(tmp_path))
    played = play_game(game, told.append)
    assert played.record is not None and played.refusal is None
    assert played.record.result is not None and not played.record.result.void
    assert read_record(tmp_path / "game.jsonl") == played.record
    assert [line for line in told if isinstance(line, Ply)] == played.record.plies
    assert capfd.readouterr() == ("", "")  # the command says what there is to say


def test_a_record_through_a_planted_link_is_refused_before_any_bot_starts(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    if os.geteuid() == 0:
        os.lchown(tmp_path / "out", 65534, 65534)  # planted by another user
    with pytest.raises(PlayRefused, match=r"^cannot write the record: "):
        prepare_game(request(tmp_path, record="out/game.jsonl"))
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_an_opening_that_is_not_the_games_is_refused_naming_the_flag(tmp_path: Path) -> None:
    with pytest.raises(PlayRefused, match=r"^--opening: "):
        prepare_game(request(tmp_path, opening="z9"))


def test_a_record_folder_another_user_could_write_in_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "referee-games"
    folder.mkdir()
    folder.chmod(0o777)
    if os.geteuid() == 0:
        os.chown(folder, 65534, 65534)  # made by another user, who could replace the records
    with pytest.raises(PlayRefused) as refused:
        prepare_game(request(tmp_path, record="referee-games/game.jsonl"))
    said = str(refused.value)
    assert said.startswith(f"cannot write the record: {folder} ")
    assert "--record" in said
    assert list(folder.iterdir()) == []

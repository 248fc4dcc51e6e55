"""Replays: frames from records through the rules, move marks, terminal boards, the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from rich.console import Console

from protocols import get_game
from protocols.base import Reason
from referee.records import Result
from referee.replay import FrameBuilder, build_replay, load_replay
from referee.views.boards import draw_board
from referee.views.console import replay_frame
from referee.web.html_export import replay_html
from tests.commandline import referee_here
from tests.replay.make_records import (
    GAMES,
    header_for,
    random_record,
    random_states,
    record_lines,
    strip_chain,
    write_record,
)

SEEDS = [1, 2, 3]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_name", GAMES)
def test_frames_are_the_rules_states(tmp_path: Path, game_name: str, seed: int) -> None:
    record = random_record(tmp_path / "g.jsonl", game_name, seed)
    replay = build_replay(record)
    states, _ = random_states(game_name, seed)
    game = get_game(game_name)
    assert replay.ok, replay.problems
    assert [f.state for f in replay.frames] == [dict(game.state_json(s)) for s in states]


@pytest.mark.parametrize("game_name", GAMES)
def test_live_frames_equal_replayed_frames(tmp_path: Path, game_name: str) -> None:
    record = random_record(tmp_path / "g.jsonl", game_name, 4)
    builder = FrameBuilder(record.header)
    live = [builder.first] + [builder.push(ply.received) for ply in record.plies]
    assert live == build_replay(record).frames


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_name", GAMES)
def test_marks_name_the_squares_the_move_changed(game_name: str, seed: int) -> None:
    """Where a move went now holds a piece of the mover; what it took is gone (or is its own)."""
    builder = FrameBuilder(header_for(game_name))
    _, moves = random_states(game_name, seed)
    for move in moves:
        mover = builder.state.to_move.value
        frame = builder.push(move)
        owners = square_owners(game_name, frame.state)
        assert frame.marks["to"] or move.endswith(" off"), move  # a Lielow stack may leave
        for square in frame.marks["to"]:
            assert owners.get(square) in (mover, "neutral"), (move, square)
        for square in frame.marks["removed"]:
            assert owners.get(square) in (None, mover), (move, square)
        for square in set(frame.marks["from"]) - set(frame.marks["to"]):
            assert owners.get(square) is None, (move, square)


def square_owners(game_name: str, state: dict[str, object]) -> dict[str, str]:
    """square id -> owner, from a game's state_json (the ids the views use)."""
    s: dict[str, object] = state
    if game_name == "lasker-morris":
        return {p: o for p, o in s["points"].items() if o}  # type: ignore[attr-defined]
    if game_name == "lielow":
        return {st["square"]: st["owner"] for st in s["stacks"]}  # type: ignore[attr-defined]
    if game_name == "legionnaires":
        return {sq: side for side, sqs in s["pawns"].items() for sq in sqs}  # type: ignore[attr-defined]
    if game_name == "l-game":
        return {
            f"{x},{y}": "neutral" if key == "neutrals" else key
            for key in ("blue", "orange", "neutrals")
            for x, y in s[key]  # type: ignore[attr-defined]
        }
    if game_name == "tic-tac-toe":
        return {sq: o for sq, o in s["cells"].items() if o}  # type: ignore[attr-defined]
    return {"abcdefghijklmnopqrstuvwxyz"[i]: o for i, o in enumerate(s["points"]) if o}  # type: ignore[arg-type]


def test_an_illegal_recorded_move_stops_the_replay_with_the_ply(tmp_path: Path) -> None:
    lines = record_lines("lasker-morris", 5)
    lines[4] = lines[4].model_copy(update={"received": "h1 z9 r0", "move": "h1 z9 r0"})
    path = tmp_path / "bad.jsonl"
    replay = build_replay(write_record(path, lines))
    assert len(replay.frames) == 4  # the start and plies 1..3
    assert replay.problems and replay.problems[0].startswith("ply 4: 'h1 z9 r0' is illegal")
    proc = referee_here("replay", str(path), "--verify-only", cwd=tmp_path)
    assert proc.returncode == 1
    assert "mismatch: ply 4" in proc.stdout


def test_a_result_that_does_not_follow_is_a_mismatch(tmp_path: Path) -> None:
    lines = record_lines("alak", 6)
    result = lines[-1]
    assert result.type == "result" and result.winner is not None
    lines[-1] = result.model_copy(update={"winner": result.winner.other})
    path = tmp_path / "swapped.jsonl"
    write_record(path, lines)
    proc = referee_here("replay", str(path), "--verify-only", cwd=tmp_path)
    assert proc.returncode == 1
    assert "the rules say" in proc.stdout


def test_a_wrong_game_ending_is_a_mismatch(tmp_path: Path) -> None:
    lines = record_lines("alak", 6)
    result = lines[-1]
    assert result.type == "result" and result.ending == "stone-count"
    lines[-1] = result.model_copy(update={"ending": "king-lost"})
    record = write_record(tmp_path / "wrong.jsonl", lines)
    replay = build_replay(record)
    assert len(replay.problems) == 1 and "by king-lost, the rules say" in replay.problems[0]
    assert replay.problems[0].endswith("by stone-count")


@pytest.mark.parametrize("ending", ["too-few-stones", "king-lost", "stone-count"])
def test_a_result_written_before_game_endings_still_reads(ending: str) -> None:
    """Older records gave a game's own ending as the reason itself."""
    old = {"type": "result", "winner": "blue", "reason": ending, "detail": "", "plies": 9}
    result = Result.model_validate({**old, "finished_at": "2026-01-01T00:00:00Z"})
    assert (result.reason, result.ending, result.why) == (Reason.GAME_ENDING, ending, ending)


@pytest.mark.parametrize(("reason", "ending"), [("game-ending", None), ("timeout", "king-lost")])
def test_an_ending_goes_with_reason_game_ending_only(reason: str, ending: str | None) -> None:
    line = {"type": "result", "winner": None, "reason": reason, "ending": ending, "detail": ""}
    with pytest.raises(ValidationError, match="exactly when the reason is game-ending"):
        Result.model_validate({**line, "plies": 3, "finished_at": "2026-01-01T00:00:00Z"})


def test_an_older_record_replays_and_says_by_its_ending(tmp_path: Path) -> None:
    random_record(tmp_path / "g.jsonl", "lielow", 2)
    strip_chain(tmp_path / "g.jsonl")
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    result = json.loads(lines[-1])
    assert (result["reason"], result["ending"]) == ("game-ending", "king-lost")
    del result["ending"]
    lines[-1] = json.dumps({**result, "reason": "king-lost"})
    (tmp_path / "g.jsonl").write_text("\n".join(lines) + "\n")
    proc = referee_here("replay", "g.jsonl", "--verify-only", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wins by king-lost" in proc.stdout
    assert "note: no hash chain (written by an older referee)" in proc.stdout


def test_verify_only_accepts_a_consistent_record(tmp_path: Path) -> None:
    record = random_record(tmp_path / "ok.jsonl", "legionnaires", 2)
    proc = referee_here("replay", "ok.jsonl", "--verify-only", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"verified: legionnaires, {len(record.plies)} plies" in proc.stdout


def test_a_malformed_record_names_file_and_line(tmp_path: Path) -> None:
    random_record(tmp_path / "r.jsonl", "alak", 1)
    strip_chain(tmp_path / "r.jsonl")  # else the edit is found first, as an edit
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    lines[2] = json.dumps({**json.loads(lines[2]), "side": "green"})
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    proc = referee_here("replay", "r.jsonl", cwd=tmp_path)
    assert proc.returncode == 2
    assert "r.jsonl:3: field" in proc.stderr and "side" in proc.stderr


def test_ply_prints_that_position_and_checks_the_range(tmp_path: Path) -> None:
    record = random_record(tmp_path / "r.jsonl", "lielow", 3)
    proc = referee_here("replay", "r.jsonl", "--ply", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "lielow: ply 2 of" in proc.stdout and "blue to move" in proc.stdout
    assert record.plies[1].move in proc.stdout
    bad = referee_here("replay", "r.jsonl", "--ply", "9999", cwd=tmp_path)
    assert bad.returncode == 2 and "--ply must be 0.." in bad.stderr


def test_without_a_terminal_the_final_position_is_printed(tmp_path: Path) -> None:
    record = random_record(tmp_path / "r.jsonl", "alak", 3)
    proc = referee_here("replay", "r.jsonl", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"ply {len(record.plies)} of {len(record.plies)}" in proc.stdout
    assert "by stone-count" in proc.stdout


@pytest.mark.parametrize("game_name", GAMES)
def test_terminal_boards_show_every_piece(tmp_path: Path, game_name: str) -> None:
    replay = load_replay_of(tmp_path, game_name)
    frame = replay.frames[len(replay.frames) // 2]
    text = draw_board(game_name, frame.state, frame.marks).plain
    owners = square_owners(game_name, frame.state)
    if game_name == "lasker-morris":
        hands = frame.state["hands"]
        assert text.count("●") == len(owners) + hands["blue"] + hands["orange"]
    elif game_name == "lielow":
        board_rows = text.splitlines()[1:9]
        kings = sum(row.count("♛") for row in board_rows)
        assert kings == sum(s["king"] for s in frame.state["stacks"])
        digits = sum(ch.isdigit() for row in board_rows for ch in row[3:-3])
        assert digits == len(frame.state["stacks"])
    elif game_name == "l-game":
        assert text.count("████") == 8 and text.count("◆◆") == 2
    elif game_name == "tic-tac-toe":
        board_rows = text.splitlines()[1:4]
        assert sum(row.count("X") + row.count("O") for row in board_rows) == len(owners)
    else:
        assert text.count("●") == len(owners)
    assert "last move:" in text


def load_replay_of(tmp_path: Path, game_name: str, seed: int = 1):  # type: ignore[no-untyped-def]
    path = tmp_path / f"{game_name}.jsonl"
    random_record(path, game_name, seed)
    return load_replay(path)


def test_replay_frame_shows_moves_clocks_and_the_verdict(tmp_path: Path) -> None:
    replay = load_replay_of(tmp_path, "legionnaires")
    console = Console(record=True, width=140)
    console.print(replay_frame(replay, len(replay.frames) - 1))
    text = console.export_text()
    assert replay.plies[-1].move in text
    assert "by no-legal-move" in text
    total_blue = sum(p.time_ms for p in replay.plies if p.side == "blue") / 1000
    assert f"{total_blue:.2f} s" in text


def test_html_export_is_self_contained(tmp_path: Path) -> None:
    lines = record_lines("alak", 2)
    header = lines[0]
    assert header.type == "header"
    evil = header.players["blue"].model_copy(update={"name": "</script><b>x"})
    lines[0] = header.model_copy(update={"players": {**header.players, "blue": evil}})
    write_record(tmp_path / "a.jsonl", lines)
    proc = referee_here("replay", "--html", "a.jsonl", "-o", "a.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "a.html").read_text()
    outside = page.replace('"http://www.w3.org/2000/svg"', "")  # a name, not an address
    for reference in ("http://", "https://", "src=", "href=", "url(", "fetch(", "EventSource"):
        assert reference not in outside, reference
    assert page.count("</script>") == page.count("<script")  # the name cannot end a script
    assert 'R.renderers["alak"]' in page
    assert page == replay_html(load_replay(tmp_path / "a.jsonl"))

"""Tamper-evident records: the hash chain as written, as read, and as `replay --verify-only`
reports it; and the records that are not valid at all (a void game with a winner) or not finished.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from protocols.base import Reason, Side
from referee.records import (
    EditedRecord,
    Ply,
    RecordError,
    Result,
    ply_data,
    read_chained_record,
    read_record,
    utc_now,
)
from tests.commandline import referee_here
from tests.replay.make_records import random_record, record_lines, strip_chain, write_record
from tests.replay.tamper import (
    EDITS_WITH_LINE,
    Lines,
    edit_move_and_rechain,
    read_lines,
    remove_last_ply_and_result,
    remove_result,
    tamper,
    write_lines,
)


def chain_of(path: Path) -> str | None:
    return read_chained_record(path).chain


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    random_record(path, "alak", 7)
    return path


@given(
    number=st.integers(1, 10_000),
    side=st.sampled_from(Side),
    received=st.text(),
    move=st.text(),
    time_ms=st.floats(0, 1e7),
    cpu_ms=st.none() | st.floats(0, 1e7),
)
def test_a_ply_line_is_made_as_the_model_would_serialise_it(
    number: int, side: Side, received: str, move: str, time_ms: float, cpu_ms: float | None
) -> None:
    """A ply's line is made without the model's serialiser (it is written on every move): the
    very same values, so the same canonical text and hash."""
    ply = Ply.model_construct(
        ply=number, side=side, received=received, move=move, time_ms=time_ms, cpu_ms=cpu_ms
    )
    made = ply_data(ply)
    assert made == ply.model_dump(mode="json")
    assert json.dumps(made, sort_keys=True) == json.dumps(
        ply.model_dump(mode="json"), sort_keys=True
    )


def test_the_chain_is_sha256_over_the_previous_hash_and_the_canonical_line(record: Path) -> None:
    """The format as documented, computed here without the referee's own functions."""
    previous = "0" * 64
    for raw in record.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        chain = line.pop("chain")
        canonical = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        previous = hashlib.sha256((previous + canonical).encode("utf-8")).hexdigest()
        assert chain == previous
    assert chain_of(record) == previous


def test_an_intact_record_verifies_with_its_final_hash(record: Path) -> None:
    proc = referee_here("replay", str(record), "--verify-only", cwd=record.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"hash chain intact; final hash {chain_of(record)}" in proc.stdout


def test_spacing_and_key_order_are_not_edits(record: Path) -> None:
    lines = read_lines(record)
    text = "".join(json.dumps(line, sort_keys=True, indent=1).replace("\n", "") + "\n"
                   for line in lines)  # fmt: skip
    record.write_text(text, encoding="utf-8")
    assert chain_of(record) == lines[-1]["chain"]


@pytest.mark.parametrize("name", sorted(EDITS_WITH_LINE))
def test_every_edit_is_found_at_its_line(record: Path, name: str) -> None:
    edit, line = EDITS_WITH_LINE[name]
    tamper(record, edit)
    line = line or len(read_lines(record))
    with pytest.raises(EditedRecord, match=f"game.jsonl:{line}: the record was edited after"):
        read_record(record)
    proc = referee_here("replay", "game.jsonl", "--verify-only", cwd=record.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"game.jsonl:{line}: the record was edited after it was written" in proc.stderr


@pytest.mark.parametrize("cut", [remove_result, remove_last_ply_and_result])
def test_a_record_cut_at_its_end_is_unfinished_not_edited(
    record: Path, cut: Callable[[Lines], Lines]
) -> None:
    """Only the store's final hash tells a cut record from a game whose referee stopped."""
    tamper(record, cut)
    assert read_record(record).result is None
    proc = referee_here("replay", "game.jsonl", "--verify-only", cwd=record.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "unfinished: alak" in proc.stdout and "no result line" in proc.stdout
    assert "edited" not in proc.stdout + proc.stderr


def test_a_rewritten_chain_reads_as_intact_but_ends_elsewhere(record: Path) -> None:
    """The chain holds no secret: what a rewrite cannot match is the final hash kept apart."""
    before = chain_of(record)
    tamper(record, edit_move_and_rechain)
    after = chain_of(record)
    assert after is not None and after != before


def test_a_chain_that_does_not_start_at_the_header_is_an_edit(record: Path) -> None:
    lines = read_lines(record)
    del lines[0]["chain"]
    write_lines(record, lines)
    with pytest.raises(EditedRecord, match=r"game.jsonl:2: .* does not start at the header"):
        read_record(record)


def test_an_older_record_without_a_chain_still_verifies_with_a_note(record: Path) -> None:
    strip_chain(record)
    assert chain_of(record) is None
    proc = referee_here("replay", "game.jsonl", "--verify-only", cwd=record.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified: alak" in proc.stdout
    assert "note: no hash chain (written by an older referee)" in proc.stdout


def test_an_unfinished_game_is_shown_but_does_not_verify(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    write_record(path, record_lines("lielow", 3)[:-1])
    proc = referee_here("replay", "cut.jsonl", "--verify-only", cwd=tmp_path)
    assert proc.returncode == 1 and "unfinished" in proc.stdout
    shown = referee_here("replay", "cut.jsonl", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr  # viewing it is fine
    assert "unfinished" in shown.stderr


def test_line_separators_inside_a_string_do_not_split_a_line(tmp_path: Path) -> None:
    lines = record_lines("alak", 2)
    result = lines[-1]
    assert isinstance(result, Result)
    lines[-1] = result.model_copy(update={"detail": "a\u2028b\u0085c"})
    assert write_record(tmp_path / "r.jsonl", lines).result == lines[-1]


# -- results that cannot be -----------------------------------------------------------------

RESULT = {"type": "result", "detail": "", "plies": 3, "finished_at": "2026-01-01T00:00:00Z"}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"winner": "blue", "reason": "interrupted", "void": True}, "a void game has no winner"),
        ({"winner": None, "reason": "interrupted", "void": False}, "interrupted voids the game"),
        ({"winner": None, "reason": "interrupted"}, "interrupted voids the game"),
        ({"winner": "blue", "reason": "timeout", "void": True}, "a void game has no winner"),
        ({"winner": None, "reason": "crash", "void": True}, "crash does not void the game"),
    ],
)
def test_void_must_agree_with_the_winner_and_the_reason(
    fields: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message) as caught:
        Result.model_validate({**RESULT, **fields})
    assert caught.value.errors()[0]["loc"] == ("void",)


def test_void_results_as_the_referee_writes_them_are_valid() -> None:
    for reason in Reason:
        winner = None if reason.voids_game else Side.BLUE
        result = Result(winner=winner, reason=reason, ending="x" if reason is Reason.GAME_ENDING
                        else None, detail="", plies=1, void=reason.voids_game,
                        finished_at=utc_now())  # fmt: skip
        assert result.void is reason.voids_game


def test_a_record_of_a_void_game_with_a_winner_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "void.jsonl"
    random_record(path, "alak", 3)
    strip_chain(path)  # not an edit of a chained record: a record wrong as written
    lines = read_lines(path)
    lines[-1] = {**lines[-1], "winner": "blue", "reason": "referee-fault", "ending": None,
                 "void": True}  # fmt: skip
    write_lines(path, lines)
    with pytest.raises(RecordError, match=r"void.jsonl:\d+: field result.void: .*no winner"):
        read_record(path)
    proc = referee_here("replay", "void.jsonl", "--verify-only", cwd=tmp_path)
    assert proc.returncode == 2 and "result.void" in proc.stderr and "no winner" in proc.stderr

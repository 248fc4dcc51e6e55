"""Edits of a written record, as someone changing a game after the fact would make them: each
takes the record's lines as JSON objects and returns them changed (the hashes left as they were,
unless the edit rewrites them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.records import GENESIS, next_chain

Lines = list[dict[str, Any]]


def read_lines(path: Path) -> Lines:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, lines: Lines) -> None:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")


def tamper(path: Path, edit: Callable[[Lines], Lines]) -> None:
    write_lines(path, edit(read_lines(path)))


def edit_move(lines: Lines) -> Lines:
    ply = lines[3]  # ply 3
    other = "a" if ply["move"] != "a" else "b"
    lines[3] = {**ply, "received": other, "move": other}
    return lines


def edit_time(lines: Lines) -> Lines:
    lines[2] = {**lines[2], "time_ms": lines[2]["time_ms"] + 1000.0}  # ply 2 took a second longer
    return lines


def edit_option(lines: Lines) -> Lines:
    options = lines[0]["options"]
    lines[0] = {**lines[0], "options": {**options, "ply_limit": options["ply_limit"] + 1}}
    return lines


def edit_player(lines: Lines) -> Lines:
    players = lines[0]["players"]
    blue = {**players["blue"], "name": "mallory"}
    lines[0] = {**lines[0], "players": {**players, "blue": blue}}
    return lines


def edit_detail(lines: Lines) -> Lines:
    lines[-1] = {**lines[-1], "detail": lines[-1]["detail"] + " (and a penalty)"}
    return lines


def remove_ply(lines: Lines) -> Lines:
    del lines[3]  # ply 3: ply 4 no longer follows
    return lines


def swap_plies(lines: Lines) -> Lines:
    lines[2], lines[3] = lines[3], lines[2]
    return lines


def remove_result(lines: Lines) -> Lines:
    return lines[:-1]


def remove_last_ply_and_result(lines: Lines) -> Lines:
    return lines[:-2]


def append_line(lines: Lines) -> Lines:
    last_ply = lines[-2]
    return [*lines, {**last_ply, "ply": last_ply["ply"] + 1}]


def rechain(lines: Lines) -> Lines:
    """Recompute every hash: what someone who knows the format does after editing."""
    previous = GENESIS
    for line in lines:
        previous = next_chain(previous, line)
        line["chain"] = previous
    return lines


def edit_move_and_rechain(lines: Lines) -> Lines:
    return rechain(edit_move(lines))


# Edits found by the record alone, with the line where its hash chain breaks.
EDITS_WITH_LINE: dict[str, tuple[Callable[[Lines], Lines], int | None]] = {
    "move": (edit_move, 4),
    "time": (edit_time, 3),
    "option": (edit_option, 1),
    "player": (edit_player, 1),
    "detail": (edit_detail, None),  # the last line
    "removed-ply": (remove_ply, 4),
    "swapped-plies": (swap_plies, 3),
    "appended-line": (append_line, None),  # the new last line
}

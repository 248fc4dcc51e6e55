"""A toy game made for the tests, as a package of its own: `race`, a token on a track of squares
a..g moved one or two squares on, whoever moves it onto the last square wins. `FILES` is a whole
installation (the folder and a dist-info with its one entry-point line), to be written into a
folder on the path."""

from __future__ import annotations

from pathlib import Path

RULES = '''\
"""Race: a token on a track of squares a..g; a move takes it one or two squares on (`1`, `2`);
whoever moves it onto the last square wins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from protocols.base import (
    BadSyntax, Game, IllegalMove, Outcome, Reason, Side, Touched, split_tokens
)
from protocols.options import GameOptions

TRACK = "abcdefg"


class RaceOptions(GameOptions):
    """No options."""


@dataclass(frozen=True)
class RaceState:
    at: int
    to_move: Side
    ply: int


class Race(Game[RaceState, int, RaceOptions]):
    name: ClassVar[str] = "race"
    options_model: ClassVar[type[GameOptions]] = RaceOptions
    endings: ClassVar[Mapping[str, str]] = {"finish": "the token is on the last square"}

    def initial_state(self, options: RaceOptions | None = None) -> RaceState:
        return RaceState(0, Side.BLUE, 0)

    def legal_moves(self, state: RaceState) -> Sequence[int]:
        return tuple(step for step in (1, 2) if state.at + step < len(TRACK))

    def parse_move(self, state: RaceState, line: str) -> int:
        tokens = split_tokens(line)
        if tokens not in (["1"], ["2"]):
            raise BadSyntax("a move is 1 or 2")
        if int(tokens[0]) not in self.legal_moves(state):
            raise IllegalMove(f"{tokens[0]}: past the last square")
        return int(tokens[0])

    def apply(self, state: RaceState, move: int) -> RaceState:
        return RaceState(state.at + move, state.to_move.other, state.ply + 1)

    def outcome(self, state: RaceState) -> Outcome | None:
        if state.at < len(TRACK) - 1:
            return None
        return Outcome(state.to_move.other, Reason.GAME_ENDING, "on the last square", "finish")

    def format_move(self, move: int) -> str:
        return str(move)

    def squares(self, state: RaceState) -> Sequence[str]:
        return tuple(TRACK)

    def touched(self, state: RaceState, move: int) -> Touched:
        return Touched(from_=(TRACK[state.at],), to=(TRACK[state.at + move],))

    def render_text(self, state: RaceState) -> str:
        return " ".join("@" if i == state.at else TRACK[i] for i in range(len(TRACK)))

    def state_json(self, state: RaceState) -> Mapping[str, Any]:
        return {"to_move": str(state.to_move), "ply": state.ply, "at": TRACK[state.at]}


GAME = Race()
'''
EVALUATION = '''\
"""Race is solved: the side to move wins unless the squares left are a multiple of three."""

from race_game.rules import TRACK, RaceState


def evaluate(state: RaceState) -> int:
    return -100 if (len(TRACK) - 1 - state.at) % 3 == 0 else 100
'''
BOARD = '''\
"""The track in the terminal: the token on its square, the squares' letters below."""

from protocols.drawing import Segment, mark_of, styled

TRACK = "abcdefg"


def draw(state, marks, colour):
    token = "@" if colour else "T"
    squares = []
    for square in TRACK:
        text = f" {token if square == state['at'] else '.'} "
        squares.append(Segment(text, styled("neutral", mark_of(square, marks))))
    return [squares, [Segment(f" {square} ", "label") for square in TRACK]]
'''
RENDERER = """\
(function () {
  "use strict";
  const R = window.Referee;
  R.renderers["race"] = function (state, marks) {
    const svg = R.svg("svg", { viewBox: "0 0 380 70", class: "board race" });
    "abcdefg".split("").forEach((square, i) => {
      R.svg("rect", { x: 10 + 52 * i, y: 10, width: 50, height: 50, class: "square" }, svg);
      R.drawMark(square, marks, (cls) =>
        R.svg("rect", { x: 10 + 52 * i, y: 10, width: 50, height: 50, class: cls }, svg));
      if (state.at === square) {
        R.svg("circle", { cx: 35 + 52 * i, cy: 35, r: 18, class: "piece neutral",
                          "data-square": square }, svg);
      }
    });
    return svg;
  };
})();
"""
# The whole installation: the package, and the one line that declares the game.
FILES = {
    "race_game/__init__.py": '"""Race, a toy game."""\n',
    "race_game/rules.py": RULES,
    "race_game/evaluation.py": EVALUATION,
    "race_game/board.py": BOARD,
    "race_game/renderer.js": RENDERER,
    "referee_race-0.1.dist-info/METADATA": "Name: referee-race\nVersion: 0.1\n",
    "referee_race-0.1.dist-info/entry_points.txt": "[referee.games]\nrace = race_game.rules:GAME\n",
}


def write(where: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path -> text) under `where`; returns `where`."""
    for name, text in files.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(text)
    return where

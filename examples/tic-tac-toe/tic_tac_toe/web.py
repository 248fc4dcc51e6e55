"""The board renderer for the referee's web view, found through the entry point
`referee.renderers` (`tic-tac-toe = "tic_tac_toe.web:RENDERER"`): the JavaScript source of
`renderer.js`, shipped in this package."""

from __future__ import annotations

from importlib import resources

RENDERER: str = resources.files("tic_tac_toe").joinpath("renderer.js").read_text(encoding="utf-8")

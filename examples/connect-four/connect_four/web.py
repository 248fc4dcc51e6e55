"""The board renderer for the referee's web view, found through the entry point
`referee.renderers` (`connect-four = "connect_four.web:RENDERER"`): the JavaScript source of
`renderer.js`, shipped in this package."""

from __future__ import annotations

from importlib import resources

RENDERER: str = resources.files("connect_four").joinpath("renderer.js").read_text(encoding="utf-8")

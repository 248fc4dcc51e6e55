"""docs/arena.md as a TA reads it, step by step: what its steps make must work in the order they
are given."""

from __future__ import annotations

from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "arena.md"


def test_the_term_makes_the_invite_links_after_the_url_is_set() -> None:
    # An invite link is made of `[server] url` when it is printed, and printed once: made
    # before the url is set, every link names the default address, which no student reaches.
    text = GUIDE.read_text(encoding="utf-8")
    steps = text[text.index("## A term, step by step") : text.index("## 1. Make the arena")]
    assert steps.index("set `[server] url`") < steps.index("referee arena accounts")

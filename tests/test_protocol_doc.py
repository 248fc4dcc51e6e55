"""docs/protocol.md is the protocol a bot author reads: complete (framing, verdicts, every game's
move line, the `position` extension), true to the code's defaults and rules, and the page the
README and the rules pages send readers to, rather than a specification they cannot see."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocols import builtin_names, get_game, parts
from protocols.base import Reason, Side
from referee.bot import DEFAULT_STDERR_TAIL
from referee.match.settings import MatchSettings
from referee.records import Result, utc_now

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
GAMES = builtin_names()


def flat(text: str) -> str:
    return " ".join(text.split())


def page_text(page: str) -> str:
    """README.md, or a game's rules page (the `rules.md` beside its rules)."""
    if page in GAMES:
        text = parts.text(page, parts.RULES_PAGE)
        assert text is not None, f"{page} has no rules page"
        return text
    return (ROOT / page).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", ["README.md", *GAMES], ids=str)
def test_readers_are_sent_to_the_protocol_page_not_to_a_section_they_cannot_see(page: str) -> None:
    text = page_text(page)
    assert not re.search(r"(?i)section \d|spec section|protocol spec", text), page
    assert "protocol.md" in text


def test_every_game_has_its_move_line_and_rules_page() -> None:
    for game in GAMES:
        folder = get_game(game).__module__.split(".")[1]
        assert f"(`{game}`)" in PROTOCOL, game
        assert f"(../protocols/{folder}/rules.md)" in PROTOCOL, game
        assert (ROOT / "protocols" / folder / "rules.md").is_file(), game


def test_the_numbers_are_the_referees_defaults() -> None:
    settings = MatchSettings()
    said = flat(PROTOCOL)
    assert f"at most {settings.max_line_bytes} bytes" in said
    assert f"its last {DEFAULT_STDERR_TAIL // 1024} KiB" in said
    assert f"per-move limit (default {settings.move_timeout:g} s)" in said
    assert f"plus a grace (default {settings.grace:g} s)" in said
    assert f"a start-up allowance on top (default {settings.startup_allowance:g} s)" in said
    assert f"a grace period (default {settings.exit_grace:g} s)" in said


def play(game_name: str, lines: list[str]) -> Side:
    """Play `lines` from the start; the side to move after them."""
    game = get_game(game_name)
    state = game.initial_state(game.parse_options({}))
    for line in lines:
        state = game.apply(state, game.parse_move(state, line))
        assert game.outcome(state) is None
    side: Side = state.to_move
    return side


def test_the_examples_are_legal_games() -> None:
    session = re.findall(r"(?:blue|orange) +-> referee: (.+)", PROTOCOL)
    assert session == ["h1 d1 r0", "h2 a4 r0"]
    assert play("lasker-morris", session) is Side.BLUE
    assert play("legionnaires", ["e6 g3"]) is Side.ORANGE  # the paper's opening, as quoted
    assert play("lielow", ["e2 e3"]) is Side.ORANGE


def test_the_position_extension_is_described_as_the_protocol_defines_it() -> None:
    said = flat(PROTOCOL)
    for sentence in (
        'a tournament player\'s `capabilities = ["position"]`',
        "Right after its colour line, such a bot receives `position K`, then K lines: the "
        "opening's moves in canonical form, oldest first",
        "`position 0` is never sent.",
        "when K is odd `orange` moves first",
        "is refused before any game is played, with a message naming the bot; it is never "
        "played from the start position instead.",
        "the opening's plies count toward the no-capture and repetition rules exactly as if the "
        "bots had played them.",
    ):
        assert sentence in said, sentence
    example = re.search(r"`position 3`, `([^`]+)`, `([^`]+)`, `([^`]+)`; the (\w+) bot", said)
    assert example is not None
    assert play("lasker-morris", list(example.groups()[:3])).value == example[4]


def test_the_page_says_how_a_result_line_names_an_ending() -> None:
    """A record splits an ending in two: `reason` (a rule ending every game may have, a verdict,
    or game-ending) and, for a game's own ending, its code in `ending`: as the page says."""
    text = flat(PROTOCOL)
    assert "`reason` is one of the endings every game may have" in text
    assert '(`"reason": "game-ending", "ending": "king-lost"`; `ending` is null otherwise)' in text
    own = Result(winner=Side.BLUE, reason=Reason.GAME_ENDING, ending="king-lost", detail="",
                 plies=9, finished_at=utc_now()).model_dump(mode="json")  # fmt: skip
    assert (own["reason"], own["ending"]) == ("game-ending", "king-lost")
    shared = Result(winner=None, reason=Reason.REPETITION, detail="", plies=9,
                    finished_at=utc_now()).model_dump(mode="json")  # fmt: skip
    assert (shared["reason"], shared["ending"]) == ("repetition", None)
    assert "king-lost" in get_game("lielow").endings

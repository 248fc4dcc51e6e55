"""Games from an opening through the protocol's `position` extension (spec 1.10): what each bot is
told, who moves first, the draw rules counting the opening, the record, and the refusal of a bot
that has not declared the extension."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocols import get_game
from protocols.base import Reason, Side
from referee.isolation import IsolationSettings
from referee.match.settings import MatchSettings
from referee.players import OpeningRefused, PlayerSpec, refuse_undeclared, resolve_command
from referee.records import read_record
from referee.verify import verify_record
from tests.games import play_game
from tests.scriptbots import quiet_opening, script_bot

SETTINGS = MatchSettings(
    move_timeout=5.0,
    random_assignment=False,
    isolation=IsolationSettings(level="basic+root"),
)
POSITION = frozenset({"position"})

# A bot that writes every line it is given to stderr, with the size of the read it came in, and
# plays the next moves of a fixed list when asked.
LISTENER = """
import json
moves = {moves!r}
lines = []
def read_all():
    data = os.read(0, 65536).decode()
    if not data:
        sys.exit(0)
    sys.stderr.write("read " + json.dumps(data) + "\\n")
    sys.stderr.flush()
    lines.extend(data.splitlines())
read_all()
colour = lines.pop(0)
told = 0
if lines and lines[0].startswith("position "):
    told = int(lines.pop(0).split()[1])
while len(lines) < told:
    read_all()
del lines[:told]
mine = colour == {mover!r}
while True:
    if mine:
        say(moves.pop(0))
    while not lines:
        read_all()
    if lines.pop(0) == "END":
        break
    mine = True
"""


def builtin(name: str, game: str = "lasker-morris") -> str:
    return resolve_command(f"builtin:{name}", game)


async def test_each_bot_is_told_the_opening_after_its_colour(tmp_path: Path) -> None:
    line = quiet_opening(20)
    opening, rest = line[:3], line[3:]  # three plies: orange moves first
    orange_moves, blue_moves = rest[0::2], rest[1::2]
    blue = script_bot(tmp_path, "blue", LISTENER.format(moves=blue_moves, mover="orange"))
    orange = script_bot(tmp_path, "orange", LISTENER.format(moves=orange_moves, mover="orange"))
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="b", command=blue, capabilities=POSITION),
        PlayerSpec(name="o", command=orange, capabilities=POSITION),
        settings=SETTINGS,
        opening=opening,
        record_path=tmp_path / "game.jsonl",
    )
    assert record.result is not None
    assert record.header.opening == opening
    assert record.plies[0].side is Side.ORANGE and record.plies[0].move == rest[0]
    # Each is told its colour, `position 3` and the three moves, before anything else.
    for side in Side:
        reads = record.result.bots[side].stderr_tail.splitlines()
        heard = "".join(json.loads(line[5:]) for line in reads if line.startswith("read "))
        told = f"{side.value}\nposition 3\n" + "\n".join(opening) + "\n"
        assert heard.startswith(told), heard
    # 3 opening plies and 17 played without a removal: the 20-ply draw counts the opening.
    assert (record.result.reason, len(record.plies)) == (Reason.NO_CAPTURE_LIMIT, 17)
    assert verify_record(read_record(tmp_path / "game.jsonl")).ok


@pytest.mark.parametrize("plies", [3, 4])
async def test_built_in_bots_take_over_where_the_opening_left(tmp_path: Path, plies: int) -> None:
    game = get_game("lasker-morris")
    opening = quiet_opening(plies)
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="random", command=builtin("random --seed 3")),
        PlayerSpec(name="search", command=builtin("search --depth 2")),
        settings=SETTINGS,
        opening=opening,
        record_path=tmp_path / "game.jsonl",
    )
    assert record.result is not None and not record.result.void
    assert record.result.reason is not Reason.CRASH, record.result.detail
    state = game.initial_state(None)
    for move in opening:
        state = game.apply(state, game.parse_move(state, move))
    assert record.plies[0].side is state.to_move  # orange after 3 plies, blue after 4
    game.parse_move(state, record.plies[0].move)  # legal where the bots took over
    assert verify_record(read_record(tmp_path / "game.jsonl")).ok


async def test_a_bot_that_has_not_declared_the_extension_is_refused_by_name(
    tmp_path: Path,
) -> None:
    student = PlayerSpec(name="alice", command="python3 alice.py")
    declared = PlayerSpec(name="bob", command="python3 bob.py", capabilities=POSITION)
    with pytest.raises(OpeningRefused, match="alice has not declared the 'position' extension"):
        await play_game("lasker-morris", declared, student, opening=quiet_opening(2))
    # Without an opening nothing is sent, and nothing is refused.
    refuse_undeclared([declared, student], [])

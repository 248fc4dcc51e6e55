"""A referee playing one game, to be killed with SIGKILL by a test.

Run as `python referee_to_kill.py LEVEL RECORD BLUE_CMD BLUE_DIR ORANGE_CMD ORANGE_DIR`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from referee.isolation import IsolationSettings
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec
from tests.games import play_game


def main() -> None:
    level, record, blue, blue_dir, orange, orange_dir = sys.argv[1:7]
    settings = MatchSettings(
        move_timeout=600.0,
        random_assignment=False,
        isolation=IsolationSettings(level=level, allow_root="users" not in level),
    )
    trio.run(
        lambda: play_game(
            "lasker-morris",
            PlayerSpec(name="blue", command=blue, cwd=Path(blue_dir)),
            PlayerSpec(name="orange", command=orange, cwd=Path(orange_dir)),
            settings=settings,
            record_path=Path(record),
        )
    )


if __name__ == "__main__":
    main()

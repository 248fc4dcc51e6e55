"""A tournament grows without losing what was played: a late player, more games per pairing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.commandline import referee_here

PLAYER = '[[players]]\nname = "{name}"\ncommand = "builtin:random --seed {seed}"\n'


def write(tmp_path: Path, names: list[str], per_pairing: int) -> None:
    head = 'name = "cup"\ngame = "alak"\ngame_options = { size = 5 }\nseed = 7\n'
    head += f"games_per_pairing = {per_pairing}\n"
    body = "".join(PLAYER.format(name=n, seed=i) for i, n in enumerate(names, start=1))
    (tmp_path / "cup.toml").write_text(head + body)


def games(tmp_path: Path) -> list[tuple[int, str, str, str, int, str | None, str | None]]:
    with sqlite3.connect(tmp_path / "cup" / "tournament.sqlite") as db:
        return db.execute(
            "SELECT number, blue, orange, state, attempts, winner, record FROM games"
            " ORDER BY number"
        ).fetchall()


def test_a_late_player_and_more_games_per_pairing_keep_the_games_played(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben", "cat"], 1)
    assert referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    played = games(tmp_path)
    assert len(played) == 3 and all(g[3] == "finished" for g in played)

    write(tmp_path, ["ann", "ben", "cat", "dan"], 2)
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "resuming: 3/12 games done" in done.stderr
    grown = games(tmp_path)
    assert grown[:3] == played  # untouched: same numbers, results, attempts and records
    assert len(grown) == 12 and all(g[3] == "finished" for g in grown)
    pairs: dict[frozenset[str], list[str]] = {}
    for _, blue, orange, *_ in grown:
        pairs.setdefault(frozenset((blue, orange)), []).append(blue)
    assert len(pairs) == 6 and all(len(blues) == 2 for blues in pairs.values())
    # Each pair played once in each colour.
    assert all(len(set(blues)) == 2 for blues in pairs.values())

    again = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert again.returncode == 0, again.stderr  # resumes the grown tournament as it is
    assert games(tmp_path) == grown


def test_a_player_who_leaves_still_changes_the_schedule(tmp_path: Path) -> None:
    write(tmp_path, ["ann", "ben", "cat"], 1)
    assert referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path).returncode == 0
    write(tmp_path, ["ann", "ben"], 1)
    done = referee_here("tournament", "run", "cup.toml", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "changes the schedule" in " ".join(done.stderr.split())

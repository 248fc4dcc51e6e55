"""The solved tables on disk: round trips, damaged and outdated files, concurrent writers, where
the cache lives, and perfect bots playing the same moves from a cached table as from a solve."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from bots.clock import unlimited
from bots.perfect_bot import AlakPerfect, LGamePerfect, alak_player, l_game_player
from bots.solvers import cache
from bots.solvers.alak import SortedKeys
from bots.solvers.alak import solve as solve_alak
from bots.solvers.l_game import solve as solve_l_game
from protocols.alak.rules import GAME as ALAK
from protocols.alak.rules import start_position
from protocols.base import Side
from protocols.l_game.rules import GAME as L_GAME

SIZE = 7  # an Alak board solved in milliseconds


def alak_file(directory: Path) -> Path:
    return directory / cache.file_name(cache.alak_table(SIZE))


def l_game_file(directory: Path) -> Path:
    return directory / cache.file_name(cache.L_GAME_TABLE)


def test_the_l_game_table_round_trips(tmp_path: Path) -> None:
    table = solve_l_game()
    path = cache.store_l_game(tmp_path, table)
    assert path == l_game_file(tmp_path)
    assert cache.load_l_game([tmp_path]) == table


def test_an_alak_table_round_trips_and_answers_every_lookup(tmp_path: Path) -> None:
    solution = solve_alak(SIZE)
    assert cache.store_alak(tmp_path, solution) == alak_file(tmp_path)
    loaded = cache.load_alak([tmp_path], SIZE)
    assert loaded is not None and isinstance(loaded.index, SortedKeys)
    assert len(loaded.index) == len(solution.index)
    for key in solution.index:
        assert loaded.lookup(key) == solution.lookup(key)
    with pytest.raises(KeyError):
        loaded.lookup(max(solution.index) + 1)  # an unreachable state, as with a solved table


def flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))


def rewrite_header(path: Path, change: Callable[[dict[str, object]], None]) -> None:
    header, _, payload = path.read_bytes().partition(b"\n")
    fields = json.loads(header)
    change(fields)
    path.write_bytes(json.dumps(fields).encode() + b"\n" + payload)


def other_version(fields: dict[str, object]) -> None:
    fields["version"] = cache.FORMAT_VERSION + 1


def other_table(fields: dict[str, object]) -> None:
    fields["table"] = cache.alak_table(SIZE + 1)


def other_layout(fields: dict[str, object]) -> None:
    fields["sections"] = [["keys", "q", 1], ["values", "B", 1], ["plies", "B", 1]]


DAMAGES: dict[str, Callable[[Path], object]] = {
    "payload changed": flip_last_byte,
    "cut short": lambda path: path.write_bytes(path.read_bytes()[:-100]),
    "empty": lambda path: path.write_bytes(b""),
    "not a table": lambda path: path.write_bytes(b"\x80\x04 pickled?\n" * 100),
    "wrong version": lambda path: rewrite_header(path, other_version),
    "another table's header": lambda path: rewrite_header(path, other_table),
    "another layout": lambda path: rewrite_header(path, other_layout),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_or_outdated_file_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    assert cache.store_alak(tmp_path, solve_alak(SIZE)) is not None
    DAMAGES[damage](alak_file(tmp_path))
    assert cache.load_alak([tmp_path], SIZE) is None
    path, built = cache.ensure_table(cache.alak_table(SIZE), tmp_path)
    assert (path, built) == (alak_file(tmp_path), True)
    assert cache.load_alak([tmp_path], SIZE) is not None
    assert cache.ensure_table(cache.alak_table(SIZE), tmp_path) == (path, False)


def test_values_out_of_range_are_refused_even_with_a_matching_checksum(tmp_path: Path) -> None:
    sections = cache.l_game_sections(solve_l_game())
    sections["values"][0] = 7
    cache.write_table(tmp_path, cache.L_GAME_TABLE, cache.L_GAME_LAYOUT, lambda: sections)
    assert cache.load_l_game([tmp_path]) is None


def test_the_bot_solves_past_a_damaged_file_and_replaces_it_after_its_first_move(
    tmp_path: Path,
) -> None:
    assert cache.store_l_game(tmp_path, solve_l_game()) is not None
    flip_last_byte(l_game_file(tmp_path))
    player = l_game_player(seed=1, dirs=[tmp_path])
    assert player.pending_save is not None  # it solved
    player(L_GAME.initial_state(), unlimited())
    assert cache.load_l_game([tmp_path]) is None  # nothing is written before the move is out
    player.after_move()
    assert cache.load_l_game([tmp_path]) == solve_l_game()
    assert l_game_player(seed=1, dirs=[tmp_path]).pending_save is None  # read, not solved


def test_a_bot_makes_the_cache_directory_but_not_a_missing_home(tmp_path: Path) -> None:
    table = solve_l_game()
    assert cache.store_l_game(tmp_path / "cache", table) == l_game_file(tmp_path / "cache")
    scratch_home = tmp_path / "scratch" / ".cache" / "referee"  # no .cache: not a person's HOME
    assert cache.store_l_game(scratch_home, table) is None
    assert not (tmp_path / "scratch").exists()
    assert cache.ensure_table(cache.L_GAME_TABLE, scratch_home) == (l_game_file(scratch_home), True)


def test_tables_are_readable_by_every_user_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o077)
    try:
        path, _ = cache.ensure_table(cache.alak_table(SIZE), tmp_path / "cache")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o755
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_bot_that_cannot_write_the_cache_plays_on_silently(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    player = alak_player(SIZE, seed=1, dirs=[tmp_path / "a-file" / "cache"])
    player(start_position(SIZE), unlimited())
    player.after_move()
    assert player.pending_save is None


def play_l_game(make: Callable[[int], LGamePerfect]) -> list[str]:
    state = L_GAME.initial_state()
    bots = {Side.BLUE: make(1), Side.ORANGE: make(2)}
    moves = []
    while L_GAME.outcome(state) is None:
        move = bots[state.to_move](state, unlimited())
        moves.append(L_GAME.format_move(move))
        state = L_GAME.apply(state, move)
    return moves


def play_alak(make: Callable[[int], AlakPerfect]) -> list[str]:
    state = start_position(SIZE, repetition=3, ply_limit=0)
    bots = {Side.BLUE: make(3), Side.ORANGE: make(4)}
    moves = []
    while ALAK.outcome(state) is None:
        move = bots[state.to_move](state, unlimited())
        moves.append(ALAK.format_move(move))
        state = ALAK.apply(state, move)
    return moves


def test_perfect_bots_play_the_same_moves_from_a_warm_cache(tmp_path: Path) -> None:
    cold, warm = tmp_path / "cold", tmp_path / "warm"
    cache.ensure_tables("l-game", None, warm)
    cache.ensure_tables("alak", ALAK.parse_options({"size": SIZE}), warm)
    assert l_game_player(1, [cold]).pending_save is not None  # solved
    assert l_game_player(1, [warm]).pending_save is None  # read
    assert play_l_game(lambda seed: l_game_player(seed, [warm])) == play_l_game(
        lambda seed: l_game_player(seed, [cold])
    )
    assert alak_player(SIZE, 1, [cold]).pending_save is not None
    assert alak_player(SIZE, 1, [warm]).pending_save is None
    assert play_alak(lambda seed: alak_player(SIZE, seed, [warm])) == play_alak(
        lambda seed: alak_player(SIZE, seed, [cold])
    )


def bot_answer(cache_dir: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "bots", "perfect", "--game", "alak", "--seed", "5"]
    argv += ["--options", json.dumps({"size": SIZE}), "--cache-dir", str(cache_dir)]
    return subprocess.run(
        argv, input="blue\nEND\n", capture_output=True, text=True, timeout=60, check=False
    )


def test_the_bot_program_saves_its_table_and_plays_the_same_from_it(tmp_path: Path) -> None:
    solved = bot_answer(tmp_path)
    assert solved.returncode == 0, solved.stderr
    assert cache.load_alak([tmp_path], SIZE) is not None  # saved after its move
    read = bot_answer(tmp_path)
    assert (read.returncode, read.stdout, read.stderr) == (0, solved.stdout, "")


def test_the_cache_directory_follows_the_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.search_dirs() == [tmp_path / "explicit"]
    assert cache.search_dirs(tmp_path / "given") == [tmp_path / "given"]
    monkeypatch.delenv("REFEREE_CACHE_DIR")
    assert cache.search_dirs() == [tmp_path / "xdg" / "referee"]
    monkeypatch.delenv("XDG_CACHE_HOME")
    # A replaced HOME (as the referee gives a bot): the account's own default is looked at too.
    account = cache.account_cache_dir()
    assert account is not None
    assert cache.search_dirs() == [tmp_path / "home" / ".cache" / "referee", account]


def test_the_cache_override_is_where_tables_are_built_and_found(
    private_table_cache: Path,
) -> None:
    assert cache.cache_dir() == private_table_cache
    assert cache.main(["--build", "--game", "alak", "--options", '{"size": 6}']) == 0
    assert (private_table_cache / cache.file_name(cache.alak_table(6))).is_file()
    assert cache.load_alak(cache.search_dirs(), 6) is not None
    assert cache.main(["--game", "alak", "--options", '{"size": 6}']) == 0  # valid
    assert cache.main(["--game", "alak", "--options", '{"size": 5}']) == 1  # missing


def test_a_writer_overtaken_by_another_leaves_a_valid_file_and_no_litter(tmp_path: Path) -> None:
    solution = solve_alak(SIZE)
    sections = cache.alak_sections(solution)
    table = cache.alak_table(SIZE)

    def overtaken() -> cache.Sections:
        # The first writer has its temporary file open when a second one writes in full.
        cache.write_table(tmp_path, table, cache.ALAK_LAYOUT, lambda: sections)
        assert cache.load_alak([tmp_path], SIZE) is not None
        return sections

    cache.write_table(tmp_path, table, cache.ALAK_LAYOUT, overtaken)
    assert cache.load_alak([tmp_path], SIZE) is not None
    assert os.listdir(tmp_path) == [alak_file(tmp_path).name]


def test_a_writer_that_fails_leaves_the_old_file_and_no_litter(tmp_path: Path) -> None:
    assert cache.store_alak(tmp_path, solve_alak(SIZE)) is not None

    def failing() -> cache.Sections:
        raise OSError("disk full")

    assert cache.store_table(tmp_path, cache.alak_table(SIZE), cache.ALAK_LAYOUT, failing) is None
    assert cache.load_alak([tmp_path], SIZE) is not None
    assert os.listdir(tmp_path) == [alak_file(tmp_path).name]


def test_concurrent_writers_and_readers_never_see_a_broken_table(tmp_path: Path) -> None:
    solution = solve_alak(SIZE)
    broken: list[int] = []
    stored: list[Path | None] = []

    def write() -> None:
        for _ in range(10):
            stored.append(cache.store_alak(tmp_path, solution))

    def read() -> None:
        for _ in range(50):
            if alak_file(tmp_path).exists() and cache.load_alak([tmp_path], SIZE) is None:
                broken.append(1)

    threads = [threading.Thread(target=work) for work in [write] * 4 + [read] * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not broken
    assert stored == [alak_file(tmp_path)] * 40
    assert os.listdir(tmp_path) == [alak_file(tmp_path).name]


WRITER = """
import sys
from pathlib import Path
from bots.solvers import alak, cache
directory, size = Path(sys.argv[1]), int(sys.argv[2])
sections = cache.alak_sections(alak.solve(size))
for _ in range(20):
    cache.write_table(directory, cache.alak_table(size), cache.ALAK_LAYOUT, lambda: sections)
"""


def test_concurrent_writer_processes_leave_one_valid_file(tmp_path: Path) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(SIZE)]) for _ in range(3)
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0, 0]
    assert cache.load_alak([tmp_path], SIZE) is not None
    assert os.listdir(tmp_path) == [alak_file(tmp_path).name]


async def test_a_game_waits_for_the_tables_another_game_is_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two games of a tournament start at once, both with the perfect bot on a cold cache: the
    # second must not start its bots (and their clocks) until the first game's build is done.
    from referee import builtin_tables

    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path))
    table = tmp_path / "built"

    async def build(command: list[str], **kwargs: object) -> None:
        await trio.sleep(0.2)
        table.write_text("table")

    monkeypatch.setattr(trio, "run_process", build)
    ready: list[bool] = []

    async def game() -> None:
        await builtin_tables.prepare_tables("alak", {"size": 11})
        ready.append(table.exists())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(game)
        nursery.start_soon(game)
    assert ready == [True, True]

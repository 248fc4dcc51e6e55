"""The hostile-bot catalogue: each misbehaviour gets its exact verdict at every isolation level
this machine offers, and nothing of either bot is left running afterwards.

The hostile bot plays blue (orange where the case needs it) against a well-behaved opponent; both
follow a fixed legal opening, so every verdict below is fully determined.
"""

from __future__ import annotations

import os
import socket
import tracemalloc
import uuid

import pytest
import trio

from protocols.base import Reason, Side
from referee.bot import open_bot
from referee.isolation import landlock
from referee.isolation.levels import Feature
from referee.isolation.proctree import process_cpu_seconds
from referee.players import PlayerSpec
from referee.records import Ply
from tests.games import play_game
from tests.isolation.arena import MOVES, Arena, has, leftover_processes, needs_any

BLUE, ORANGE = Side.BLUE, Side.ORANGE


def verdict(record: object) -> tuple[Side | None, Reason]:
    result = record.result  # type: ignore[attr-defined]
    return result.winner, result.reason


async def test_crash_at_start(arena: Arena) -> None:
    hostile = arena.hostile("note(\"ModuleNotFoundError: No module named 'numpy'\"); sys.exit(3)")
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.CRASH)
    assert record.result is not None
    # It died before its first move: the verdict itself carries its last words on stderr.
    assert record.result.detail.startswith(
        "blue: closed its output: exited with code 3; its stderr ends: HOME="
    )
    assert record.result.detail.endswith(" | ModuleNotFoundError: No module named 'numpy'")
    assert record.result.bots[BLUE].exit_code == 3
    arena.assert_nothing_left()


async def test_crash_mid_game(arena: Arena) -> None:
    hostile = arena.hostile("start(); hear(); os.kill(os.getpid(), signal.SIGSEGV)")
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.CRASH)
    assert record.result is not None
    assert record.result.detail == "blue: closed its output: killed by SIGSEGV"
    assert [p.move for p in record.plies] == MOVES[:2]
    assert record.result.bots[BLUE].exit_code == -11
    arena.assert_nothing_left()


async def test_never_answers(arena: Arena) -> None:
    record = await arena.play(arena.hostile("start(); hear(); time.sleep(600)"), arena.opponent())
    assert verdict(record) == (ORANGE, Reason.TIMEOUT)
    assert record.result is not None
    assert record.result.detail.startswith("blue: no complete line within the time limit")
    assert record.result.bots[BLUE].killed
    arena.assert_nothing_left()


async def test_answers_late(arena: Arena) -> None:
    hostile = arena.hostile("start(); hear(); time.sleep(2.5); say(MOVES.pop(0)); time.sleep(600)")
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.TIMEOUT)
    assert len(record.plies) == 2
    arena.assert_nothing_left()


async def test_writes_before_its_turn(arena: Arena) -> None:
    # Orange writes a move as soon as it knows its colour, before blue has moved.
    hostile = arena.hostile('hear(); say("h2 a1 r0"); time.sleep(600)', colour="orange")
    slow_blue = arena.opponent("blue", body="hear(); time.sleep(600)")
    record = await arena.play(slow_blue, hostile, arena.settings(move_timeout=60.0))
    assert verdict(record) == (BLUE, Reason.OUT_OF_TURN)
    assert record.result is not None and record.result.loser_line == "h2 a1 r0"
    assert record.plies == []
    arena.assert_nothing_left()


async def test_two_lines_in_one_turn(arena: Arena) -> None:
    hostile = arena.hostile("""
        start(); hear()
        sys.stdout.write(MOVES[0] + "\\n" + MOVES[1] + "\\n"); sys.stdout.flush()
        time.sleep(600)
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.OUT_OF_TURN)
    # The bot's second and third moves of the opening: the third is the line out of turn.
    assert record.result is not None and record.result.loser_line == MOVES[4]
    assert [p.move for p in record.plies][:2] == MOVES[:2] and len(record.plies) <= 3
    arena.assert_nothing_left()


async def test_hundred_megabyte_line_keeps_the_referee_small(arena: Arena) -> None:
    hostile = arena.hostile("""
        start(); hear()
        chunk = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.flush(); time.sleep(600)
    """)
    tracemalloc.start()
    try:
        record = await arena.play(hostile, arena.opponent())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert verdict(record) == (ORANGE, Reason.LINE_TOO_LONG)
    assert peak < 8 * 2**20, f"the referee held {peak} bytes at its peak"
    arena.assert_nothing_left()


@pytest.mark.parametrize(
    ("payload", "shown"),
    [
        ("b'\\x00\\x9f\\xff garbage \\xc3\\x28\\n'", "\x00\\x9f\\xff garbage \\xc3("),
        ("b'h1 \\xed\\xa0\\x80 r0\\n'", "h1 \\xed\\xa0\\x80 r0"),
    ],
    ids=["binary-garbage", "invalid-utf8"],
)
async def test_bytes_that_are_not_utf8(arena: Arena, payload: str, shown: str) -> None:
    hostile = arena.hostile(f"""
        start(); hear()
        sys.stdout.buffer.write({payload}); sys.stdout.flush(); time.sleep(600)
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.BAD_ENCODING)
    assert record.result is not None and record.result.loser_line == shown
    arena.assert_nothing_left()


async def test_closes_stdout_and_keeps_running(arena: Arena) -> None:
    record = await arena.play(
        arena.hostile("start(); hear(); os.close(1); time.sleep(600)"), arena.opponent()
    )
    assert verdict(record) == (ORANGE, Reason.CRASH)
    assert record.result is not None
    assert record.result.detail == "blue: closed its output but is still running"
    arena.assert_nothing_left()


async def test_ignores_sigterm_and_end(arena: Arena) -> None:
    # The opponent loses at once; the winner then ignores END, SIGTERM and its closed stdin.
    hostile = arena.hostile("""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        start()
        while True:
            time.sleep(1)
    """)
    bad_opponent = arena.opponent(body='start(); hear(); say("resign"); time.sleep(600)')
    record = await arena.play(hostile, bad_opponent)
    assert verdict(record) == (BLUE, Reason.BAD_SYNTAX)
    assert record.result is not None
    assert record.result.bots[BLUE].killed and record.result.bots[BLUE].exit_code == -9
    arena.assert_nothing_left()


async def test_child_holding_the_pipe_after_the_bot_exits(arena: Arena) -> None:
    hostile = arena.hostile("""
        start(); hear()
        if os.fork() == 0:
            time.sleep(600)  # keeps stdout open
        os._exit(0)
    """)
    record = await arena.play(hostile, arena.opponent())
    # The child still holds stdout, but the supervisor ends the bot's tree when the bot exits.
    assert verdict(record) == (ORANGE, Reason.CRASH)
    assert record.result is not None
    assert record.result.detail == "blue: closed its output: exited with code 0"
    arena.assert_nothing_left()


async def test_grandchild_that_leaves_the_process_group(arena: Arena) -> None:
    # A double fork with setsid: the supervisor (a subreaper) still has it in the bot's tree.
    hostile = arena.hostile("""
        start(); hear()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(600)
            os._exit(0)
        time.sleep(600)
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.TIMEOUT)
    arena.assert_nothing_left()


async def test_child_that_leaves_the_group_is_frozen_and_killed(arena: Arena) -> None:
    # setpgid(0, 0) alone (no setsid): the child spins while its parent plays on. Whenever blue
    # is not on move, its whole tree is frozen: the child gets no CPU on orange's time. The
    # parent leaves after three moves, and the child must still go with the game.
    hostile = arena.hostile("""
        if os.fork() == 0:
            os.setpgid(0, 0)
            while True:
                pass
        start()
        turn()
        turn()
    """)
    slow_orange = arena.opponent(body=SLOW_OPPONENT)
    marks: list[float] = []

    def on_line(line: object) -> None:
        if isinstance(line, Ply):
            marks.append(sum(process_cpu_seconds(p) for p in leftover_processes([hostile[1]])))

    settings = arena.settings(move_timeout=5.0)
    record = await play_game(
        "lasker-morris",
        PlayerSpec(name="blue-bot", command=hostile[0], cwd=hostile[1]),
        PlayerSpec(name="orange-bot", command=slow_orange[0], cwd=slow_orange[1]),
        settings=settings.model_copy(update={"random_assignment": False}),
        listener=on_line,
    )
    assert record.result is not None and len(record.plies) >= 4
    # marks[i] is taken right after ply i+1: blue's plies are the odd ones, so between marks[0]
    # (blue just moved) and marks[1] (orange answered after 0.5 s), blue's tree used CPU only
    # during the grace before a pondering bot is frozen.
    assert marks[1] - marks[0] < settings.freeze_grace + 0.05, marks
    arena.assert_nothing_left()


@needs_any(
    Feature.USERS,
    Feature.CGROUP,
    why="only the users and cgroup levels limit processes (root ignores RLIMIT_NPROC)",
)
async def test_thread_bomb(arena: Arena) -> None:
    # Threads count as processes: at the users level the user's process limit refuses them
    # before the cgroup's does, and the bot dies of the refusal with a traceback.
    hostile = arena.hostile("""
        import threading
        start(); hear()
        while True:
            threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.RESOURCE_LIMIT)
    assert record.result is not None
    assert "hit the process limit (48 processes and threads)" in record.result.detail
    arena.assert_nothing_left()


@needs_any(
    Feature.USERS,
    Feature.CGROUP,
    why="only the users and cgroup levels limit processes (root ignores RLIMIT_NPROC)",
)
async def test_fork_bomb(arena: Arena) -> None:
    hostile = arena.hostile("""
        start(); hear()
        forked = 0
        try:
            while forked < 10000:
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
                forked += 1
        except OSError as exc:
            note(f"forked {forked}: {exc}")
        time.sleep(600)
    """)
    record = await arena.play(hostile, arena.opponent())
    # It was refused processes, then stuck: the verdict names the limit, not a timeout.
    assert verdict(record) == (ORANGE, Reason.RESOURCE_LIMIT)
    assert record.result is not None
    assert record.result.detail.startswith(
        "blue: hit the process limit (48 processes and threads), then wrote no complete line"
    )
    tail = record.result.bots[BLUE].stderr_tail
    forked = int(tail.split("forked ")[1].split(":")[0])
    assert forked < arena.settings().limits.processes  # type: ignore[operator]
    arena.assert_nothing_left()


async def test_memory_hog(arena: Arena) -> None:
    hostile = arena.hostile("start(); hear(); hog = bytearray(1 << 30); say(MOVES.pop(0))")
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.RESOURCE_LIMIT)
    assert record.result is not None
    if has(arena.level, Feature.CGROUP):
        # The kernel kills the bot at the cgroup's limit.
        assert record.result.detail == (
            "blue: closed its output: killed by SIGKILL: hit the memory limit (256 MB)"
        )
    else:
        # RLIMIT_DATA: the allocation fails inside the bot, which dies of the MemoryError.
        assert record.result.detail == (
            "blue: closed its output: exited with code 1: hit the memory limit (256 MB)"
        )
        assert "MemoryError" in record.result.bots[BLUE].stderr_tail
    arena.assert_nothing_left()


@pytest.mark.parametrize(
    ("files", "megabytes", "limit", "error"),
    [
        # One big file passes the file size limit (8 MB).
        (1, 1024, "hit the file size limit (8 MB)", "File too large"),
        # Many files under the file size limit pass, together, the 32 MB of the bot's private
        # space, which is bounded as a whole.
        (64, 7, "hit the disk limit (32 MB in its private /tmp and HOME)", "No space left"),
    ],
    ids=["one-big-file", "many-small-files"],
)
async def test_disk_filler(
    arena: Arena, files: int, megabytes: int, limit: str, error: str
) -> None:
    hostile = arena.hostile(f"""
        start(); hear()
        for n in range({files}):
            with open(os.path.join(os.environ["TMPDIR"], f"fill{{n}}"), "wb") as f:
                for _ in range({megabytes}):
                    f.write(b"x" * (1 << 20)); f.flush()
        say(MOVES.pop(0))
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.RESOURCE_LIMIT)
    assert record.result is not None
    assert record.result.detail == f"blue: closed its output: exited with code 1: {limit}"
    assert error in record.result.bots[BLUE].stderr_tail
    arena.assert_nothing_left()


async def test_what_a_bot_user_writes_outside_its_space_is_removed(arena: Arena) -> None:
    name = f"left-by-hostile-{uuid.uuid4().hex}"  # this test's own: others run beside it
    hostile = arena.hostile(f"""
        start(); hear()
        for root in ("/tmp", "/var/tmp", "/dev/shm"):
            try:
                with open(os.path.join(root, "{name}"), "w") as f:
                    f.write("x")
            except OSError:
                pass
        say("done")
    """)
    await arena.play(hostile, arena.opponent())
    for root in ("/tmp", "/var/tmp", "/dev/shm"):
        left = os.path.join(root, name)
        if has(arena.level, Feature.USERS) or has(arena.level, Feature.SANDBOX):
            assert not os.path.exists(left), f"{left} was left"
        elif os.path.exists(left):
            os.unlink(left)  # the basic level runs bots as the referee's own user: not tracked
    arena.assert_nothing_left()


async def test_never_reads_its_input(arena: Arena) -> None:
    # A megabyte line fills the pipe of a bot that never reads: the write itself is bounded.
    command, directory = arena.hostile("time.sleep(600)")
    isolation = arena.isolation()
    async with open_bot(command, cwd=directory, isolation=isolation, exit_grace=0.3) as bot:
        with pytest.raises(Exception) as info:
            await bot.ask("x" * 1_000_000, trio.current_time() + 1.0)
    assert getattr(info.value, "reason", None) is Reason.TIMEOUT
    arena.assert_nothing_left()


async def test_fifty_megabytes_of_stderr(arena: Arena) -> None:
    hostile = arena.hostile("""
        start(); hear()
        block = "e" * 1023 + "\\n"
        for _ in range(50 * 1024):
            sys.stderr.write(block)
        note("last words"); say(MOVES.pop(0))
        hear(); say("done")
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.BAD_SYNTAX)
    assert record.result is not None and record.result.loser_line == "done"
    assert len(record.plies) == 4  # the move after the flood was played
    report = record.result.bots[BLUE]
    home_line = report.stderr_tail  # the HOME line scrolled out; count the rest exactly
    assert report.stderr_bytes > 50 * 2**20
    assert len(home_line) == 16384 and home_line.endswith("last words\n")
    arena.assert_nothing_left()


async def test_network_is_blocked_in_the_sandbox_and_wherever_the_referee_is_root(
    arena: Arena,
) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    try:
        hostile = arena.hostile(f"""
            import socket
            start(); hear()
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
                say("network-reached")
            except OSError:
                say("network-blocked")
        """)
        record = await arena.play(hostile, arena.opponent())
    finally:
        listener.close()
    assert verdict(record) == (ORANGE, Reason.BAD_SYNTAX)
    blocked = has(arena.level, Feature.SANDBOX) or os.geteuid() == 0
    expected = "network-blocked" if blocked else "network-reached"
    assert record.result is not None and record.result.loser_line == expected
    arena.assert_nothing_left()


async def test_reaching_the_opponent_and_the_referee(arena: Arena) -> None:
    # Five probes: the opponent's program directory, what it wrote in its HOME at start-up, its
    # output pipe through /proc (to write moves in its name), and a signal to the referee and to
    # the opponent.
    opponent = arena.opponent()
    hostile = arena.hostile(f"""
        import glob
        def probe(paths):
            for path in paths:
                try:
                    with open(path) as f:
                        if "secret" in f.read():
                            return "read"
                except OSError:
                    pass
            return "blocked"
        def pipe():
            for cmd in glob.glob("/proc/[0-9]*/cmdline"):
                try:
                    if b"opponent.py" in open(cmd, "rb").read():
                        os.close(os.open(cmd.replace("cmdline", "fd/1"), os.O_WRONLY))
                        return "opened"
                except OSError:
                    pass
            return "blocked"
        def signal_referee():
            try:
                os.kill({os.getpid()}, 0)
                return "reached"
            except OSError:
                return "blocked"
        def signal_opponent():
            for cmd in glob.glob("/proc/[0-9]*/cmdline"):
                try:
                    if b"opponent.py" in open(cmd, "rb").read():
                        os.kill(int(cmd.split("/")[2]), 0)
                        return "reached"
                except (OSError, ValueError):
                    pass
            return "blocked"
        start(); hear()
        program = probe([{str(opponent[1] / "secret")!r}])
        homes = probe(glob.glob("/tmp/referee-scratch-*/referee-bot-*/secret"))
        say(f"dir-{{program}}-home-{{homes}}-pipe-{{pipe()}}-referee-{{signal_referee()}}"
            f"-opponent-{{signal_opponent()}}")
    """)
    record = await arena.play(hostile, opponent)
    assert verdict(record) == (ORANGE, Reason.BAD_SYNTAX)
    sandbox, users = has(arena.level, Feature.SANDBOX), has(arena.level, Feature.USERS)
    apart = sandbox or users
    # Where the referee is root, a bot's /tmp is its own at every level: the opponent's folder
    # and scratch, both in the machine's /tmp here, are not in its view. Its Landlock domain
    # keeps every other process's descriptors out of its reach, and (scoped, from ABI 6) its
    # signals, at every level.
    hidden = sandbox or os.geteuid() == 0
    traced = apart or landlock.abi() >= 1
    signalled = apart or landlock.abi() >= landlock.FIRST_SCOPED_ABI
    expected = (
        f"dir-{'blocked' if hidden else 'read'}-home-{'blocked' if apart or hidden else 'read'}"
        f"-pipe-{'blocked' if traced else 'opened'}"
        f"-referee-{'blocked' if signalled else 'reached'}"
        f"-opponent-{'blocked' if signalled else 'reached'}"
    )
    assert record.result is not None and record.result.loser_line == expected
    arena.assert_nothing_left()


SPINNER = """
    import threading
    def spin():
        while True:
            pass
    threading.Thread(target=spin, daemon=True).start()
    start()
    for _ in range(3):
        mark = time.process_time()
        hear()
        note(f"pondered {time.process_time() - mark:.3f}")
        say(MOVES.pop(0))
    hear(); say("done")
"""
SLOW_OPPONENT = """
colour = start()
while (line := hear()) not in ("END", ""):
    time.sleep(0.5)
    say(MOVES.pop(0))
"""


def pondered(record: object) -> list[float]:
    tail = record.result.bots[BLUE].stderr_tail  # type: ignore[attr-defined]
    return [float(line.split()[1]) for line in tail.splitlines() if line.startswith("pondered")]


@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "not-frozen"])
async def test_busy_loop_on_the_opponents_time(arena: Arena, freeze: bool) -> None:
    settings = arena.settings(move_timeout=5.0, freeze=freeze)
    record = await arena.play(arena.hostile(SPINNER), arena.opponent(body=SLOW_OPPONENT), settings)
    assert verdict(record) == (ORANGE, Reason.BAD_SYNTAX)
    times = pondered(record)
    assert len(times) == 3
    if freeze:
        # Frozen while the opponent thought for 0.5 s a turn: almost no CPU in that time.
        assert max(times) < 0.15, times
    else:
        assert sum(times) > 0.15, times
    assert all(p.cpu_ms is not None for p in record.plies)
    arena.assert_nothing_left()


async def test_unflushed_move_times_out_with_a_hint(arena: Arena) -> None:
    hostile = arena.hostile("""
        start()
        out = open(1, "w", buffering=8192, closefd=False)
        hear(); out.write(MOVES.pop(0) + "\\n")  # no flush
        hear()
    """)
    record = await arena.play(hostile, arena.opponent())
    assert verdict(record) == (ORANGE, Reason.TIMEOUT)
    assert record.result is not None
    assert "did you flush stdout" in record.result.detail
    arena.assert_nothing_left()


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("/no/such/program", "command not found: '/no/such/program'"),
        ("./hostile.py", "'./hostile.py' is not executable (try chmod +x)"),
    ],
    ids=["not-found", "not-executable"],
)
async def test_program_that_cannot_start(arena: Arena, program: str, message: str) -> None:
    _, directory = arena.hostile("pass")
    record = await arena.play((program, directory), arena.opponent())
    assert verdict(record) == (ORANGE, Reason.CRASH)
    assert record.result is not None
    assert record.result.detail == f"blue: could not start: {message}"
    arena.assert_nothing_left()


async def test_an_opponent_folder_holding_the_launcher_hides_only_itself(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled helper is kept in the cache folder, which every sandbox shows (the perfect
    bots' tables are there too) and which an opponent may name as its own (a perfect bot names
    its tables): the sandbox hides the opponent's folder from the bot again, but not the
    program that starts the bot inside it."""
    opponent = arena.opponent()
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(opponent[1]))
    hostile = arena.hostile(f"""
        start(); hear()
        try:
            open({str(opponent[1] / "secret")!r}).read()
            say("secret-read")
        except OSError:
            say("secret-blocked")
    """)
    record = await arena.play(hostile, opponent)
    assert verdict(record) == (ORANGE, Reason.BAD_SYNTAX)  # both started: no void
    seen = "blocked" if has(arena.level, Feature.SANDBOX) else "read"
    assert record.result is not None and record.result.loser_line == f"secret-{seen}"
    arena.assert_nothing_left()

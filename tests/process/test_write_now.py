"""`write_now`: a move written straight to the pipe, and what is left for trio's own path."""

from __future__ import annotations

import fcntl
import os

from referee.bot import write_now


def test_a_line_is_written_at_once_when_the_pipe_has_room() -> None:
    read, write = os.pipe()
    try:
        assert write_now(write, b"h1 d1 r0\n") == b""
        assert os.read(read, 100) == b"h1 d1 r0\n"
    finally:
        os.close(read)
        os.close(write)


def test_what_a_full_pipe_cannot_take_is_left_to_write() -> None:
    read, write = os.pipe()
    try:
        os.set_blocking(write, False)
        size = fcntl.fcntl(write, fcntl.F_GETPIPE_SZ)
        assert write_now(write, b"x" * size + b"rest") == b"rest"  # room for `size` bytes
        assert write_now(write, b"more") == b"more"  # no room: all of it is left
    finally:
        os.close(read)
        os.close(write)


def test_a_broken_pipe_or_no_pipe_leaves_everything_to_write() -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        assert write_now(write, b"END\n") == b"END\n"  # trio's path reports the error
    finally:
        os.close(write)
    assert write_now(-1, b"END\n") == b"END\n"

"""What a connection to the web view costs: a response that says `Connection: close` is followed
by the close (counted in the server's open files), an idle kept-alive connection is closed by
the server, and bytes that are not HTTP get a 400 rather than a silent close."""

from __future__ import annotations

import os
import random
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from referee.web.listen import can_begin_request
from tests.replay.make_records import random_record

CONNECTIONS = 100
SLACK = 5  # files the server may open for its own needs meanwhile; a kept connection is one each
PATHS = ["/", "/static/style.css", "/api/archive", "/replay/0/g.jsonl"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, int]]:
    """`referee serve` of a folder with one record, in its own process: (pid, port)."""
    folder = tmp_path_factory.mktemp("served")
    random_record(folder / "g.jsonl", "alak", 3)
    command = [sys.executable, "-m", "referee", "serve", str(folder), "--port", "0"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        port = None
        while port is None:
            line = process.stderr.readline()
            assert line, "the server stopped before it said where it listens"
            if found := re.search(r"web view: http://127\.0\.0\.1:(\d+)/", line):
                port = int(found[1])
        yield process.pid, port
    finally:
        process.terminate()
        process.wait(30)


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def request(port: int, path: str, close: bool) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port), timeout=30)
    header = "Connection: close\r\n" if close else ""
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{header}\r\n".encode())
    return client


def read_to_close(client: socket.socket) -> bytes:
    """Everything the server sends until it closes (a timeout fails the test)."""
    data = b""
    while chunk := client.recv(65536):
        data += chunk
    return data


def test_connection_close_is_honoured_for_pages_files_and_json(served: tuple[int, int]) -> None:
    pid, port = served
    for path in PATHS:  # the server's own first-use files (threads, wake-ups) opened beforehand
        with request(port, path, close=True) as client:
            read_to_close(client)
    before = open_files(pid)
    with ExitStack() as held:  # the clients keep their ends open: the server must close its own
        clients = [
            held.enter_context(request(port, PATHS[i % len(PATHS)], close=True))
            for i in range(CONNECTIONS)
        ]
        answers = [read_to_close(client) for client in clients]
        assert {answer[:12] for answer in answers} == {b"HTTP/1.1 200"}
        assert all(b"connection: close" in answer.lower() for answer in answers)
        assert open_files(pid) <= before + SLACK  # not one per connection
    assert open_files(pid) <= before + SLACK


def read_response(client: socket.socket) -> bytes:
    """One response's head and body (by its content-length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += client.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: (\d+)", head.lower())[1])  # type: ignore[index]
    while len(body) < length:
        body += client.recv(65536)
    return head


def test_an_idle_kept_alive_connection_is_closed_by_the_server(served: tuple[int, int]) -> None:
    _, port = served
    with request(port, "/", close=False) as client:
        head = read_response(client)
        assert head.startswith(b"HTTP/1.1 200") and b"connection: close" not in head.lower()
        client.sendall(b"GET /api/archive HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # kept alive
        assert read_response(client).startswith(b"HTTP/1.1 200")
        assert read_to_close(client) == b""  # then idle: the server closes it (or times out)


def test_a_request_never_finished_is_closed_by_the_server(served: tuple[int, int]) -> None:
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: 127")
        assert read_to_close(client) == b""


@pytest.mark.parametrize("seed", range(5))
def test_random_bytes_get_a_400(served: tuple[int, int], seed: int) -> None:
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(random.Random(seed).randbytes(512))
        assert read_to_close(client).startswith(b"HTTP/1.1 400 Bad Request")


@pytest.mark.parametrize(
    ("head", "verdict"),
    [
        (b"GET / HTTP/1.1\r\n", True),
        (b"\r\nGET ", True),
        (b"M-SEARCH * HTTP/1.1", True),
        (b"", None),
        (b"\r\n", None),
        (b"GE", None),
        (b"\x16\x03\x01\x02\x00", False),  # a TLS hello
        (b"GET\n", False),
        (b"A" * 40, False),
        (b"<html>", False),
    ],
)
def test_the_start_of_a_request_line(head: bytes, verdict: bool | None) -> None:
    assert can_begin_request(head) is verdict

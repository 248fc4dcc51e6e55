"""The web view's connections: hypercorn's HTTP/1.1 server on trio, with three guarantees about
what a connection costs.

- A response that says `Connection: close` (because the request asked for it) is followed by
  the connection's close. Starlette sends a file while it waits for the client to go away and,
  once the file is sent, cancels that wait, which could cancel hypercorn halfway through closing
  the connection: the socket stayed open for as long as the client kept it. `shielded_sends`
  lets a send the application has started finish.
- An idle kept-alive connection is closed after `KEEP_ALIVE_SECONDS`, and so is one that never
  completes a request.
- A connection whose first bytes cannot begin an HTTP request line (a method name, then a space)
  gets a 400 at once rather than a silent close once the idle time is over: hypercorn's parser
  only judges a request once its header block ends, which random bytes never do.

`serve` is hypercorn's trio worker reduced to what the web view uses (plain HTTP, no lifespan
events), so that each accepted connection can be checked before hypercorn reads it.
"""

from __future__ import annotations

import contextlib
import re
import socket
from typing import Any, cast

import trio
from hypercorn.config import Config
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ASGIFramework
from hypercorn.utils import repr_socket_addr, wrap_app
from starlette.types import ASGIApp, Message, Receive, Scope, Send

KEEP_ALIVE_SECONDS = 5.0  # an idle connection, or one that never completes a request, is closed
# The start of a request line (RFC 9112, 2.2 and 3): blank lines may come first, then a method
# (a token) and a space. A method longer than this is not one a server knows.
_REQUEST_START = re.compile(rb"(?:\r?\n)*[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}( |\Z)")
_BAD_REQUEST = (
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 24\r\nconnection: close\r\n\r\nnot an HTTP/1.1 request\n"
)


def http_config(bind: str) -> Config:
    """The server's settings: quiet, quick to stop, idle connections bounded."""
    config = Config()
    config.bind = [bind]
    config.accesslog = None
    config.graceful_timeout = 1.0
    config.loglevel = "WARNING"
    config.keep_alive_timeout = KEEP_ALIVE_SECONDS
    return config


def can_begin_request(head: bytes) -> bool | None:
    """Whether the first bytes of a connection can begin an HTTP request (None: too few bytes
    to tell yet)."""
    if not head.strip(b"\r\n"):
        return None
    found = _REQUEST_START.match(head)
    if found is None:
        return False
    return True if found[1] else None


class RequestLineGuard(trio.abc.HalfCloseableStream):
    """A connection's stream as hypercorn reads it: the first bytes are checked on their way,
    and a connection that cannot be HTTP is answered 400 and shown to hypercorn as closed."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self._stream = stream
        self.socket = stream.socket  # hypercorn reads the peer's address from it
        self._head = b""
        self._checked = False

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self._stream.receive_some(max_bytes)
        if self._checked or not data:
            return data
        self._head += data
        verdict = can_begin_request(self._head)
        if verdict is None:
            return data
        self._checked = True
        if verdict:
            return data
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self._stream.send_all(_BAD_REQUEST)  # a client gone already needs no answer
        await self._stream.aclose()  # now, not when hypercorn's idle timer ends
        return b""  # the end of the connection, as far as hypercorn is concerned

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self._stream.send_eof()

    async def aclose(self) -> None:
        await self._stream.aclose()


def shielded_sends(app: ASGIApp) -> ASGIApp:
    """`app` with each of its sends finished even when the task sending is cancelled meanwhile
    (hypercorn writes and closes inside a send: cut short, a connection is left open)."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_whole(message: Message) -> None:
            with trio.CancelScope(shield=True):
                await send(message)

        await app(scope, receive, send_whole)

    return guarded


async def serve(
    app: ASGIApp,
    config: Config,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `app` over plain HTTP on `config.bind` until cancelled; `task_status` gets the
    addresses it listens on."""
    wrapped = wrap_app(cast(ASGIFramework, shielded_sends(app)), config.wsgi_max_body_size, "asgi")
    context = WorkerContext(None)
    sockets = config.create_sockets().insecure_sockets
    listeners = []
    for sock in sockets:
        sock.listen(config.backlog)
        listeners.append(trio.SocketListener(trio.socket.from_stdlib_socket(sock)))

    async def connection(stream: trio.SocketStream) -> None:
        # Typed for TLS streams, it serves plain ones as its own worker does.
        guarded = cast(Any, RequestLineGuard(stream))
        await TCPServer(wrapped, config, context, {}, guarded)

    try:
        async with trio.open_nursery() as nursery:
            binds = [f"http://{_address(sock)}" for sock in sockets]
            await nursery.start(trio.serve_listeners, connection, listeners)
            task_status.started(binds)
    finally:
        with trio.CancelScope(shield=True):
            await context.terminated.set()


def _address(sock: socket.socket) -> str:
    return repr_socket_addr(sock.family, sock.getsockname())

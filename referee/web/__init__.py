"""The web view: a read-only HTTP server (hypercorn on trio, a starlette app) and its pages.

`live.py` turns a match's record lines into pushed events, `archive.py` finds and checks record
files under the served folders, `app.py` routes requests, `server.py` runs it all, and `static/`
holds the page, the shared player and one SVG renderer per game (plain JavaScript, no build).
`html_export.py` copies that player and a game's renderer into one self-contained page, which
`referee replay --html` and the course's feedback pages write (the league's export shares its
pieces).
"""

import argparse
import os
import socket

# This machine only, unless REFEREE_WEB_HOST says otherwise (the container image listens on every
# interface of the container, which `docker run -p` then publishes).
DEFAULT_HOST = os.environ.get("REFEREE_WEB_HOST", "127.0.0.1")
DEFAULT_PORT = 8000  # the course referee's


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """`--port` and `--host`, as `serve` and `tournament run --web` take them."""
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT}; 0 picks one)"
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on ({DEFAULT_HOST}"
        + (": this machine only)" if DEFAULT_HOST == "127.0.0.1" else ", from REFEREE_WEB_HOST)"),
    )


def check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, not {port}")


def check_address(host: str, port: int) -> int:
    """Check, before any work starts, that the web view can listen on host:port, and return the
    port it will use: for port 0 a free port chosen now, so that an address printed at the start
    stays right for every server the command starts on it. ValueError says why not."""
    check_port(port)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ValueError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
        bound: int = probe.getsockname()[1]
    return bound


def url_of(host: str, port: int) -> str:
    """The address of the web view on host:port, as people open it."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

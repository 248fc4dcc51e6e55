"""What every response of the arena carries, and what every form's request must show.

`SecurityHeaders` adds the headers to every response, the server's own errors included: a
Content-Security-Policy that runs no inline script or style and lets no other site frame the
pages, `nosniff`, a same-origin Referer, and `no-store` on anything that did not say how to be
cached (pages show private data). `same_origin` is the Origin/Referer check of every form: a
POST whose Origin (or, without one, Referer) is another site's is refused before it is read.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors' older equivalent
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """ASGI middleware: `HEADERS` on every HTTP response, and `Cache-Control: no-store` where
    the response set no Cache-Control of its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in names]
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def same_origin(request: Request, public_url: str) -> bool:
    """Whether a form's request comes from the arena's own pages: its Origin (or, when a
    browser sent none, its Referer) names the host the request was sent to, or the arena's
    public address. A request with neither is refused: every browser sends one with a POST."""
    source = request.headers.get("origin")
    if source is None or source == "null":
        source = request.headers.get("referer") if source is None else None
    if not source:
        return False
    parts = urlsplit(source)
    if not parts.netloc:
        return False
    own = urlsplit(public_url)
    host = request.headers.get("host", "")
    return parts.netloc == host or (parts.scheme, parts.netloc) == (own.scheme, own.netloc)

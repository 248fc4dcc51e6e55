"""What every page handler of the arena reaches through its request (`site_of(request)`): the
store, the settings, the cookie signer, the templates and the clock, and the helpers that set
the arena's cookies and render a template with what every page shows (who is signed in, the
navigation, the form token).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, cast

import jinja2
import trio
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from referee.arena.config import ArenaConfig
from referee.arena.sessions import (
    FORM_COOKIE,
    FORM_TOKEN_HOURS,
    SESSION_COOKIE,
    CookieSigner,
    Session,
)
from referee.arena.store import ArenaStore
from referee.arena.web.navigation import links
from referee.printable import printable
from referee.records import utc_now
from referee.web.live import LiveHub

TEMPLATES = Path(str(resources.files("referee.arena") / "templates"))
STATIC = Path(str(resources.files("referee.arena") / "static"))
# Password hashes computed at once: each takes a core and 19 MiB for a fraction of a second,
# so a burst of logins queues here instead of starving the pages.
HASHING_AT_ONCE = 2


def template_environment() -> jinja2.Environment:
    """Templates with every value escaped (`autoescape=True` for every file, not by suffix),
    and an undefined name an error rather than an empty string."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    # A bot's text (stderr, verdicts) with its control and bidi characters made visible.
    environment.filters["printable"] = printable
    return environment


@dataclass
class Site:
    store: ArenaStore
    config: ArenaConfig
    signer: CookieSigner
    clock: Callable[[], datetime] = utc_now
    templates: Jinja2Templates = field(
        default_factory=lambda: Jinja2Templates(env=template_environment())
    )
    hashing: trio.CapacityLimiter = field(
        default_factory=lambda: trio.CapacityLimiter(HASHING_AT_ONCE)
    )
    # The games being played, for their live pages (the games' players feed it).
    live: LiveHub = field(default_factory=LiveHub)

    @property
    def root(self) -> Path:
        """The arena's folder (its store is DIR/arena.sqlite)."""
        return self.store.path.parent

    @property
    def session_lifetime(self) -> timedelta:
        return timedelta(hours=self.config.accounts.session_hours)

    async def hash_work(self, work: Callable[[], Any]) -> Any:
        """Run password hashing off the event loop, `HASHING_AT_ONCE` at a time."""
        return await trio.to_thread.run_sync(work, limiter=self.hashing)

    def render(
        self,
        request: Request,
        name: str,
        context: Mapping[str, Any] | None = None,
        *,
        session: Session | None = None,
        status: int = 200,
    ) -> Response:
        """`name` rendered with `context` and what the layout needs: `viewer` (the signed-in
        account or None), `csrf` (the token the page's forms carry) and the arena's name.
        A page for an anonymous visitor gets a form token, set as a cookie too."""
        form_token = None
        if session is None:
            form_token = request.cookies.get(FORM_COOKIE)
            if form_token is None or not self.signer.form_token_valid(form_token):
                form_token = self.signer.form_token()
        viewer = session.account if session else None
        values = {
            "arena_name": self.config.name,
            "viewer": viewer,
            "nav": links(self.config.visibility, viewer),
            "csrf": session.csrf if session else form_token,
            **(context or {}),
        }
        response = self.templates.TemplateResponse(request, name, values, status_code=status)
        if form_token is not None:
            self.set_cookie(request, response, FORM_COOKIE, form_token, FORM_TOKEN_HOURS * 3600)
        return response

    def secure(self, request: Request) -> bool:
        """Cookies are Secure when the arena is reached over https (its public address says
        so, or the request came that way)."""
        return self.config.public_url().startswith("https://") or request.url.scheme == "https"

    def set_cookie(
        self, request: Request, response: Response, name: str, value: str, max_age: int
    ) -> None:
        response.set_cookie(
            name,
            value,
            max_age=max_age,
            path="/",
            httponly=True,
            samesite="lax",
            secure=self.secure(request),
        )

    def set_session_cookie(self, request: Request, response: Response, session_id: str) -> None:
        cookie = self.signer.session_cookie(session_id)
        seconds = int(self.session_lifetime.total_seconds())
        self.set_cookie(request, response, SESSION_COOKIE, cookie, seconds)
        response.delete_cookie(FORM_COOKIE, path="/")

    def session_id(self, request: Request) -> str | None:
        """The session id the request's cookie carries, if the cookie is ours and unexpired."""
        cookie = request.cookies.get(SESSION_COOKIE)
        if cookie is None:
            return None
        return self.signer.session_id(cookie, self.session_lifetime)


def site_of(request: Request) -> Site:
    return cast(Site, request.app.state.site)


def client_address(request: Request) -> str:
    """The client's address (behind a proxy: the one it forwarded, set by the proxy fix)."""
    return request.client.host if request.client else "unknown"

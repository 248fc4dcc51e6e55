"""Versions on the web: the upload form and the list (`/versions`), a version's page with its
status, build log and check games (`/versions/ID`, its status as JSON for the page's poll at
`/versions/ID/status`), and the API that `referee arena submit` speaks:

    POST /api/versions?name=FILE     the file as the raw request body (Bearer token)
    GET  /api/versions               the account's versions, newest first
    GET  /api/versions/ID            one version: status, problem, build log, check games

A version is shown to its owner and to the staff only; for anyone else its id is a 404, the
same as an id that does not exist. Everything a student sent (the file name, the build's
output, the bot's stderr) is shown through `printable` (control and bidi characters as visible
escapes) and autoescaped by the templates. The body of an upload is limited, before it is
parsed, to `[uploads] max_bytes` (the form: that and `FORM_OVERHEAD` for its fields).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from starlette.datastructures import FormData, UploadFile
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from referee.arena import versions
from referee.arena.folder import ArenaPaths
from referee.arena.preflight import CheckSummary
from referee.arena.rows import Account, VersionStatus
from referee.arena.sessions import Session
from referee.arena.uploads import Feed, Incoming, UploadRefused, take_upload
from referee.arena.versions import Entry
from referee.arena.web.guards import action, api, not_found, page
from referee.arena.web.site import Site, site_of
from referee.arena.web.viewing import path_id
from referee.printable import printable

FORM_OVERHEAD = 64 * 1024  # the form's other fields and its multipart framing
UPLOAD_FORM: dict[str, Any] = {"max_files": 1, "max_fields": 5, "max_part_size": 64 * 1024}
STATUS_WORDS = {
    VersionStatus.RECEIVED: "waiting for its check",
    VersionStatus.BUILDING: "being built",
    VersionStatus.CHECKING: "playing its check games",
    VersionStatus.ACTIVE: "active: it passed its check and plays on the ladder",
    VersionStatus.FAILED: "failed: it does not play (see why below)",
    VersionStatus.SUPERSEDED: "superseded: a later version took its place",
    VersionStatus.DISQUALIFIED: "disqualified by the staff",
}
LATE_WORDS = "late: uploaded when uploads were closed; kept, but never built or played"
STAFF_UPLOAD = "Staff accounts do not upload bots; log in as a student to try one."


def paths_of(site: Site) -> ArenaPaths:
    """The arena's folder: the one its store is in (DIR/arena.sqlite)."""
    return ArenaPaths(Path(site.store.path).parent)


def status_word(entry: Entry) -> str:
    return "late" if entry.version.late else entry.version.status.value


def describe(entry: Entry) -> str:
    return LATE_WORDS if entry.version.late else STATUS_WORDS[entry.version.status]


def when(moment: str | None) -> str:
    """A stored time as people read it: 2026-09-01 12:00:05 UTC."""
    return "" if moment is None else f"{moment[:10]} {moment[11:19]} UTC"


def row(entry: Entry) -> dict[str, Any]:
    """A version as a line of a list (what the templates show, made printable)."""
    version, upload = entry.version, entry.upload
    return {
        "id": version.id,
        "number": version.number,
        "username": entry.username,
        "status": status_word(entry),
        "describe": describe(entry),
        "waiting": entry.waiting,
        "file": printable(upload.name),
        "size": upload.size,
        "uploaded": when(version.created_at),
        "problem": printable(version.problem or "", lines=True),
    }


def summary_of(entry: Entry) -> CheckSummary | None:
    text = entry.version.check_log
    return None if not text else CheckSummary.model_validate_json(text)


# -- pages ---------------------------------------------------------------------------------


async def versions_page(request: Request, session: Session) -> Response:
    return await _versions(request, session)


async def _versions(
    request: Request, session: Session, *, error: str | None = None, status: int = 200
) -> Response:
    site = site_of(request)
    account = session.account
    if account.is_staff:
        found = await site.store.read(versions.everyone)
    else:
        found = await site.store.read(versions.of_account, account.id)
    context = {
        "versions": [row(e) for e in found],
        "error": error,
        "max_bytes": site.config.uploads.max_bytes,
        "per_hour": site.config.uploads.per_hour,
    }
    return site.render(request, "versions.html", context, session=session, status=status)


async def upload(request: Request, session: Session, form: FormData) -> Response:
    """The upload form's POST: the version's page once it is kept, else the form again."""
    site = site_of(request)
    if session.account.is_staff:
        return await _versions(request, session, error=STAFF_UPLOAD, status=403)
    file = form.get("file")
    if not isinstance(file, UploadFile):
        return await _versions(request, session, error="Choose a file to upload.", status=400)

    async def feed(incoming: Incoming) -> None:
        await trio.to_thread.run_sync(incoming.copy_from, file.file)

    try:
        version = await _take(site, session.account, file.filename, feed)
    except UploadRefused as exc:
        return await _versions(request, session, error=str(exc), status=exc.status)
    return RedirectResponse(f"/versions/{version}", status_code=303)


async def _take(site: Site, account: Account, name: str | None, feed: Feed) -> int:
    folder = paths_of(site).uploads
    version = await take_upload(
        site.store, folder, site.config, account.id, name, feed, site.clock()
    )
    return version.id


async def _visible(request: Request, viewer: Account) -> Entry:
    site = site_of(request)
    found = await site.store.read(versions.visible, path_id(request, "version_id"), viewer)
    if found is None:
        raise not_found()
    return found


async def version_page(request: Request, session: Session) -> Response:
    site = site_of(request)
    entry = await _visible(request, session.account)
    summary = summary_of(entry)
    context = {
        "v": row(entry),
        "upload": entry.upload,
        "late": entry.version.late,
        "command": printable(entry.version.command or ""),
        "content_hash": entry.version.content_hash,
        "build_log": printable(entry.version.build_log or "", lines=True),
        "checked": when(entry.version.checked_at),
        "games": [_game(g) for g in summary.games] if summary else [],
        "opponent": summary.opponent if summary else site.config.check.opponent,
    }
    return site.render(request, "version.html", context, session=session)


def _game(game: Any) -> dict[str, Any]:
    return {
        "number": game.number,
        "colour": game.colour,
        "outcome": game.outcome,
        "how": game.how,
        "plies": game.plies,
        "clean": game.clean,
        "stderr": printable(game.stderr, lines=True),
        "findings": [
            {
                "title": f.title,
                "detail": printable(f.detail, lines=True),
                "hint": f.hint,
                "position": f.position,
            }
            for f in game.findings
        ],
    }


async def version_status(request: Request, session: Session) -> Response:
    """What the version's page polls while the version is on its way."""
    entry = await _visible(request, session.account)
    return JSONResponse({"status": status_word(entry), "waiting": entry.waiting})


# -- the API -------------------------------------------------------------------------------


def version_json(entry: Entry, url: str, *, details: bool) -> dict[str, Any]:
    """A version for the API (`details`: its logs and check games too). The text is the
    bot's own, unescaped: JSON quotes it, and `arena submit` prints it through `printable`."""
    version, upload = entry.version, entry.upload
    found: dict[str, Any] = {
        "id": version.id,
        "number": version.number,
        "status": status_word(entry),
        "waiting": entry.waiting,
        "late": version.late,
        "describe": describe(entry),
        "problem": version.problem,
        "file": upload.name,
        "size": upload.size,
        "sha256": upload.sha256,
        "uploaded_at": version.created_at,
        "checked_at": version.checked_at,
        "activated_at": version.activated_at,
        "url": f"{url}/versions/{version.id}",
    }
    if details:
        summary = summary_of(entry)
        found |= {
            "command": version.command,
            "content_hash": version.content_hash,
            "capabilities": list(version.capabilities),
            "build_log": version.build_log,
            "check": summary.model_dump(mode="json") if summary else None,
        }
    return found


async def api_versions(request: Request, account: Account) -> Response:
    site = site_of(request)
    found = await site.store.read(versions.of_account, account.id)
    url = site.config.public_url()
    return JSONResponse({"versions": [version_json(e, url, details=False) for e in found]})


async def api_version(request: Request, account: Account) -> Response:
    site = site_of(request)
    entry = await _visible(request, account)
    return JSONResponse(version_json(entry, site.config.public_url(), details=True))


async def api_upload(request: Request, account: Account) -> Response:
    """The file is the raw body; `?name=FILE` its name (what says whether it is an archive)."""
    site = site_of(request)
    if account.is_staff:
        return JSONResponse({"error": STAFF_UPLOAD}, status_code=403)
    if request.headers.get("content-type", "").startswith("multipart/"):
        message = "send the file itself as the request's body (not a form), its name in ?name="
        return JSONResponse({"error": message}, status_code=415)

    async def feed(incoming: Incoming) -> None:
        async for chunk in request.stream():
            if chunk:
                await trio.to_thread.run_sync(incoming.write, chunk)

    try:
        version = await _take(site, account, request.query_params.get("name"), feed)
    except UploadRefused as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    entry = await site.store.read(versions.entry, version)
    assert entry is not None
    answer = version_json(entry, site.config.public_url(), details=False)
    return JSONResponse(answer, status_code=201)


def upload_sized(route: Route, overhead: int = 0) -> Route:
    """The route's body limit follows the arena's `[uploads] max_bytes` (+ `overhead`), read
    for each request: a body past it is refused as it arrives, before anything parses it."""
    inner = route.app

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        site: Site = scope["app"].state.site
        limit = site.config.uploads.max_bytes + overhead
        await RequestBodyLimitMiddleware(inner, max_body_size=limit)(scope, receive, send)

    route.app = limited
    return route


ROUTES = [
    page("/versions", versions_page),
    upload_sized(action("/versions", upload, form_limits=UPLOAD_FORM), FORM_OVERHEAD),
    page("/versions/{version_id:int}", version_page),
    page("/versions/{version_id:int}/status", version_status),
    api("/api/versions", api_versions),
    upload_sized(api("/api/versions", api_upload, methods=("POST",))),
    api("/api/versions/{version_id:int}", api_version),
]

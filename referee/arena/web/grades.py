"""The grades on the web: each student's own once the staff released them (`/grades`), and for
the staff every grade (`/staff/grades`) and the CSV export (`/staff/grades.csv`).

No URL names a student: `/grades` shows the signed-in account's grade alone, read through
`grades.own_grade`, which gives none before the release. The staff pages are for staff only (a
student gets the same 404 as for a page that does not exist). The CSV's cells are made safe for
a spreadsheet (`grades.grades_csv`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from referee.arena.grades import CSV_NAME, all_grades, computed_at, grades_csv, own_grade, released
from referee.arena.sessions import Session
from referee.arena.web.guards import page
from referee.arena.web.site import site_of


async def my_grade(request: Request, session: Session) -> Response:
    site = site_of(request)
    if session.account.is_staff:
        return RedirectResponse("/staff/grades", status_code=303)
    grade = await site.store.read(own_grade, session.account.id)
    shown = await site.store.read(released)  # only for the words: the grade is own_grade's
    context = {"grade": grade, "released": shown}
    return site.render(request, "grade.html", context, session=session)


async def staff_grades(request: Request, session: Session) -> Response:
    site = site_of(request)
    context = {
        "grades": await site.store.read(all_grades),
        "released": await site.store.read(released),
        "computed_at": await site.store.read(computed_at),
    }
    return site.render(request, "grades_staff.html", context, session=session)


async def grades_download(request: Request, session: Session) -> Response:
    text = grades_csv(await site_of(request).store.read(all_grades))
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{CSV_NAME}"'},
    )


ROUTES = [
    page("/grades", my_grade),
    page("/staff/grades", staff_grades, staff=True),
    page("/staff/grades.csv", grades_download, staff=True),
]

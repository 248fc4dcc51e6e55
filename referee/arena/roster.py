"""The roster: a CSV file of `username,name,role[,email]`, one person per line (a header line
naming those columns may come first; blank lines and lines starting with `#` are skipped).

Every line is checked before anything is imported, and every problem is reported as
`FILE:LINE: COLUMN: message`. Usernames are kept in lower case (people type them either way);
roles are `student` or `staff`.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from referee.arena.rows import Role

USERNAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
HEADER = ("username", "name", "role")
MAX_NAME = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RosterError(ValueError):
    """A roster that cannot be imported; one `FILE:LINE: COLUMN: problem` per line."""


@dataclass(frozen=True)
class Person:
    username: str
    name: str
    role: Role
    email: str | None
    line: int  # in the roster file


def read_roster(path: Path) -> list[Person]:
    """Every person of the roster at `path`, in file order; `RosterError` lists every problem."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's byte-order mark too
    except (OSError, UnicodeDecodeError) as exc:
        raise RosterError(f"{path}: cannot read the roster: {exc}") from None
    people: list[Person] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in next(csv.reader([line]))]
        if not people and not problems and tuple(f.lower() for f in fields[:3]) == HEADER:
            continue
        person, found = _person(fields, number)
        problems += [f"{path}:{number}: {column}: {message}" for column, message in found]
        if person is None:
            continue
        if person.username in seen:
            problems.append(
                f"{path}:{number}: username: {person.username!r} is already on line "
                f"{seen[person.username]}"
            )
            continue
        seen[person.username] = number
        people.append(person)
    if problems:
        raise RosterError("\n".join(problems))
    return people


def _person(fields: list[str], number: int) -> tuple[Person | None, list[tuple[str, str]]]:
    if not 3 <= len(fields) <= 4:
        return None, [("(line)", f"expected username,name,role[,email], got {len(fields)} fields")]
    username, name, role = fields[0].lower(), fields[1], fields[2].lower()
    email = fields[3] if len(fields) == 4 and fields[3] else None
    problems: list[tuple[str, str]] = []
    if not USERNAME.fullmatch(username):
        problems.append(
            ("username", f"{fields[0]!r}: use letters, digits, '.', '_' or '-' (up to 64)")
        )
    if not name or len(name) > MAX_NAME or _CONTROL.search(name):
        problems.append(("name", f"give a name of 1 to {MAX_NAME} characters"))
    if role not in (Role.STUDENT, Role.STAFF):
        problems.append(("role", f"{fields[2]!r} is neither 'student' nor 'staff'"))
    if email is not None and (len(email) > 254 or not EMAIL.fullmatch(email)):
        problems.append(("email", f"{email!r} is not an email address"))
    if problems:
        return None, problems
    return Person(username, name, Role(role), email, number), []

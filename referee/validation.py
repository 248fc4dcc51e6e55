"""Readable messages for pydantic validation errors: where, which field, what is wrong."""

from __future__ import annotations

from pydantic import ValidationError


def describe_validation_error(exc: ValidationError, where: str) -> str:
    """One line per problem: `where: field: message`, without pydantic's links and noise."""
    lines = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(value)"
        lines.append(f"{where}: {field}: {error['msg']}")
    return "\n".join(lines)

"""The dependency rule of the architecture, checked by reading the imports of every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "protocols": {"protocols", "pydantic"},
    "bots": {"bots", "protocols", "pydantic"},
    "referee": {"referee", "protocols", "pydantic", "trio", "rich", "hypercorn", "starlette"},
}


def imported_top_level(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def third_party(names: set[str]) -> set[str]:
    import sys

    return {n for n in names if n not in sys.stdlib_module_names and n != "__future__"}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_packages_import_only_what_the_layering_allows(package: str) -> None:
    for path in sorted((ROOT / package).rglob("*.py")):
        extra = third_party(imported_top_level(path)) - ALLOWED[package]
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_nothing_imports_the_cli() -> None:
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.name in ("cli.py", "__main__.py") or "tests" in path.parts:
            continue
        source = path.read_text()
        assert "referee.cli" not in source, f"{path.relative_to(ROOT)} imports the CLI"
        if "commands" not in path.parts:
            assert "referee.commands" not in source, f"{path.relative_to(ROOT)} imports a command"

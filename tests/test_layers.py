"""The dependency rule of the architecture, checked by reading the imports of every module.

Besides the package rule (what `protocols`, `bots` and `referee` may import), the core of the
runtime never reaches what renders for people: `bot`, `match`, `records`, the tournament runner
and the store import neither rich nor `referee.views` nor `referee.web`, not even through the
modules they import. And command modules never import each other. Last, one check that runs
code: the command line's parser is built, in a fresh interpreter, without loading trio,
pydantic, rich or the web stack, which is what makes `referee --help` start fast.
"""

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
# Optional extras, each imported by one folder only (and lazily there: see the start-up test).
ONLY_UNDER = {
    "distributed": "referee/cluster",
    "dask": "referee/cluster",
    "networkx": "referee/tournament",  # Swiss pairing's matching, imported where it is used
    "pycgt": "referee/analysis",  # combinatorial game algebra of `referee analyse`
    # The league's Elo fit and bootstrap (arrays, and scipy's optimiser).
    "numpy": "referee/league",
    "scipy": "referee/league",
    # The offline analyses may use the bots' solvers; the runtime never imports them.
    "bots": "referee/analysis",
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
        # A program run by path (the launcher) may import the file beside it by its bare name.
        siblings = {sibling.stem for sibling in path.parent.glob("*.py")}
        extra = third_party(imported_top_level(path)) - ALLOWED[package] - siblings
        where = path.relative_to(ROOT).as_posix()
        extra = {n for n in extra if not where.startswith(f"{ONLY_UNDER.get(n, '-')}/")}
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_nothing_imports_the_cli() -> None:
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.name in ("cli.py", "__main__.py") or "tests" in path.parts:
            continue
        source = path.read_text()
        assert "referee.cli" not in source, f"{path.relative_to(ROOT)} imports the CLI"
        if "commands" not in path.parts:
            assert "referee.commands" not in source, f"{path.relative_to(ROOT)} imports a command"


CORE = [
    "referee.bot",
    "referee.match",
    "referee.records",
    "referee.tournament.runner",
    "referee.tournament.store",
]
PRESENTATION = ("rich", "referee.views", "referee.web", "referee.commands", "referee.cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, by full dotted name (`from a import b` gives a and a.b)."""
    names: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / "referee").rglob("*.py"))}


def reachable_imports(start: str) -> dict[str, str]:
    """Every module imported from `start`, directly or through project modules, with the
    project module that imports it."""
    modules = project_modules()
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        current = todo.pop()
        for name in imported_modules(modules[current]):
            if name in seen:
                continue
            seen[name] = current
            if name in modules:
                todo.append(name)
    return seen


def is_presentation(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in PRESENTATION)


@pytest.mark.parametrize("core", CORE)
def test_the_core_never_reaches_views_web_or_rich(core: str) -> None:
    reached = reachable_imports(core)
    bad = sorted(
        f"{name} (imported by {by})" for name, by in reached.items() if is_presentation(name)
    )
    assert not bad, f"{core} reaches {bad}"


def test_command_modules_never_import_each_other() -> None:
    commands = ROOT / "referee" / "commands"
    names = {p.stem for p in commands.glob("*.py") if p.stem != "__init__"}
    for path in sorted(commands.glob("*.py")):
        if path.stem == "__init__":
            continue
        others = {f"referee.commands.{n}" for n in names} - {f"referee.commands.{path.stem}"}
        found = sorted(imported_modules(path) & others)
        assert not found, f"{path.relative_to(ROOT)} imports the command modules {found}"


HEAVY = ("trio", "pydantic", "rich", "hypercorn", "starlette")
PARSE_ONLY = """
import sys
from referee.cli import build_parser, normalise_argv
build_parser()
build_parser(normalise_argv(["games"]))
normalise_argv(["laskermorris", "-p1", "a", "-p2", "b"])
print(" ".join(sorted(name for name in sys.modules if name.split(".")[0] in sys.argv[1:])))
"""


def test_the_command_line_parser_imports_no_heavy_library() -> None:
    """`referee --help`, `referee games` and resolving a game's name start fast: building the
    parser imports the module of the named command alone, and neither that nor the name table
    loads trio, pydantic, rich or the web stack."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", PARSE_ONLY, *HEAVY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == []


def test_the_cli_table_lists_every_command_module() -> None:
    from referee.cli import COMMANDS

    modules = {
        f"referee.commands.{p.stem}"
        for p in (ROOT / "referee" / "commands").glob("*.py")
        if p.stem != "__init__"
    }
    assert {command.module for command in COMMANDS.values()} == modules


def test_only_the_analyse_command_imports_the_analyses() -> None:
    """`referee/analysis` (offline questions, which may use the bots' solvers and need the
    optional extra `referee[analysis]`) stays outside the runtime: only its own modules and the
    `analyse` command import it, by an import statement or by a module name in a string (what
    `importlib.import_module` is given)."""
    allowed = {ROOT / "referee" / "commands" / "analyse.py"}
    for path in sorted((ROOT / "referee").rglob("*.py")):
        if path in allowed or (ROOT / "referee" / "analysis") in path.parents:
            continue
        tree = ast.parse(path.read_text(), str(path))
        names = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        names |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        names |= {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        assert not any(n.startswith("referee.analysis") for n in names), path

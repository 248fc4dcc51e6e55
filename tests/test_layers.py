"""The dependency rules of docs/architecture.md: the import contracts, and what they cannot say.

The contracts are import-linter's, in pyproject.toml (`[tool.importlinter]`): the layers of
`referee/` (no arrow runs back up), no import circle between modules or between the packages of
one parent, no command module importing another, the core never reaching rich, the views, the
web or the command line, and the rules and the bots never importing the runtime. They are checked
here on every import, those inside functions and those for type checking only included, and on
the packages an import loads on the way (`import a.b.c` runs `a/b/__init__.py` first), which
`lint-imports` alone does not count.

What has no contract form is checked by reading the imports: which third-party libraries each
package may import (an allow-list) and which files alone import the heavy or optional ones; an
import inside a function is there only to defer loading something heavy until it is needed: it
says so in a comment starting `Deferred:` (on its line, or on the comment lines just above it
and the imports it stands with), and what it imports is not already loaded when its module is;
nothing in the tree (scripts and examples too) imports the command line; only the `analyse`
command names the analyses, even in a string. Last, one check that runs code: the command
line's parser is built, in a fresh interpreter, without loading trio, pydantic, rich or the web
stack, which is what makes `referee --help` start fast.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import grimp
import pytest
from importlinter.application import output, use_cases
from importlinter.application.app_config import settings
from importlinter.application.ports.building import GraphBuilder
from importlinter.configuration import configure

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
ALLOWED = {
    "protocols": {"protocols", "pydantic"},
    "bots": {"bots", "protocols", "pydantic"},
    "referee": {"referee", "protocols", "pydantic", "trio", "rich", "hypercorn", "starlette"},
}
# The rating model: its entry and its parts (numpy arrays, scipy's sparse matrices, graphs and
# factorisations).
RATING_MODEL = (
    "referee/stats/rating.py",
    *(
        f"referee/stats/rating_{name}.py"
        for name in ("input", "graph", "fit", "estimate", "laplace", "bounds", "bootstrap", "terms")
    ),
)
# Optional or heavy libraries, each imported only by the files or folders named here (and lazily
# where the start-up needs it: see the start-up test).
ONLY_UNDER = {
    "distributed": ("referee/cluster/",),
    "dask": ("referee/cluster/",),
    "networkx": ("referee/tournament/swiss.py",),  # Swiss pairing's maximum matching
    "pycgt": ("referee/analysis/",),  # combinatorial game algebra of `referee analyse`
    # league.toml edited in place, its comments kept (`league add`, `league remove`); the
    # config files the referee writes (match.toml, league.toml), with their comments.
    "tomlkit": ("referee/league/config.py", "referee/toml_config/writing.py"),
    # The rating model (arrays, scipy's sparse algebra and graphs): the one fit of tournaments,
    # matches and the league.
    "numpy": RATING_MODEL,
    "scipy": RATING_MODEL,
    # The offline analyses may use the bots' solvers; the runtime never imports them.
    "bots": ("referee/analysis/",),
    # The arena's pages (templates), passwords (argon2id) and signed cookies.
    "jinja2": ("referee/arena/",),
    "argon2": ("referee/arena/",),
    "itsdangerous": ("referee/arena/",),
}

# The layers of `referee/` are the contract `layers` in pyproject.toml: a new module needs a
# line there.

# Programs started by path, not imported (the bot's supervisor and launcher): what each step
# imports is kept to what it needs, as their own docstrings say, and they import the file beside
# them by its bare name.
RUN_BY_PATH = {"referee/isolation/launch.py", "referee/isolation/supervise.py"}
DEFERRED = "deferred:"


def packages_loaded_with(target: str, importer: str) -> list[str]:
    """The packages whose `__init__` importing `target` runs first (those that do not hold
    `importer` itself: they are loaded already), the project's root packages aside."""
    parts = target.split(".")
    parents = [".".join(parts[:k]) for k in range(2, len(parts))]
    return [p for p in parents if p != importer and not importer.startswith(p + ".")]


class WithPackagesLoaded(GraphBuilder):
    """The graph of import-linter's own builder (grimp), plus one arrow from an importer to each
    package its imports load on the way: `referee.tournament.runner` importing
    `referee.tournament.formats.base` also runs `referee/tournament/formats/__init__.py`, and a
    circle or an upward arrow through that counts like any other. Built once per process (the
    contracts are checked on copies of it)."""

    def build(
        self,
        root_package_names: list[str],
        cache_dir: str | None,
        include_external_packages: bool = False,
        exclude_type_checking_imports: bool = False,
    ) -> grimp.ImportGraph:
        return project_graph(
            tuple(root_package_names), include_external_packages, exclude_type_checking_imports
        )


@cache
def project_graph(
    roots: tuple[str, ...], include_external_packages: bool, exclude_type_checking_imports: bool
) -> grimp.ImportGraph:
    graph = grimp.build_graph(
        *roots,
        include_external_packages=include_external_packages,
        exclude_type_checking_imports=exclude_type_checking_imports,
        cache_dir=None,  # no cache folder written into the tree by a test
    )
    ours = [m for m in sorted(graph.modules) if m.split(".")[0] in roots]
    for importer in ours:
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported.split(".")[0] not in roots:
                continue
            first = graph.get_import_details(importer=importer, imported=imported)[0]
            for package in packages_loaded_with(imported, importer):
                graph.add_import(
                    importer=importer,
                    imported=package,
                    line_number=first["line_number"],
                    line_contents=f"{first['line_contents']}  # loads {package}",
                )
    return graph


def contract_ids() -> list[str]:
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    return [contract["id"] for contract in contracts]


@pytest.mark.parametrize("contract_id", contract_ids())
def test_the_import_contract_is_kept(contract_id: str) -> None:
    configure()  # import-linter's settings, as its command sets them
    settings.configure(GRAPH_BUILDER=WithPackagesLoaded())
    with output.console.capture() as captured:
        kept = use_cases.lint_imports(
            str(PYPROJECT),
            limit_to_contracts=(contract_id,),
            cache_dir=None,
            is_debug_mode=True,  # an error in the configuration raises
            no_logo=True,
        )
    assert kept, captured.get()


def test_loading_a_package_on_the_way_is_an_import_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`a` imports `sub.x`, which runs `sub/__init__.py`, which imports `a`: a circle that no
    import statement shows alone."""
    root = "layers_loaded_on_the_way"
    (tmp_path / root / "sub").mkdir(parents=True)
    (tmp_path / root / "__init__.py").write_text("")
    (tmp_path / root / "a.py").write_text(f"from {root}.sub import x\n")
    (tmp_path / root / "sub" / "__init__.py").write_text(f"from {root} import a\n")
    (tmp_path / root / "sub" / "x.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = project_graph((root,), False, False)
    assert graph.direct_import_exists(importer=f"{root}.a", imported=f"{root}.sub")
    assert graph.direct_import_exists(importer=f"{root}.sub", imported=f"{root}.a")
    # Inside its own package a module's import loads nothing new.
    assert not graph.direct_import_exists(importer=f"{root}.sub", imported=f"{root}.sub")
    assert packages_loaded_with("referee.web.app", "referee.web.server") == []
    assert packages_loaded_with("referee.records", "referee.bot") == []


@cache
def syntax(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


@cache
def imported_top_level(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(syntax(path)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return frozenset(names)


def third_party(names: frozenset[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n != "__future__"}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_packages_import_only_what_the_layering_allows(package: str) -> None:
    for path in sorted((ROOT / package).rglob("*.py")):
        # A program run by path (the launcher) may import the file beside it by its bare name.
        siblings = {sibling.stem for sibling in path.parent.glob("*.py")}
        extra = third_party(imported_top_level(path)) - ALLOWED[package] - siblings
        where = path.relative_to(ROOT).as_posix()
        extra = {n for n in extra if not where.startswith(ONLY_UNDER.get(n, ("-",)))}
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_nothing_imports_the_cli() -> None:
    for path in sorted(ROOT.glob("*/**/*.py")):
        if path.name in ("cli.py", "__main__.py") or "tests" in path.parts:
            continue
        source = path.read_text()
        assert "referee.cli" not in source, f"{path.relative_to(ROOT)} imports the CLI"
        if "commands" not in path.parts:
            assert "referee.commands" not in source, f"{path.relative_to(ROOT)} imports a command"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@dataclass(frozen=True)
class Import:
    """One name an import statement brings in, by the full dotted name of its module
    (`from a import b` gives `a.b` when that is a module of the project, else `a`)."""

    module: str
    line: int  # of the statement
    end: int  # its last line
    in_function: bool
    typing_only: bool  # under `if TYPE_CHECKING:`


@cache
def project_modules() -> dict[str, Path]:
    return {
        module_name(p): p
        for package in ("referee", "protocols", "bots")
        for p in sorted((ROOT / package).rglob("*.py"))
    }


def _package_of(path: Path) -> str:
    return module_name(path) if path.name == "__init__.py" else module_name(path.parent)


def _from_module(node: ast.ImportFrom, path: Path) -> str:
    """The absolute name of the module a `from ... import` statement reads."""
    base = node.module or ""
    if node.level:
        package = _package_of(path).split(".")
        anchor = package[: len(package) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def _statement_names(node: ast.Import | ast.ImportFrom, path: Path) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = _from_module(node, path)
    modules = project_modules()
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base


@cache
def imports_of(path: Path) -> tuple[Import, ...]:
    """Every import of the file, with where it is: in a function, or only for type checking."""
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            function = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            )
            typing = typing_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            )
            if isinstance(child, ast.Import | ast.ImportFrom):
                end = child.end_lineno or child.lineno
                for name in _statement_names(child, path):
                    found.append(Import(name, child.lineno, end, function, typing))
            visit(child, function, typing)

    visit(syntax(path), False, False)
    return tuple(found)


def owner(name: str) -> str | None:
    """The project module a dotted name is in (`referee.records.GameRecord` -> its module)."""
    modules = project_modules()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@cache
def comments_by_line(path: Path) -> dict[int, str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return {t.start[0]: t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT}


def _blank_in_imports(lines: list[str], number: int, in_imports: set[int]) -> bool:
    """A blank line between two imports (as between the groups of a sorted block)."""
    return 1 < number <= len(lines) and not lines[number - 1].strip() and number - 1 in in_imports


def says_why(path: Path, imported: Import) -> bool:
    """A comment starting `Deferred:` on the import's lines, or on the lines just above it
    (comments, and the imports it stands with)."""
    comments = comments_by_line(path)
    in_imports = {n for i in imports_of(path) for n in range(i.line, i.end + 1)}
    said = [comments.get(n, "") for n in range(imported.line, imported.end + 1)]
    lines = path.read_text().splitlines()
    above = imported.line - 1
    while (
        (above >= 1 and lines[above - 1].lstrip().startswith("#"))
        or above in in_imports
        or _blank_in_imports(lines, above, in_imports)
    ):
        said.append(comments.get(above, ""))
        above -= 1
    return any(comment.lower().startswith(DEFERRED) for comment in said)


@cache
def loaded_on_import(module: str) -> frozenset[str]:
    """Every module loaded when `module` is first imported: its own imports outside functions
    (type checking aside), its packages', and theirs in turn among the project's modules."""
    modules = project_modules()
    loaded: set[str] = set()
    read: set[str] = set()  # the project modules whose imports are counted
    todo = [module]
    while todo:
        current = todo.pop()
        parents = [".".join(current.split(".")[:k]) for k in range(1, current.count(".") + 1)]
        for name in [current, *parents]:
            if name not in modules or name in read:
                continue
            read.add(name)
            loaded.add(name)
            for imported in imports_of(modules[name]):
                if not imported.in_function and not imported.typing_only:
                    loaded.add(imported.module)
                    if (target := owner(imported.module)) is not None:
                        todo.append(target)
    return frozenset(loaded)


@cache
def referee_modules() -> dict[str, Path]:
    return {name: path for name, path in project_modules().items() if name.startswith("referee")}


def deferred_imports() -> Iterator[tuple[Path, str, Import]]:
    for name, path in referee_modules().items():
        if path.relative_to(ROOT).as_posix() in RUN_BY_PATH:
            continue
        for imported in imports_of(path):
            if imported.in_function:
                yield path, name, imported


def test_function_local_imports_say_why_they_are_deferred() -> None:
    silent = sorted(
        {
            f"{path.relative_to(ROOT)}:{imported.line}: {imported.module}"
            for path, _, imported in deferred_imports()
            if not says_why(path, imported)
        }
    )
    assert not silent, "imports in functions without a `# Deferred: why` comment:\n" + "\n".join(
        silent
    )


def test_function_local_imports_defer_something() -> None:
    """An import in a function of a module that its module already loads (itself, or through
    the modules it imports) defers nothing: it belongs at the top of the file."""
    pointless = set()
    for path, name, imported in deferred_imports():
        loaded = loaded_on_import(name)
        target = owner(imported.module) or imported.module
        if target in loaded or any(m.startswith(target + ".") for m in loaded):
            pointless.add(f"{path.relative_to(ROOT)}:{imported.line}: {imported.module}")
    assert not pointless, "imports in functions of what is loaded anyway:\n" + "\n".join(
        sorted(pointless)
    )


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
        tree = syntax(path)
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

"""The dependency rule of the architecture, checked by reading the imports of every module.

The package rule says what `protocols`, `bots` and `referee` may import. Inside `referee/`,
every module belongs to a layer (`LAYERS`, highest first) and imports only from its own layer or
the ones below it: no arrow runs back up, counting the imports inside functions and those made
only for type checking. No two modules import each other, directly or round a circle. An import
inside a function is there only to defer loading something heavy until it is needed: it says so
in a comment starting `Deferred:` (on its line, or on the comment lines just above it and the
imports it stands with), and what it imports is not already loaded when its module is.

Besides, the core of the runtime never reaches what renders for people: `bot`, `match`,
`records`, the tournament runner and the store import neither rich nor `referee.views` nor
`referee.web`, not even through the modules they import. Command modules never import each
other. Last, one check that runs code: the command line's parser is built, in a fresh
interpreter, without loading trio, pydantic, rich or the web stack, which is what makes
`referee --help` start fast.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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
        for name in ("input", "graph", "fit", "estimate", "laplace", "bounds", "bootstrap")
    ),
)
# Optional or heavy libraries, each imported only by the files or folders named here (and lazily
# where the start-up needs it: see the start-up test).
ONLY_UNDER = {
    "distributed": ("referee/cluster/",),
    "dask": ("referee/cluster/",),
    "networkx": ("referee/tournament/swiss.py",),  # Swiss pairing's maximum matching
    "pycgt": ("referee/analysis/",),  # combinatorial game algebra of `referee analyse`
    # The league's Elo fit and bootstrap (arrays, and scipy's optimiser), the rating model, and
    # the league's rating of its index, which hands the fit its arrays.
    "numpy": (
        "referee/stats/elo_fit.py",
        "referee/stats/elo_intervals.py",
        *RATING_MODEL,
        "referee/league/rating.py",
    ),
    "scipy": ("referee/stats/elo_fit.py", *RATING_MODEL),
    # The offline analyses may use the bots' solvers; the runtime never imports them.
    "bots": ("referee/analysis/",),
    # The arena's pages (templates), passwords (argon2id) and signed cookies.
    "jinja2": ("referee/arena/",),
    "argon2": ("referee/arena/",),
    "itsdangerous": ("referee/arena/",),
}

# The layers of `referee/`, highest first: a module may import from its own layer and from the
# layers below it, never from one above. A module belongs to the longest name that contains it
# (`referee` alone is the package's own `__init__`: its version and exit codes).
LAYERS: list[tuple[str, ...]] = [
    # The command line; `arguments` holds what several commands read from it alike.
    ("referee.__main__", "referee.cli", "referee.commands", "referee.arguments"),
    # The term-long server: accounts, versions, the ladder, its pages (on what app/ runs).
    ("referee.arena",),
    # What a command runs (a tournament or match session with its live views, web and cluster),
    # and the offline analyses that only `referee analyse` runs.
    ("referee.app", "referee.analysis"),
    ("referee.course",),
    ("referee.views", "referee.web"),
    # Ratings across tournaments and matches: reads their stores and records; its dashboard
    # (web) and tables (views) read it.
    ("referee.league",),
    ("referee.cluster",),
    ("referee.tournament",),
    ("referee.stats",),
    ("referee.match",),
    ("referee.bot",),
    ("referee.isolation",),
    # Records and what is read from them (verify, replay frames, openings), and four leaves:
    # a bot's content hash, where the built-in bots' tables are kept, how the referee creates
    # its files without following planted links, and untrusted text made safe to show.
    (
        "referee.records",
        "referee.nofollow",
        "referee.verify",
        "referee.replay",
        "referee.openings",
        "referee.bot_content",
        "referee.builtin_tables",
        "referee.printable",
    ),
    ("referee",),
]

# Programs started by path, not imported (the bot's supervisor and launcher): what each step
# imports is kept to what it needs, as their own docstrings say, and they import the file beside
# them by its bare name.
RUN_BY_PATH = {"referee/isolation/launch.py", "referee/isolation/supervise.py"}
DEFERRED = "deferred:"


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
def imported_modules(path: Path) -> frozenset[str]:
    """Every module `path` imports, by full dotted name (`from a import b` gives a and a.b)."""
    names: set[str] = set()
    for node in ast.walk(syntax(path)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = _from_module(node, path)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return frozenset(names)


@cache
def referee_modules() -> dict[str, Path]:
    return {name: path for name, path in project_modules().items() if name.startswith("referee")}


def reachable_imports(start: str) -> dict[str, str]:
    """Every module imported from `start`, directly or through project modules, with the
    project module that imports it."""
    modules = referee_modules()
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


def layer_of(module: str) -> int | None:
    """The index of the module's layer in `LAYERS` (0 is the highest), None if it has none."""
    best: tuple[int, int] | None = None  # (length of the matching name, layer)
    for index, names in enumerate(LAYERS):
        for name in names:
            contains = module == name or (name != "referee" and module.startswith(name + "."))
            if contains and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def packages_loaded_with(target: str, importer: str) -> list[str]:
    """The packages whose `__init__` importing `target` runs first (those that do not hold
    `importer` itself: they are loaded already), the project's root aside."""
    parts = target.split(".")
    parents = [".".join(parts[:k]) for k in range(2, len(parts))]
    return [p for p in parents if not importer.startswith(p + ".")]


def project_arrows() -> Iterator[tuple[str, str, Import]]:
    """(importer, imported, the import) for every import between two modules of `referee/`,
    counting the packages an import loads on the way (`a.b.c` loads `a.b` first)."""
    modules = referee_modules()
    for name, path in modules.items():
        for imported in imports_of(path):
            target = owner(imported.module)
            if target is None or not target.startswith("referee"):
                continue
            for module in [*packages_loaded_with(target, name), target]:
                if module != name and module in modules:
                    yield name, module, imported


def test_every_module_has_a_layer() -> None:
    missing = sorted(name for name in referee_modules() if layer_of(name) is None)
    assert not missing, f"modules in no layer (add them to LAYERS): {missing}"


def test_no_import_runs_back_up_the_layers() -> None:
    upward = set()
    for importer, target, imported in project_arrows():
        low, high = layer_of(importer), layer_of(target)
        if low is not None and high is not None and high < low:
            where = f"{referee_modules()[importer].relative_to(ROOT)}:{imported.line}"
            upward.add(f"{where}: {importer} imports {target}, a layer above it")
    assert not upward, "\n".join(sorted(upward))


def import_cycles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(arrows.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(arrows):
        if node not in index:
            connect(node)
    return cycles


def test_import_cycles_are_found() -> None:
    arrows = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(arrows) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules() -> None:
    """Counting the imports inside functions and those for type checking: a circle held
    together by a function-local import is still a circle."""
    arrows: dict[str, set[str]] = {}
    for importer, target, _ in project_arrows():
        arrows.setdefault(importer, set()).add(target)
    cycles = import_cycles(arrows)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


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

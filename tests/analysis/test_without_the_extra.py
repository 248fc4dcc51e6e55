"""The referee without the `analysis` extra: every module but the analyses imports, every command
line builds, and `referee analyse` says in one line how to get the extra.

Each run is a fresh interpreter whose `sitecustomize` (on PYTHONPATH) puts a finder in front of
every other that refuses pycgt, as if it were not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from referee.cli import COMMANDS
from referee.commands.analyse import EXTRA_MODULES, HINT

ROOT = Path(__file__).resolve().parents[2]
BLOCKER = """
import sys


class Uninstalled:
    \"\"\"Refuses pycgt and its submodules, as an interpreter without them does.\"\"\"

    names = {"pycgt"}

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Uninstalled())
"""
# Imports every module of the project except the analyses, then builds every command's parser
# (`analyse`'s declares the analyses' arguments); prints what of pycgt and the analyses it loaded.
IMPORT_ALL = """
import importlib, pathlib, sys
try:
    import pycgt
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("pycgt was not blocked")
from referee.cli import COMMANDS, build_parser
root = pathlib.Path(sys.argv[1])
for package in ("protocols", "bots", "referee"):
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[:2] == ("referee", "analysis") or parts[-1] == "__main__":
            continue
        importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
print(",".join(name for name in sys.modules if name.startswith(("pycgt", "referee.analysis"))))
for command in COMMANDS:
    build_parser([command])
print(",".join(name for name in sys.modules if name.startswith("pycgt")))
"""


@pytest.fixture
def without_pycgt(tmp_path: Path) -> dict[str, str]:
    """The environment of a process that cannot import pycgt."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


def run(env: dict[str, str], *argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_everything_but_the_analyses_imports_without_pycgt(without_pycgt: dict[str, str]) -> None:
    done = run(without_pycgt, "-c", IMPORT_ALL, str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["", ""]


def test_the_command_line_works_without_pycgt(without_pycgt: dict[str, str]) -> None:
    helped = run(without_pycgt, "-m", "referee", "--help")
    assert helped.returncode == 0 and all(name in helped.stdout for name in COMMANDS)
    games = run(without_pycgt, "-m", "referee", "games")
    assert games.returncode == 0 and "alak" in games.stdout, games.stderr
    usage = run(without_pycgt, "-m", "referee", "analyse", "alak", "--help")
    assert usage.returncode == 0 and "--variant" in usage.stdout, usage.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["alak", "--size", "3"],
        ["lielow", "--broad", "--seconds", "1", "--out", "broad.jsonl"],
        ["legionnaires", "--list-layouts"],
    ],
    ids=lambda argv: argv[0],
)
def test_analyse_says_how_to_get_the_extra(
    without_pycgt: dict[str, str], argv: list[str], tmp_path: Path
) -> None:
    done = run(without_pycgt, "-m", "referee", "analyse", *argv, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines() == [HINT]
    assert not (tmp_path / "broad.jsonl").exists()
    assert "pip install 'referee[analysis]'" in HINT and "-e '.[analysis]'" in HINT


def test_the_extra_holds_what_the_command_checks_for() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[<>=!~ \[]", requirement)[0] for requirement in project["dependencies"]]
    extra = project["optional-dependencies"]["analysis"]
    assert [re.split(r"[<>=!~ \[]", requirement)[0] for requirement in extra] == list(EXTRA_MODULES)
    assert not set(EXTRA_MODULES) & set(names), "an analysis requirement is in the core"


def test_the_readme_test_command_installs_the_extra_and_ci_runs_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.startswith("apt-get update"))
    assert "'.[test,analysis]'" in command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci
    demo = readme[: readme.index(command)]
    assert "pip install -e . && referee demo" in demo

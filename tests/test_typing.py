"""Every package the distribution installs is checked by `mypy --strict`: the bots too, which
run as programs of their own but share the rules' types with the referee."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_checks_every_installed_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = {
        pattern.rstrip("*")
        for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    mypy = config["tool"]["mypy"]
    assert mypy["strict"] is True
    assert installed <= set(mypy["files"])

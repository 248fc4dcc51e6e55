"""The one reader of the referee's config files: a TOML file into a pydantic model, every problem
on a line of its own as `FILE:LINE: field: problem`."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from pydantic import BaseModel, ConfigDict, Field

from referee.toml_config.reading import ConfigFileError, read_model


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    MISPLACED: ClassVar[dict[str, str]] = {"speed": "set in [outer], not here"}

    depth: int = Field(1, ge=1)


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    speed: float = 1.0
    inner: Inner = Inner()


class Special(ConfigFileError):
    """A file's own error type, as each config's reader has."""


def test_a_file_is_read_into_its_model_with_its_text(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('name = "x"\n[inner]\ndepth = 3\n')
    model, text = read_model(path, Outer)
    assert model == Outer(name="x", inner=Inner(depth=3))
    assert text == path.read_text()


def test_every_problem_is_named_with_its_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('speed = "fast"\n\n[inner]\ndepht = 0\nspeed = 2\n')
    with pytest.raises(Special) as raised:
        read_model(path, Outer, error=Special)
    assert sorted(str(raised.value).splitlines()) == sorted(
        [
            f"{path}: name: Field required",
            f"{path}:1: speed: Input should be a valid number, unable to parse string as a number",
            f"{path}:4: inner.depht: unknown setting: did you mean 'depth'?",
            f"{path}:5: inner.speed: set in [outer], not here",
        ]
    )


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"name = \n", "not valid TOML"), (b"\xff\xfe", "cannot read the league's config")],
)
def test_a_file_that_is_not_toml_is_named(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "a.toml"
    path.write_bytes(content)
    with pytest.raises(ConfigFileError, match=rf"^{path}: {words}"):
        read_model(path, Outer, what="the league's config")


def test_a_setting_of_a_sub_table_written_above_it_is_told_where_it_belongs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.toml"
    path.write_text('name = "x"\ndepth = 3\n')
    with pytest.raises(ConfigFileError) as raised:
        read_model(path, Outer)
    assert str(raised.value) == f"{path}:2: depth: unknown setting here: it belongs under [inner]"

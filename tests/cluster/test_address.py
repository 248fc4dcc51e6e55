"""Cluster addresses and the `[cluster]` table: `local:N` or a scheduler's address, and every
mistake said as `FILE:LINE: FIELD: message` (the config) or one line naming the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.app.config import parse_config
from referee.cluster.address import ClusterAddress, parse_address
from referee.tournament.config import ConfigError
from tests.cluster.conftest import builtin_config, referee


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local:2", ClusterAddress(local_workers=2)),
        ("tcp://10.0.0.5:8786", ClusterAddress(scheduler="tcp://10.0.0.5:8786")),
        ("head-node:8786", ClusterAddress(scheduler="tcp://head-node:8786")),
        ("tls://[::1]:8786", ClusterAddress(scheduler="tls://[::1]:8786")),
    ],
)
def test_addresses(text: str, expected: ClusterAddress) -> None:
    assert parse_address(text) == expected
    assert str(parse_address(str(expected))) == str(expected)


@pytest.mark.parametrize("text", ["local:0", "local:x", "local:", "head-node", "tcp://h:99999"])
def test_bad_addresses_say_why(text: str) -> None:
    with pytest.raises(ValueError, match=r"local:N|port"):
        parse_address(text)


def test_a_bad_cluster_table_names_its_line(tmp_path: Path) -> None:
    text = builtin_config(tmp_path / "c.toml", "c").read_text()
    text += '[cluster]\naddress = "local:zero"\nslots = 0\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(text, tmp_path / "c.toml")
    lines = str(caught.value).splitlines()
    count = text.count("\n")
    assert f"{tmp_path / 'c.toml'}:{count - 1}: cluster.address: 'local:zero': local:N" in lines[0]
    assert lines[1].startswith(f"{tmp_path / 'c.toml'}:{count}: cluster.slots: ")


def test_a_bad_cluster_option_is_refused_before_any_game(tmp_path: Path) -> None:
    path = builtin_config(tmp_path / "c.toml", "c")
    proc = referee("tournament", "run", str(path), "--quiet", "--cluster", "nowhere", cwd=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "referee: --cluster: 'nowhere' is not a cluster address" in " ".join(err.split())


def test_a_bot_without_a_folder_of_its_own_cannot_be_shipped(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'name = "c"\ngame = "tic-tac-toe"\n[[players]]\nname = "a"\ncommand = "builtin:random"\n'
        '[[players]]\nname = "b"\ncommand = "./run.sh"\n'
    )
    proc = referee("tournament", "run", str(path), "--quiet", "--cluster", "local:1", cwd=tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    said = " ".join(err.split())
    assert "players[1] (b): a bot sent to the workers needs its own folder" in said

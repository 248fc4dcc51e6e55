"""Bots shipped by content hash: a folder packs to the same bytes every time (whatever its
files' times or Python's caches), any change to a file gives a new hash, a worker's cache keeps
what it was sent, and a game unpacks a fresh copy. Between two tournaments on the same workers,
a changed bot is sent again and an unchanged one is not."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from referee.cluster.client import ClusterSession
from referee.cluster.shipping import (
    FOLDER_PREFIX,
    PackError,
    cached_digests,
    game_folder,
    pack_folder,
    remove_folder,
    store_pack,
    sweep_stale_folders,
    unpack,
)
from referee.cluster.start import shipping_report
from tests.cluster.conftest import DaskCluster, folder_config, run_to_end, write_bot


def make_bot(folder: Path) -> None:
    write_bot(folder, delay=0.0)
    (folder / "lib").mkdir()
    (folder / "lib" / "helper.sh").write_text("#!/bin/sh\necho hi\n")
    (folder / "lib" / "helper.sh").chmod(0o755)


def test_a_folder_packs_to_the_same_hash_until_a_file_changes(tmp_path: Path) -> None:
    make_bot(tmp_path / "a")
    first = pack_folder(tmp_path / "a")
    os.utime(tmp_path / "a" / "bot.py", (1, 1))  # times are not content
    (tmp_path / "a" / "__pycache__").mkdir()
    (tmp_path / "a" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    assert pack_folder(tmp_path / "a") == first
    make_bot(tmp_path / "b")  # the same files elsewhere
    assert pack_folder(tmp_path / "b").digest == first.digest
    with (tmp_path / "a" / "bot.py").open("a") as file:
        file.write("# changed\n")
    assert pack_folder(tmp_path / "a").digest != first.digest
    with pytest.raises(PackError, match="does not exist"):
        pack_folder(tmp_path / "missing")


def test_a_worker_keeps_a_pack_and_unpacks_a_fresh_copy_per_game(tmp_path: Path) -> None:
    make_bot(tmp_path / "bot")
    pack = pack_folder(tmp_path / "bot")
    assert pack.digest not in cached_digests()
    assert store_pack(pack.digest, pack.data) is True
    assert store_pack(pack.digest, pack.data) is False  # already held: nothing written
    assert pack.digest in cached_digests()
    with pytest.raises(PackError, match="does not have that content"):
        store_pack("0" * 64, pack.data)
    one, two = unpack(pack.digest), unpack(pack.digest)
    try:
        assert one != two
        assert (one / "bot.py").read_text() == (tmp_path / "bot" / "bot.py").read_text()
        assert os.access(one / "lib" / "helper.sh", os.X_OK)
        (one / "bot.py").write_text("spoiled")  # one game's copy never reaches another's
        assert (two / "bot.py").read_text() != "spoiled"
    finally:
        remove_folder(one)
        remove_folder(two)


def shipping_lines(said: str) -> dict[str, str]:
    """`bot NAME: HASH sent to N workers` lines, by bot name."""
    found = {}
    for line in said.splitlines():
        if line.startswith("bot "):
            name, _, rest = line[4:].partition(": ")
            found[name] = rest
    return found


def record_hashes(directory: Path) -> dict[str, set[str]]:
    """The content hash each record names for each player."""
    found: dict[str, set[str]] = {}
    for record in (directory / "games").glob("*.jsonl"):
        header = json.loads(record.read_text().splitlines()[0])
        for info in header["players"].values():
            found.setdefault(info["name"], set()).add(info["content_hash"])
    return found


def test_a_changed_bot_is_sent_again_and_an_unchanged_one_is_not(
    tmp_path: Path, dask_cluster: DaskCluster
) -> None:
    folders = {"ann": tmp_path / "ann", "bob": tmp_path / "bob"}
    for name, folder in folders.items():
        write_bot(folder, delay=0.0, extra=f"# {name}\n")
    first = folder_config(tmp_path / "one.toml", "one", folders, concurrency=2)
    said = shipping_lines(run_to_end(first, "--cluster", dask_cluster.address))
    ann, bob = pack_folder(folders["ann"]).digest, pack_folder(folders["bob"]).digest
    assert said == {"ann": f"{ann[:12]} sent to 2 workers", "bob": f"{bob[:12]} sent to 2 workers"}
    for cache in dask_cluster.caches:  # each worker keeps its own copy
        assert {p.name for p in (cache / "bots").iterdir()} == {f"{ann}.tar.gz", f"{bob}.tar.gz"}
    assert record_hashes(tmp_path / "one") == {"ann": {ann}, "bob": {bob}}

    write_bot(folders["bob"], delay=0.0, extra="# bob, a better one\n")
    second = folder_config(tmp_path / "two.toml", "two", folders, concurrency=2)
    said = shipping_lines(run_to_end(second, "--cluster", dask_cluster.address))
    new_bob = pack_folder(folders["bob"]).digest
    assert new_bob != bob
    assert said == {
        "ann": f"{ann[:12]} already held by the workers",
        "bob": f"{new_bob[:12]} sent to 2 workers",
    }
    assert record_hashes(tmp_path / "two") == {"ann": {ann}, "bob": {new_bob}}


def test_on_a_shared_filesystem_nothing_is_sent(tmp_path: Path, dask_cluster: DaskCluster) -> None:
    folders = {"ann": tmp_path / "ann", "bob": tmp_path / "bob"}
    for name, folder in folders.items():
        write_bot(folder, delay=0.0, extra=f"# {name} on a shared disk\n")
    path = folder_config(tmp_path / "shared.toml", "shared", folders, concurrency=2)
    with path.open("a") as file:
        file.write("[cluster]\nshared_filesystem = true\n")
    said = run_to_end(path, "--cluster", dask_cluster.address)
    assert "bots: a shared filesystem" in " ".join(said.split())
    assert shipping_lines(said) == {}
    for cache in dask_cluster.caches:
        digests = (
            {p.name for p in (cache / "bots").iterdir()} if (cache / "bots").exists() else set()
        )
        assert f"{pack_folder(folders['ann']).digest}.tar.gz" not in digests
    for record in (tmp_path / "shared" / "games").glob("*.jsonl"):
        header = json.loads(record.read_text().splitlines()[0])
        for info in header["players"].values():  # run in its own folder, as locally
            assert info["cwd"] == str(folders[info["name"]])
            assert info["content_hash"] is None


def test_the_game_folders_of_a_dead_worker_are_swept() -> None:
    dead = 2**22 + 12345  # above the kernel's largest pid: no such process
    stale = Path(tempfile.gettempdir()) / f"{FOLDER_PREFIX}{dead}-0123456789ab-x"
    stale.mkdir()
    (stale / "bot.py").write_text("left by a killed worker")
    mine = game_folder("0123456789ab")  # this process's: alive, kept
    try:
        sweep_stale_folders.__wrapped__()
        assert not stale.exists()
        assert mine.is_dir() and mine.name.startswith(f"{FOLDER_PREFIX}{os.getpid()}-0123456789ab-")
    finally:
        remove_folder(mine)
        remove_folder(stale)


def test_a_bot_stored_once_is_said_to_be_sent_to_one_worker() -> None:
    # The workers of `local:N` share this machine's cache: a pack is stored there once, by the
    # first worker it is sent to, and the others hold it already.
    ann, bob = "a" * 64, "b" * 64
    session = SimpleNamespace(
        packs={ann: None, bob: None},
        seats={
            1: SimpleNamespace(name="ann", digest=ann),
            2: SimpleNamespace(name="bob", digest=bob),
        },
        shipped=[("tcp://w1", ann), ("tcp://w1", bob), ("tcp://w2", bob)],
    )
    assert shipping_report(cast(ClusterSession, session)) == [
        f"bot ann: {ann[:12]} sent to 1 worker",
        f"bot bob: {bob[:12]} sent to 2 workers",
    ]

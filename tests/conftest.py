"""Fixtures of every test: the built-in bots' solved-table cache lives in a temporary directory,
so a test neither reads the cache of the person running it nor leaves tables in it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_table_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    directory = tmp_path_factory.mktemp("table-cache")
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(directory))
    return directory

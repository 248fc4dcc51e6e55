"""Fixtures of every test: the built-in bots' solved-table cache lives in a temporary directory,
so a test neither reads the cache of the person running it nor leaves tables in it; and a real
headless Chromium driven by playwright (the machine's own browser, /usr/bin/chromium) for the
tests of web pages."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("REFEREE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


@pytest.fixture(autouse=True)
def private_table_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    directory = tmp_path_factory.mktemp("table-cache")
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(directory))
    return directory


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium; skipped only where the machine has no Chromium or no playwright."""
    if not Path(CHROMIUM).exists() and shutil.which(CHROMIUM) is None:
        pytest.skip(f"no Chromium at {CHROMIUM} (CI installs Debian's chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()

"""Fixtures of every test: a temporary folder that bots may read; the built-in bots'
solved-table cache in a temporary directory, so a test neither reads the cache of the person
running it nor leaves tables in it; a real headless Chromium driven by playwright (the
machine's own browser, /usr/bin/chromium) for the tests of web pages; and a test that voided a
game by a referee error it did not ask for fails (tests/referee_errors.py)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.isolation import native
from tests import referee_errors
from tests.referee_errors import no_referee_error  # noqa: F401 (an autouse fixture of every test)

CHROMIUM = os.environ.get("REFEREE_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: pytest alone runs without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the machine has cores. Most tests spend their time waiting
    for bot processes, a move's deadline or a server; a worker per core leaves the cores idle
    for a third of the run (measured on a 2-core machine)."""
    return (os.cpu_count() or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    """A suite started with SIGINT ignored (in the background of a script, or under nohup)
    would hand that to every process it starts, and the tests of Ctrl-C would find a referee
    that cannot be interrupted: each test process takes Ctrl-C as a terminal gives it. Every
    test process keeps a log of the referee errors of its tests (tests/referee_errors.py)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    referee_errors.configure(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    referee_errors.unconfigure(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With `--dist loadgroup`, the tests of a file that use a module-scoped fixture (a course
    built once, a browser, an uninterrupted reference run) go to one worker, which builds it
    once; every other test goes to whichever worker is free.

    Such groups, and the tests marked slow, are the longest pieces of work, so they are handed
    out first and the many short tests fill the workers up at the end (run in the order
    collected, a group that came last kept one worker busy alone for half a minute).

    The other tests are spread evenly over the run, the cases of each test function across all
    of it: the cases of one test wait alike (a hostile bot's mostly wait out timeouts and
    graces), and run side by side they left the cores idle for a minute while every worker
    waited."""
    grouped: set[str] = set()
    by_test: dict[str, list[pytest.Item]] = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        definitions = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope == "module" for defs in definitions for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
            grouped.add(item.nodeid)
        by_test.setdefault(item.nodeid.partition("[")[0], []).append(item)
    # Where each case falls in the run, from 0 to 1: evenly spaced among its test's cases, from
    # a start drawn from the test's name (a test of one case falls anywhere). A checksum, not
    # hash(), so that every worker collects the same order.
    share = {
        item.nodeid: (index + zlib.crc32(test.encode()) / 2**32) / len(cases)
        for test, cases in by_test.items()
        for index, item in enumerate(cases)
    }
    first = {item.nodeid for item in items if item.get_closest_marker("slow")} | grouped
    items.sort(key=lambda item: (item.nodeid not in first, share[item.nodeid]))


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A fresh folder for one test, that others may enter and read (pytest's own are private to
    the user running the tests): a referee running as root runs each bot as a user of its own,
    which must reach the bot's files, as on a real course machine. Removed after the test."""
    path = Path(tempfile.mkdtemp(prefix="referee-test-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class ReadableFolders:
    """`tmp_path_factory` for folders that bots may read (see `tmp_path`): made under the
    system's temporary folder, open to others, removed when the test run ends."""

    def __init__(self) -> None:
        self.made: list[Path] = []

    def mktemp(self, name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=f"referee-test-{name}-"))
        path.chmod(0o755)
        self.made.append(path)
        return path

    def remove(self) -> None:
        for path in self.made:
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def readable_folders() -> Iterator[ReadableFolders]:
    folders = ReadableFolders()
    try:
        yield folders
    finally:
        folders.remove()


@pytest.fixture(scope="session")
def compiled_helper(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The bots' compiled helper, built once for the whole run (None: no C compiler here)."""
    target = tmp_path_factory.mktemp("helper") / "helpers" / native.helper_path().name
    return target if native.build(target) else None


@pytest.fixture(autouse=True)
def private_table_cache(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    compiled_helper: Path | None,
) -> Path:
    """A cache folder of the test's own, holding the compiled helper as on a machine that has
    built it once (a referee started by the test would otherwise compile it again)."""
    directory = tmp_path_factory.mktemp("table-cache")
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(directory))
    if compiled_helper is not None:
        (directory / "helpers").mkdir(mode=0o755)
        os.link(compiled_helper, directory / "helpers" / compiled_helper.name)
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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page of the browser; a JavaScript error on it fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"

"""Every input the web view takes from a request (the `ply` query parameter, record ids, live-game
ids), given hostile values: malformed input is a 400, what names nothing here a 404, and nothing
is ever a server error. Python's int() takes digits of other scripts ("٣"), signs, spaces and
underscores, and raises on very long numbers; none of that is a number here. A record edited
after it was written is refused too (422, naming the line)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ReadableFolders
from tests.replay.make_records import random_record
from tests.replay.tamper import edit_time, tamper
from tests.web.conftest import ServerThread, serve_in_thread

RECORD = "/api/replay/0/game.jsonl"


@pytest.fixture(scope="module")
def server(readable_folders: ReadableFolders) -> Iterator[ServerThread]:
    folder = readable_folders.mktemp("hostile")
    random_record(folder / "game.jsonl", "alak", 1)
    random_record(folder / "edited.jsonl", "alak", 2)
    tamper(folder / "edited.jsonl", edit_time)
    with serve_in_thread([folder]) as running:
        yield running


@pytest.fixture(scope="module")
def last_ply(server: ServerThread) -> int:
    status, body = get(server, RECORD)
    assert status == 200
    return len(json.loads(body)["frames"]) - 1


def get(server: ServerThread, path: str) -> tuple[int, str]:
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


NOT_NUMBERS = [
    "٠",
    "٣",
    "²",
    "１",
    "৩",
    "-1",
    "+1",
    " 1",
    "1 ",
    "1_0",
    "0x1",
    "1e3",
    "1.0",
    "",
    "\0",
]


@pytest.mark.parametrize("value", [*NOT_NUMBERS, "5" * 5000, "9" * 19, "10000000"])
def test_a_ply_that_is_not_a_plain_number_in_range_is_a_400(
    server: ServerThread, value: str
) -> None:
    status, body = get(server, f"{RECORD}?ply={quote(value)}")
    assert status == 400, (value, body)
    assert "ply must be a whole number" in body


@pytest.mark.parametrize("value", ["0", "1", "007"])
def test_a_plain_ply_is_served(server: ServerThread, value: str) -> None:
    status, body = get(server, f"{RECORD}?ply={value}")
    assert status == 200 and f'"ply":{int(value)}' in body


@pytest.mark.parametrize("folder", [*NOT_NUMBERS, "5" * 5000, "9" * 19])
@pytest.mark.parametrize("prefix", ["/api/replay/", "/replay/"])
def test_a_record_id_without_a_plain_folder_number_is_a_400(
    server: ServerThread, prefix: str, folder: str
) -> None:
    """ "٠/game.jsonl" once named folder 0; "²/..." and 5000 digits made int() raise."""
    status, _ = get(server, prefix + quote(folder) + "/game.jsonl")
    assert status == 400, folder


@pytest.mark.parametrize(
    "path",
    [
        "0/" + "a" * 300 + ".jsonl",  # longer than a file name may be
        "0/" + "/".join(["d" * 200] * 30) + ".jsonl",  # longer than a path may be
        "7/game.jsonl",  # no such folder
        "0/" + "٣" * 100 + ".jsonl",
    ],
)
def test_a_record_id_that_names_nothing_is_a_404(server: ServerThread, path: str) -> None:
    assert get(server, "/api/replay/" + quote(path))[0] == 404


def test_an_edited_record_is_refused_with_its_line(server: ServerThread) -> None:
    status, body = get(server, "/api/replay/0/edited.jsonl")
    assert status == 422 and "record:3: the record was edited after it was written" in body


# -- fuzzing --------------------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
anything = st.one_of(
    st.text(max_size=40),
    st.integers().map(str),
    st.from_regex(r"[0-9٠-٩０-９²³ _+\-.]{1,30}", fullmatch=True),
    st.integers(min_value=4000, max_value=6000).map(lambda n: "7" * n),
)


@FUZZ
@given(value=anything)
def test_fuzzed_ply_values(server: ServerThread, last_ply: int, value: str) -> None:
    status, _ = get(server, f"{RECORD}?ply={quote(value)}")
    plain = value.isascii() and value.isdigit() and len(value) <= 18 and int(value) <= last_ply
    assert status == (200 if plain else 400), value


@FUZZ
@given(value=anything, rest=st.sampled_from(["game.jsonl", "", "x/../game.jsonl", "a.txt"]))
def test_fuzzed_record_ids(server: ServerThread, value: str, rest: str) -> None:
    for prefix in ("/api/replay/", "/replay/"):
        status, _ = get(server, prefix + quote(f"{value}/{rest}", safe="/"))
        assert status in (200, 400, 404), (prefix, value, rest, status)


@FUZZ
@given(value=anything)
def test_fuzzed_live_ids(server: ServerThread, value: str) -> None:
    for template in ("/live/{}", "/api/live/{}", "/api/live/{}/events"):
        status, _ = get(server, template.format(quote(value, safe="")))
        assert status < 500, (template, value, status)  # the page of any well-formed id is 200

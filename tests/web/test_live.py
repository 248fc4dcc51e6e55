"""The live hub on its own: snapshots, pushed plies, slow pages dropped, errors kept from games."""

from __future__ import annotations

import json

import trio

from referee.records import GameRecord, Header, Ply, Result
from referee.replay import build_replay
from referee.web.live import QUEUE_LENGTH, LiveHub, Subscribers
from tests.replay.make_records import record_lines


def parse(message: str) -> tuple[str, dict[str, object]]:
    event_line, data_line = message.strip().splitlines()[-2:]
    return event_line.removeprefix("event: "), json.loads(data_line.removeprefix("data: "))


def replay_of(lines: list[Header | Ply | Result]):  # type: ignore[no-untyped-def]
    header, *plies, result = lines
    return build_replay(GameRecord(header=header, plies=plies, result=result))  # type: ignore[arg-type]


async def test_a_late_page_gets_every_frame_so_far() -> None:
    hub = LiveHub()
    match = hub.open_match("late")
    lines = record_lines("lielow", 2)
    for line in lines[:-1]:
        match.listener(line)  # nobody watches yet
    first, _send, receive = match.subscribe()
    event, snapshot = parse(first)
    expected = replay_of(lines)
    assert event == "snapshot"
    assert snapshot["frames"] == [f.model_dump(mode="json") for f in expected.frames]
    match.listener(lines[-1])
    event, data = parse(receive.receive_nowait())
    result = data["result"]
    assert event == "result" and isinstance(result, dict)
    assert (result["reason"], result["ending"]) == ("game-ending", "king-lost")
    assert match.summary()["finished"] and match.summary()["plies"] == len(expected.plies)


async def test_a_page_that_cannot_keep_up_is_dropped_without_blocking() -> None:
    subscribers = Subscribers()
    _stuck_send, stuck = subscribers.add()  # a page that never reads
    _send, reader = subscribers.add()
    for number in range(QUEUE_LENGTH + 5):
        subscribers.publish(f"event {number}")  # never waits, whatever the pages do
        assert reader.receive_nowait() == f"event {number}"
    assert len(subscribers) == 1  # the stuck page was dropped
    queued = [message async for message in stuck]  # what was queued, then the end of the stream
    assert queued == [f"event {n}" for n in range(QUEUE_LENGTH)]


async def test_a_view_error_never_reaches_the_game() -> None:
    hub = LiveHub()
    match = hub.open_match("odd")
    lines = record_lines("alak", 3)
    match.listener(lines[0])
    _, _, _receive = match.subscribe()  # a page is watching, so the ply is replayed at once
    bogus = Ply(ply=1, side="blue", received="zz", move="zz", time_ms=1)  # type: ignore[arg-type]
    match.listener(bogus)  # the rules refuse it; the listener must not raise
    assert match.problems and "live view error" in match.problems[0]


async def test_dashboards_hear_of_games_starting_progressing_and_ending() -> None:
    hub = LiveHub()
    _send, receive = hub.dashboards.add()
    match = hub.open_match("game 1", match_id="g1")
    lines = record_lines("legionnaires", 4)
    for line in lines:
        match.listener(line)
    events = []
    while True:
        try:
            events.append(parse(receive.receive_nowait()))
        except trio.WouldBlock:
            break
    kinds = [event for event, _ in events]
    assert kinds[0] == "match" and kinds[-1] == "match"
    assert kinds.count("progress") == len(lines) - 2
    assert events[-1][1]["finished"] is True
    replaced = hub.open_match("game 1 again", match_id="g1")  # a replayed game keeps its id
    assert hub.get("g1") is replaced

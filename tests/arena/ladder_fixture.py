"""A small ladder in an arena: alice (v1 superseded, v2 active), bob (v1 active) and carol (v1
active), their games with records (alice lost two of them, one by a crash whose verdict quotes
her stderr), ratings with history, and a running and a pending game."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from protocols.base import Side
from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.roster import Person
from referee.arena.rows import Role
from tests.arena.ladder import (
    BLUE_WINS,
    ORANGE_WINS,
    START,
    Stderr,
    account,
    add_game,
    add_version,
    crash_result,
    rate,
    record_lines,
)

ALICE_STDERR = "ALICE-STDERR debugging"
BOB_STDERR = "BOB-STDERR secret strategy"
CAROL_STDERR = "CAROL-STDERR private"
ALICE_LAST_WORDS = "ALICE-LAST-WORDS Traceback"


@dataclass(frozen=True)
class Ladder:
    alice: int  # account ids
    bob: int
    carol: int
    alice_v1: int  # version ids
    alice_v2: int
    bob_v1: int
    carol_v1: int
    alice_lost: int  # alice (blue) lost to bob by the rules
    alice_crashed: int  # alice (orange) crashed against bob; the verdict quotes her stderr
    alice_won: int
    others: int  # bob against carol: no game of alice's
    running: int  # bob against carol, being played
    pending: int  # alice against carol, waiting


def make_ladder(arena: Arena, now: datetime = START) -> Ladder:
    db = arena.store.writer
    accounts.import_roster(db, [Person("carol", "Carol Student", Role.STUDENT, None, 5)], now)
    alice, bob, carol = account(db, "alice"), account(db, "bob"), account(db, "carol")
    known = accounts.by_id(db, alice)
    assert known is not None and known.password_hash is not None
    accounts.set_password(db, carol, known.password_hash)  # alice's password: no new hashing
    alice_v1 = add_version(db, alice, status="superseded")
    alice_v2 = add_version(db, alice)
    bob_v1, carol_v1 = add_version(db, bob), add_version(db, carol)
    stderr = Stderr(blue=ALICE_STDERR, orange=BOB_STDERR)
    alice_lost = add_game(arena, alice_v2, bob_v1, lines=record_lines(ORANGE_WINS, stderr))
    crash = crash_result(Side.ORANGE, 2, ALICE_LAST_WORDS)
    alice_crashed = add_game(
        arena,
        bob_v1,
        alice_v2,
        lines=record_lines(["a1", "b1"], Stderr(BOB_STDERR, ALICE_STDERR), result=crash),
    )
    alice_won = add_game(arena, alice_v2, carol_v1, lines=record_lines(BLUE_WINS))
    others = add_game(
        arena, bob_v1, carol_v1, lines=record_lines(BLUE_WINS, Stderr(BOB_STDERR, CAROL_STDERR))
    )
    running = add_game(arena, bob_v1, carol_v1, state="running")
    pending = add_game(arena, alice_v2, carol_v1, state="pending")
    rate(db, alice_v1, 1480.0, low=1400.0, high=1560.0, at=now - timedelta(days=2))
    rate(db, alice_v2, 1500.0, low=1450.0, high=1560.0, at=now - timedelta(days=1, hours=1))
    rate(db, alice_v2, 1550.0, low=1500.0, high=1600.0, rank=1, at=now)
    rate(db, bob_v1, 1450.0, high=1500.0, rank=None, flags="provisional,winless", at=now)
    return Ladder(
        alice,
        bob,
        carol,
        alice_v1,
        alice_v2,
        bob_v1,
        carol_v1,
        alice_lost,
        alice_crashed,
        alice_won,
        others,
        running,
        pending,
    )

"""A Lasker Morris player written the way course students write them, independent of our code.

It keeps its own board, reads with input(), prints with flush=True, and stops on END. It plays
random moves that it believes legal: it never uses the referee's rule modules.
"""

import random
import sys

ADJ = {
    "a1": "a4 d1",
    "a4": "a1 a7 b4",
    "a7": "a4 d7",
    "b2": "b4 d2",
    "b4": "b2 b6 a4 c4",
    "b6": "b4 d6",
    "c3": "c4 d3",
    "c4": "c3 c5 b4",
    "c5": "c4 d5",
    "d1": "a1 d2 g1",
    "d2": "b2 d1 d3 f2",
    "d3": "c3 d2 e3",
    "d5": "c5 d6 e5",
    "d6": "b6 d5 d7 f6",
    "d7": "a7 d6 g7",
    "e3": "d3 e4",
    "e4": "e3 e5 f4",
    "e5": "d5 e4",
    "f2": "d2 f4",
    "f4": "e4 f2 f6 g4",
    "f6": "d6 f4",
    "g1": "d1 g4",
    "g4": "f4 g1 g7",
    "g7": "d7 g4",
}
MILL_LINES = (
    "a1 a4 a7,b2 b4 b6,c3 c4 c5,d1 d2 d3,d5 d6 d7,e3 e4 e5,f2 f4 f6,g1 g4 g7,"
    "a1 d1 g1,b2 d2 f2,c3 d3 e3,a4 b4 c4,e4 f4 g4,c5 d5 e5,b6 d6 f6,a7 d7 g7"
)
MILLS = [m.split() for m in MILL_LINES.split(",")]

board = {p: None for p in ADJ}
hand = {"blue": 10, "orange": 10}


def in_mill(point, colour):
    return any(point in m and all(board[q] == colour for q in m) for m in MILLS)


def apply(colour, src, dst, rem):
    if src in ("h1", "h2"):
        hand[colour] -= 1
    else:
        board[src] = None
    board[dst] = colour
    if rem != "r0":
        board[rem] = None


def choose(me, rng):
    other = "orange" if me == "blue" else "blue"
    mine = [p for p in board if board[p] == me]
    empty = [p for p in board if board[p] is None]
    flying = len(mine) + hand[me] <= 3
    moves = []
    if hand[me]:
        moves += [("h1" if me == "blue" else "h2", e) for e in empty]
    for p in mine:
        targets = empty if flying else [q for q in ADJ[p].split() if board[q] is None]
        moves += [(p, q) for q in targets]
    src, dst = rng.choice(moves)
    saved = dict(board)
    board[dst] = me
    if src in board:
        board[src] = None
    rem = "r0"
    if in_mill(dst, me):
        theirs = [p for p in board if board[p] == other]
        free = [p for p in theirs if not in_mill(p, other)]
        rem = rng.choice(free or theirs)
    board.clear()
    board.update(saved)
    return src, dst, rem


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    me = input().strip()
    other = "orange" if me == "blue" else "blue"
    if me == "blue":
        move = choose(me, rng)
        apply(me, *move)
        print(" ".join(move), flush=True)
    while True:
        try:
            line = input().strip()
        except EOFError:
            break
        if line == "END":
            break
        apply(other, *line.split())
        move = choose(me, rng)
        apply(me, *move)
        print(" ".join(move), flush=True)


main()

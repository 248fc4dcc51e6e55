"""A minimal correct Alak bot: it tracks the board and plays the leftmost legal point.

Run it with: referee check alak "python3 alak_bot.py"
Only moves go to stdout (one line, flushed); anything else goes to stderr.

With --position it understands the protocol's `position` extension: run it so in a tournament
or match that starts its games from openings (and declare it: `capabilities = ["position"]`).
Right after its colour it then reads `position K` and the opening's K moves, oldest first.
"""

import sys

SIZE = 11  # points a..k, the tournament's board unless announced otherwise
LETTERS = "abcdefghijklmnopqrstuvwxyz"[:SIZE]


def place(board, point, me, other):
    """Put `me` on `point`; remove the enemy runs next to it that have no liberty left.
    Returns the captured points (the opponent may not play there on its next turn)."""
    board[point] = me
    captured = []
    for step in (-1, 1):
        run, j = [], point + step
        while 0 <= j < SIZE and board[j] == other:
            run.append(j)
            j += step
        if run and (j < 0 or j >= SIZE or board[j] == me):  # edge or my stone beyond the run
            captured += run
    for j in captured:
        board[j] = "."
    return captured


def follow_opening(board, me):
    """Read `position K` and the opening's K moves, playing each as if watched (the first is
    blue's); returns where my stones were just captured, and whether it is my turn."""
    count = int(sys.stdin.readline().split()[1])
    banned = []
    for ply in range(count):
        point = LETTERS.index(sys.stdin.readline().strip())
        mover, opponent = ("X", "O") if ply % 2 == 0 else ("O", "X")
        captured = place(board, point, mover, opponent)
        banned = captured if mover != me else []
    my_turn = (count % 2 == 0) == (me == "X")  # blue moves after an even number of plies
    return banned, my_turn


def main():
    board = ["."] * SIZE
    colour = sys.stdin.readline().strip()
    me, other = ("X", "O") if colour == "blue" else ("O", "X")
    banned = []  # where my stones were just captured
    my_turn = colour == "blue"  # blue answers its colour with its first move
    if "--position" in sys.argv[1:]:  # every game starts from an opening
        banned, my_turn = follow_opening(board, me)
    while True:
        if my_turn:
            legal = [p for p in range(SIZE) if board[p] == "." and p not in banned]
            if legal:
                point = legal[0]
                print(LETTERS[point], flush=True)
                place(board, point, me, other)
        line = sys.stdin.readline().strip()
        if line in ("", "END"):  # the game is over (or the referee went away)
            return
        banned = place(board, LETTERS.index(line), other, me)
        my_turn = True


if __name__ == "__main__":
    main()

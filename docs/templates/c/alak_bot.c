/* A minimal correct Alak bot: it tracks the board and plays the leftmost legal point.
 *
 * Build and check it with:
 *   gcc -O2 -o alak_bot alak_bot.c && referee check alak "./alak_bot"
 * Only moves go to stdout (one line, flushed); anything else goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 11 /* points a..k, the tournament's board unless announced otherwise */

static char board[SIZE];

/* Put `me` on `point`; remove the enemy runs next to it that have no liberty left.
 * Marks the captured points in `captured` (the opponent may not play there next turn). */
static void place(int point, char me, char other, int captured[SIZE]) {
    memset(captured, 0, SIZE * sizeof(int));
    board[point] = me;
    for (int step = -1; step <= 1; step += 2) {
        int j = point + step;
        while (j >= 0 && j < SIZE && board[j] == other) j += step;
        if (j != point + step && (j < 0 || j >= SIZE || board[j] == me)) {
            for (int k = point + step; k != j; k += step) captured[k] = 1;
        }
    }
    for (int k = 0; k < SIZE; k++) {
        if (captured[k]) board[k] = '.';
    }
}

static int read_line(char *line, int size) {
    if (!fgets(line, size, stdin)) return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return 1;
}

int main(int argc, char **argv) {
    char line[256];
    int banned[SIZE] = {0}, ignored[SIZE];
    memset(board, '.', SIZE);
    if (!read_line(line, sizeof line)) return 0;
    int blue = strcmp(line, "blue") == 0;
    char me = blue ? 'X' : 'O', other = blue ? 'O' : 'X';
    int my_turn = blue; /* blue answers its colour with its first move */
    if (argc > 1 && strcmp(argv[1], "--position") == 0) {
        /* Every game starts from an opening: "position K", then its K moves, oldest first, the
           first one blue's, each played as if watched. */
        if (!read_line(line, sizeof line)) return 0;
        int count = atoi(line + strlen("position "));
        for (int ply = 0; ply < count; ply++) {
            if (!read_line(line, sizeof line)) return 0;
            char mover = ply % 2 == 0 ? 'X' : 'O';
            place(line[0] - 'a', mover, mover == 'X' ? 'O' : 'X', mover == me ? ignored : banned);
            if (mover == me) memset(banned, 0, sizeof banned);
        }
        my_turn = (count % 2 == 0) == blue; /* blue moves after an even number of plies */
    }
    for (;;) {
        if (my_turn) {
            for (int p = 0; p < SIZE; p++) {
                if (board[p] == '.' && !banned[p]) {
                    printf("%c\n", 'a' + p);
                    fflush(stdout);
                    place(p, me, other, ignored);
                    break;
                }
            }
        }
        if (!read_line(line, sizeof line) || strcmp(line, "END") == 0) return 0;
        place(line[0] - 'a', other, me, banned); /* my stones it captured are banned for me */
        my_turn = 1;
    }
}

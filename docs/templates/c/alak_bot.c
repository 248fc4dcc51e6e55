/* A minimal correct Alak bot: it tracks the board and plays the leftmost legal point.
 *
 * Build and check it with:
 *   gcc -O2 -o alak_bot alak_bot.c && referee check alak "./alak_bot"
 * Only moves go to stdout (one line, flushed); anything else goes to stderr.
 */
#include <stdio.h>
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

int main(void) {
    char line[256];
    int banned[SIZE] = {0}, ignored[SIZE];
    memset(board, '.', SIZE);
    if (!read_line(line, sizeof line)) return 0;
    int blue = strcmp(line, "blue") == 0;
    char me = blue ? 'X' : 'O', other = blue ? 'O' : 'X';
    int my_turn = blue; /* blue answers its colour with its first move */
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

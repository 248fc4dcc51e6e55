/* The board of the Lasker Morris engine, shared by core.c and endgame.c: constants, the
 * tables (set from Python by morris_tables in core.c) and the move generator of
 * bots/morris/board.py. */
#ifndef MORRIS_BOARD_H
#define MORRIS_BOARD_H
#include <stdint.h>

#define COUNT 24
#define FULL 0xFFFFFFu
#define HAND 24
#define NO_REMOVAL 24
#define FLYING_MAX 3
#define MIN_STONES 3
#define TERMS 11
#define SLOW 9
#define FADE 8
#define EVAL_LIMIT 10000
#define MATE 30000
#define TABLE_WIN 20000
#define WIN_BOUND 15000
#define INFINITY_SCORE 32000
#define MAX_PLY 128
#define QUIESCENCE_PLIES 8
#define CHECK_EVERY 1023
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define REDUCE_FROM_DEPTH 3
#define REDUCE_AFTER 3
#define HASH_FIRST (1 << 30)
#define MILL_MOVE (1 << 29)
#define BLOCK (1 << 28)
#define KILLER (1 << 27)
#define HISTORY_CAP (1 << 26)
#define MAX_MOVES 1024
#define KEYED_REMAINING 64


extern uint32_t NEIGH[COUNT];
extern uint32_t MILLS[16];
extern uint32_t RESTS[COUNT][2];

typedef struct {
    uint32_t own, opp;
    int own_hand, opp_hand, counter;
} Pos;

static inline int popcount(uint32_t x) { return __builtin_popcount(x); }

/* -- the board (bots/morris/board.py) ------------------------------------------------------ */

static inline uint32_t in_mills(uint32_t mask) {
    uint32_t covered = 0;
    for (int m = 0; m < 16; m++)
        if ((mask & MILLS[m]) == MILLS[m]) covered |= MILLS[m];
    return covered;
}

static inline uint32_t removable(uint32_t opp) {
    uint32_t outside = opp & ~in_mills(opp);
    return outside ? outside : opp;
}

static inline int closes_mill(uint32_t rest, int target) {
    uint32_t a = RESTS[target][0], b = RESTS[target][1];
    return (rest & a) == a || (rest & b) == b;
}

static inline int generate(const Pos *pos, int captures_only, int32_t *moves) {
    uint32_t own = pos->own, opp = pos->opp;
    uint32_t empty = FULL & ~(own | opp);
    int flying = popcount(own) + pos->own_hand <= FLYING_MAX;
    int n = 0, have_takes = 0;
    uint32_t takes = 0;
    for (int s = -1; s < COUNT; s++) {
        int source;
        uint32_t rest, targets;
        if (s < 0) {
            if (!pos->own_hand) continue;
            source = HAND, rest = own, targets = empty;
        } else {
            if (!(own >> s & 1)) continue;
            source = s, rest = own ^ (1u << s), targets = flying ? empty : NEIGH[s] & empty;
        }
        for (int t = 0; t < COUNT; t++) {
            if (!(targets >> t & 1)) continue;
            if (!closes_mill(rest, t)) {
                if (!captures_only) moves[n++] = source | t << 5 | NO_REMOVAL << 10;
                continue;
            }
            if (!have_takes) takes = removable(opp), have_takes = 1;
            for (int r = 0; r < COUNT; r++)
                if (takes >> r & 1) moves[n++] = source | t << 5 | r << 10;
        }
    }
    return n;
}

static inline int has_move(const Pos *pos) {
    uint32_t empty = FULL & ~(pos->own | pos->opp);
    if (pos->own_hand || popcount(pos->own) <= FLYING_MAX) return empty != 0;
    for (int s = 0; s < COUNT; s++)
        if ((pos->own >> s & 1) && (NEIGH[s] & empty)) return 1;
    return 0;
}

static inline Pos play(const Pos *pos, int move) {
    int source = move & 31, target = move >> 5 & 31, remove = move >> 10 & 31;
    uint32_t own = pos->own, opp = pos->opp;
    int own_hand = pos->own_hand, counter = pos->counter;
    if (source == HAND)
        own_hand--;
    else
        own ^= 1u << source;
    own |= 1u << target;
    if (remove != NO_REMOVAL) {
        opp &= ~(1u << remove);
        counter = 0;
    } else {
        counter++;
    }
    Pos next = {opp, own, pos->opp_hand, own_hand, counter};
    return next;
}

#endif

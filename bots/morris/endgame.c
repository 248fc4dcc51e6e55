/* Exact endgame tables of Lasker Morris: the builder and the probe (bots/morris/endgame.py).
 *
 * A table covers every position with both hands empty and 3..max_stones stones on each side,
 * for one no-removal limit L. A class (a, b) holds the positions where the side to move has a
 * stones and the other b; each position is stored once per symmetry class of the board (16
 * symmetries): its index is that of the least image (own mask first, then the other's).
 *
 * A value is one byte: 0 for a draw, d (1..127) for a win and 128 + d for a loss, where d is
 * the least number of plies r left before the no-removal draw (r = L - plies since the last
 * removal) with which the result is forced. With fewer plies left the position is a draw, as
 * the course's rule says. Captures reset the count, so a capture leads into a smaller class at
 * r = L, already built. Within a class pair {(a, b), (b, a)} the values are found for r = 1,
 * 2, ... L: a pass judges the positions one un-move away from those decided in the pass before,
 * by generating all their moves (never by counting, which symmetric positions would spoil).
 * A decisive result can always be forced without repeating a position (the distance falls at
 * every ply of the winner's best line), so the repetition rule changes no value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"

#define MAX_STONES 5
#define SYMMETRIES 16
#define LOSS_FLAG 128

typedef struct {
    int max_stones;
    uint32_t sym[SYMMETRIES][3][256];
    const int32_t *own_rep[MAX_STONES + 1];
    const uint16_t *own_syms[MAX_STONES + 1];
    const uint32_t *reps[MAX_STONES + 1];
    int64_t offset[MAX_STONES + 1][MAX_STONES + 1];
    uint8_t *values;
} Tables;

static uint64_t BINOM[COUNT + 1][MAX_STONES + 2];

static void binomials(void) {
    for (int n = 0; n <= COUNT; n++) {
        BINOM[n][0] = 1;
        for (int k = 1; k <= MAX_STONES + 1; k++)
            BINOM[n][k] = n ? BINOM[n - 1][k - 1] + BINOM[n - 1][k] : 0;
    }
}

/* sym: 16 x 3 x 256 images of each byte of a mask; the others: by stone count 3..max_stones,
 * concatenated in that order. */
void *morris_endgame_new(int max_stones, const uint32_t *sym, const int32_t *own_rep,
                         const uint16_t *own_syms, const uint32_t *reps, const int32_t *rep_counts,
                         const int64_t *offsets, uint8_t *values) {
    if (max_stones < MIN_STONES || max_stones > MAX_STONES) return NULL;
    Tables *t = calloc(1, sizeof(Tables));
    if (!t) return NULL;
    binomials();
    t->max_stones = max_stones;
    memcpy(t->sym, sym, sizeof t->sym);
    for (int a = MIN_STONES; a <= max_stones; a++) {
        t->own_rep[a] = own_rep;
        t->own_syms[a] = own_syms;
        t->reps[a] = reps;
        own_rep += BINOM[COUNT][a];
        own_syms += BINOM[COUNT][a];
        reps += rep_counts[a - MIN_STONES];
        for (int b = MIN_STONES; b <= max_stones; b++)
            t->offset[a][b] = offsets[(a - MIN_STONES) * (max_stones - 2) + b - MIN_STONES];
    }
    t->values = values;
    return t;
}

void morris_endgame_free(void *tables) { free(tables); }

static uint32_t image(const Tables *t, int s, uint32_t m) {
    return t->sym[s][0][m & 255] | t->sym[s][1][m >> 8 & 255] | t->sym[s][2][m >> 16];
}

static uint64_t colex(uint32_t m) {
    uint64_t rank = 0;
    for (int i = 1; m; i++, m &= m - 1) rank += BINOM[__builtin_ctz(m)][i];
    return rank;
}

static int64_t index_of(const Tables *t, uint32_t own, uint32_t opp) {
    int a = popcount(own), b = popcount(opp);
    uint64_t own_rank = colex(own);
    int rep_index = t->own_rep[a][own_rank];
    unsigned syms = t->own_syms[a][own_rank];
    uint32_t rep = t->reps[a][rep_index], least = 0xFFFFFFFFu;
    for (int s = 0; s < SYMMETRIES; s++)
        if (syms >> s & 1) {
            uint32_t o = image(t, s, opp);
            if (o < least) least = o;
        }
    uint64_t rank = 0;
    for (int i = 1; least; i++, least &= least - 1) {
        int p = __builtin_ctz(least);
        rank += BINOM[p - popcount(rep & ((1u << p) - 1))][i];
    }
    return t->offset[a][b] + (int64_t)rep_index * (int64_t)BINOM[COUNT - a][b] + (int64_t)rank;
}

int morris_endgame_index(const void *tables, uint32_t own, uint32_t opp, int64_t *out) {
    *out = index_of(tables, own, opp);
    return 1;
}

int morris_endgame_probe(const void *tables, uint32_t own, uint32_t opp, int counter, int limit) {
    const Tables *t = tables;
    int a = popcount(own), b = popcount(opp);
    if (a < MIN_STONES || b < MIN_STONES || a > t->max_stones || b > t->max_stones) return 0;
    uint8_t v = t->values[index_of(t, own, opp)];
    int d = v & 127;
    if (!v || (limit && d > limit - counter)) return 0;
    return v & LOSS_FLAG ? -d : d;
}

/* -- the builder --------------------------------------------------------------------------- */

/* The value of (own to move, opp) with r plies left, from values decided with fewer: a win
 * or a loss at distance r, or 0 (not decided yet). With `loss_only`, 0 as soon as one move
 * does not lose (a win is then found from the lost position it leads to, see `spread`). */
static uint8_t judge(const Tables *t, uint32_t own, uint32_t opp, int r, int loss_only) {
    Pos p = {own, opp, 0, 0, 0};
    int32_t moves[1024];
    int n = generate(&p, 0, moves), all_lose = 1;
    if (!n) return LOSS_FLAG | 1;
    for (int i = 0; i < n; i++) {
        Pos child = play(&p, moves[i]);
        int capture = (moves[i] >> 10 & 31) != NO_REMOVAL;
        if (capture && popcount(child.own) < MIN_STONES) return (uint8_t)r;
        if (!capture && r == 1) {
            all_lose = 0; /* the no-removal draw comes first */
            continue;
        }
        uint8_t v = t->values[index_of(t, child.own, child.opp)];
        if (v && (capture || (v & 127) < r)) {
            if (v & LOSS_FLAG) return (uint8_t)r;
            continue; /* the opponent wins after this move */
        }
        if (loss_only) return 0;
        all_lose = 0;
    }
    return all_lose ? (uint8_t)(LOSS_FLAG | r) : 0;
}

/* Call visit(own, opp, index) for every entry of class (a, b), in index order. */
typedef int (*Visit)(Tables *t, uint32_t own, uint32_t opp, int64_t index, int r);

static int each_entry(Tables *t, int a, int b, int r, Visit visit, int64_t count_reps) {
    int changed = 0, free_count = COUNT - a;
    int64_t index = t->offset[a][b];
    for (int64_t ri = 0; ri < count_reps; ri++) {
        uint32_t rep = t->reps[a][ri];
        int free_points[COUNT], k = 0;
        for (int p = 0; p < COUNT; p++)
            if (!(rep >> p & 1)) free_points[k++] = p;
        uint32_t c = (1u << b) - 1;
        while (c < (1u << free_count)) {
            uint32_t opp = 0;
            for (uint32_t m = c; m; m &= m - 1) opp |= 1u << free_points[__builtin_ctz(m)];
            changed |= visit(t, rep, opp, index++, r);
            uint32_t u = c & -c, v = c + u;
            c = v + (((v ^ c) / u) >> 2);
        }
    }
    return changed;
}

static int first_pass(Tables *t, uint32_t own, uint32_t opp, int64_t index, int r) {
    t->values[index] = judge(t, own, opp, r, 0);
    return t->values[index] != 0;
}

/* From an entry decided at r - 1: decide each undecided position one un-move before it. */
static int spread(Tables *t, uint32_t own, uint32_t opp, int64_t index, int r) {
    uint8_t v = t->values[index];
    if (!v || (v & 127) != r - 1) return 0;
    int changed = 0, flying = popcount(opp) <= FLYING_MAX;
    uint32_t empty = FULL & ~(own | opp);
    for (uint32_t ts = opp; ts; ts &= ts - 1) {
        int target = __builtin_ctz(ts);
        uint32_t rest = opp & ~(1u << target);
        if (closes_mill(rest, target)) continue; /* that move removed a stone */
        for (uint32_t ss = flying ? empty : NEIGH[target] & empty; ss; ss &= ss - 1) {
            uint32_t before = rest | 1u << __builtin_ctz(ss);
            int64_t at = index_of(t, before, own);
            if (t->values[at]) continue;
            /* a move into a lost position wins; after a won one, all moves must lose */
            t->values[at] = v & LOSS_FLAG ? (uint8_t)r : judge(t, before, own, r, 1);
            changed |= t->values[at] != 0;
        }
    }
    return changed;
}

static void build_pair(Tables *t, int a, int b, int limit, const int32_t *rep_counts) {
    int classes[2][2] = {{a, b}, {b, a}}, count = a == b ? 1 : 2;
    for (int c = 0; c < count; c++) {
        int x = classes[c][0], y = classes[c][1];
        each_entry(t, x, y, 1, first_pass, rep_counts[x - MIN_STONES]);
    }
    for (int r = 2; r <= limit; r++) {
        int changed = 0;
        for (int c = 0; c < count; c++) {
            int x = classes[c][0], y = classes[c][1];
            changed |= each_entry(t, x, y, r, spread, rep_counts[x - MIN_STONES]);
        }
        if (!changed) break;
    }
}

/* Fill the values (zeroed) for the no-removal limit `limit` (1..127): smaller classes first. */
int morris_endgame_build(void *tables, int limit, const int32_t *rep_counts) {
    Tables *t = tables;
    if (limit < 1 || limit > 127) return 0;
    for (int total = 2 * MIN_STONES; total <= 2 * t->max_stones; total++)
        for (int a = MIN_STONES; 2 * a <= total; a++) {
            int b = total - a;
            if (b <= t->max_stones) build_pair(t, a, b, limit, rep_counts);
        }
    return 1;
}

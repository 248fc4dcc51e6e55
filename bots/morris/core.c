/* The Lasker Morris engine's search core in C: bots/morris/pysearch.py, line for line.
 *
 * Built on the user's machine by bots/morris/native.py (cc -O2 -shared) and loaded with
 * ctypes. Every table (neighbours, mills, Zobrist keys, evaluation weights) comes from Python,
 * so the two cores share their numbers; the tests compare their results on fixed positions.
 * The endgame tables' builder and probe are in endgame.c, compiled into the same library.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"

uint32_t NEIGH[COUNT];
uint32_t MILLS[16];
uint32_t RESTS[COUNT][2];
static uint32_t MP_TWO[48];
static int MP_POINT[48];
static uint64_t OWNK[3][256], OPPK[3][256], OWNHK[11], OPPHK[11], REMK[KEYED_REMAINING];
static uint64_t PARITY_KEY;

typedef struct {
    uint64_t key;
    int32_t score;
    int32_t move;
    int32_t depth;
    int32_t flag;
} Entry;

/* The endgame tables' probe (endgame.c): 0 unknown or drawn, else +-distance. */
typedef int (*Probe)(const void *tables, uint32_t own, uint32_t opp, int counter, int limit);
int morris_endgame_probe(const void *tables, uint32_t own, uint32_t opp, int counter, int limit);

typedef struct {
    int limit, repetition, contempt;
    int weights[2][TERMS];
    uint64_t mask;
    Entry *table;
    int history[25 * 24];
    int killers[MAX_PLY + 1][2];
    uint64_t *stack;
    int stack_len, stack_cap, root_index;
    long long nodes;
    double deadline;
    int stop;
    Pos root;
    const void *endgame;
} Engine;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void morris_tables(const uint32_t *neigh, const uint32_t *mills, const uint64_t *ownk,
                   const uint64_t *oppk, const uint64_t *ownhk, const uint64_t *opphk,
                   const uint64_t *remk, uint64_t parity_key) {
    int n = 0;
    memcpy(NEIGH, neigh, sizeof NEIGH);
    memcpy(MILLS, mills, sizeof MILLS);
    memcpy(OWNK, ownk, sizeof OWNK);
    memcpy(OPPK, oppk, sizeof OPPK);
    memcpy(OWNHK, ownhk, sizeof OWNHK);
    memcpy(OPPHK, opphk, sizeof OPPHK);
    memcpy(REMK, remk, sizeof REMK);
    PARITY_KEY = parity_key;
    for (int p = 0; p < COUNT; p++) {
        int found = 0;
        for (int m = 0; m < 16; m++)
            if (MILLS[m] >> p & 1) RESTS[p][found++] = MILLS[m] & ~(1u << p);
    }
    for (int m = 0; m < 16; m++)
        for (int p = 0; p < COUNT; p++)
            if (MILLS[m] >> p & 1) {
                MP_TWO[n] = MILLS[m] & ~(1u << p);
                MP_POINT[n++] = p;
            }
}

static int remaining(int counter, int limit) {
    if (!limit) return 0;
    int left = limit - counter;
    return left < KEYED_REMAINING - 1 ? left : KEYED_REMAINING - 1;
}

static uint64_t zobrist(const Pos *p, int limit) {
    return OWNK[0][p->own & 255] ^ OWNK[1][p->own >> 8 & 255] ^ OWNK[2][p->own >> 16] ^
           OPPK[0][p->opp & 255] ^ OPPK[1][p->opp >> 8 & 255] ^ OPPK[2][p->opp >> 16] ^
           OWNHK[p->own_hand] ^ OPPHK[p->opp_hand] ^ REMK[remaining(p->counter, limit)];
}

static uint64_t repetition_key(const Pos *p) {
    return (uint64_t)p->own | (uint64_t)p->opp << 24 | (uint64_t)p->own_hand << 48 |
           (uint64_t)p->opp_hand << 53;
}

/* -- the evaluation (bots/morris/evaluation.py) -------------------------------------------- */

static uint32_t closable(uint32_t own, uint32_t empty, int free_) {
    uint32_t targets = 0;
    for (int i = 0; i < 48; i++) {
        uint32_t two = MP_TWO[i];
        int point = MP_POINT[i];
        if ((own & two) == two && (empty >> point & 1))
            if (free_ || (NEIGH[point] & own & ~two)) targets |= 1u << point;
    }
    return targets;
}

static void lines(uint32_t own, uint32_t empty, int *mills, int *twos) {
    *mills = *twos = 0;
    for (int m = 0; m < 16; m++) {
        uint32_t mine = own & MILLS[m];
        if (mine == MILLS[m])
            (*mills)++;
        else if (popcount(mine) == 2 && (MILLS[m] & empty))
            (*twos)++;
    }
}

static void mobility(uint32_t own, uint32_t empty, int *moves, int *blocked) {
    *moves = *blocked = 0;
    for (int s = 0; s < COUNT; s++)
        if (own >> s & 1) {
            int free_ = popcount(NEIGH[s] & empty);
            *moves += free_;
            *blocked += !free_;
        }
}

int morris_features(uint32_t own, uint32_t opp, int own_hand, int opp_hand, int counter,
                    int limit, int *terms, int *fade) {
    uint32_t empty = FULL & ~(own | opp);
    int own_left = popcount(own) + own_hand, opp_left = popcount(opp) + opp_hand;
    int own_fly = own_left <= FLYING_MAX, opp_fly = opp_left <= FLYING_MAX;
    int own_mills, own_twos, opp_mills, opp_twos;
    int own_moves = 0, own_blocked = 0, opp_moves = 0, opp_blocked = 0;
    lines(own, empty, &own_mills, &own_twos);
    lines(opp, empty, &opp_mills, &opp_twos);
    if (!own_fly) mobility(own, empty, &own_moves, &own_blocked);
    if (!opp_fly) mobility(opp, empty, &opp_moves, &opp_blocked);
    int theirs = popcount(closable(opp, empty, opp_hand || opp_fly));
    int ours = popcount(closable(own, empty, own_hand || own_fly));
    terms[0] = own_left - opp_left;
    terms[1] = own_hand - opp_hand;
    terms[2] = own_mills - opp_mills;
    terms[3] = own_twos - opp_twos;
    terms[4] = own_moves - opp_moves;
    terms[5] = own_blocked - opp_blocked;
    terms[6] = theirs == 1;
    terms[7] = theirs >= 2;
    terms[8] = own_fly - opp_fly;
    terms[9] = ours >= 1;
    terms[10] = ours >= 2;
    if (limit) {
        int left = remaining(counter, limit);
        *fade = left < FADE ? left : FADE;
    } else {
        *fade = FADE;
    }
    return own_hand + opp_hand == 0;
}

static int evaluate(const Engine *e, const Pos *p) {
    int terms[TERMS], fade;
    int phase = morris_features(p->own, p->opp, p->own_hand, p->opp_hand, p->counter, e->limit,
                                terms, &fade);
    const int *row = e->weights[phase];
    long slow = 0, fast = 0;
    for (int i = 0; i < SLOW; i++) slow += (long)row[i] * terms[i];
    for (int i = SLOW; i < TERMS; i++) fast += (long)row[i] * terms[i];
    long score = slow * fade / FADE + fast;
    if (score > EVAL_LIMIT) score = EVAL_LIMIT;
    if (score < -EVAL_LIMIT) score = -EVAL_LIMIT;
    return (int)score;
}

/* -- the engine ---------------------------------------------------------------------------- */

void *morris_new(int limit, int repetition, int table_bits, const int *weights, int contempt) {
    Engine *e = calloc(1, sizeof(Engine));
    if (!e) return NULL;
    e->limit = limit;
    e->repetition = repetition;
    e->contempt = contempt;
    memcpy(e->weights, weights, sizeof e->weights);
    e->mask = ((uint64_t)1 << table_bits) - 1;
    e->table = calloc(e->mask + 1, sizeof(Entry));
    if (!e->table) {
        free(e);
        return NULL;
    }
    return e;
}

void morris_free(void *handle) {
    Engine *e = handle;
    if (!e) return;
    free(e->table);
    free(e->stack);
    free(e);
}

void morris_set_endgame(void *handle, const void *tables) { ((Engine *)handle)->endgame = tables; }

int morris_set_root(void *handle, uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                    int counter, const uint64_t *history, int count) {
    Engine *e = handle;
    Pos root = {own, opp, own_hand, opp_hand, counter};
    int cap = count + MAX_PLY + 8;
    if (cap > e->stack_cap) {
        uint64_t *grown = realloc(e->stack, (size_t)cap * sizeof(uint64_t));
        if (!grown) return 0;
        e->stack = grown;
        e->stack_cap = cap;
    }
    e->root = root;
    if (count) {
        memcpy(e->stack, history, (size_t)count * sizeof(uint64_t));
        e->stack_len = count;
    } else {
        e->stack[0] = repetition_key(&root);
        e->stack_len = 1;
    }
    e->root_index = e->stack_len - 1;
    return 1;
}

void morris_clear(void *handle) {
    Engine *e = handle;
    memset(e->table, 0, (e->mask + 1) * sizeof(Entry));
}

void morris_age(void *handle) {
    Engine *e = handle;
    for (int i = 0; i < 25 * 24; i++) e->history[i] /= 4;
}

static int to_table(int score, int ply) {
    if (score > WIN_BOUND) return score + ply;
    if (score < -WIN_BOUND) return score - ply;
    return score;
}

static int from_table(int score, int ply) {
    if (score > WIN_BOUND) return score - ply;
    if (score < -WIN_BOUND) return score + ply;
    return score;
}

static int removal_order(int remove, uint32_t opp, uint32_t empty) {
    int value = popcount(NEIGH[remove] & empty);
    for (int i = 0; i < 2; i++) {
        uint32_t rest = RESTS[remove][i];
        if (popcount(opp & rest) == 1 && popcount(empty & rest) == 1) value += 16;
    }
    return value;
}

static int tick(Engine *e) {
    e->nodes++;
    if (!(e->nodes & CHECK_EVERY) && now() >= e->deadline) e->stop = 1;
    return e->stop;
}

static int repeated(const Engine *e, uint64_t key, int counter) {
    if (!e->repetition) return 0;
    int seen = 0, last = e->stack_len - 2, stop = e->stack_len - 1 - counter;
    if (stop < -1) stop = -1;
    for (int index = last; index > stop; index -= 2) {
        if (e->stack[index] == key) {
            if (index >= e->root_index) return 1;
            if (++seen >= e->repetition - 1) return 1;
        }
    }
    return 0;
}

static int probe(const Engine *e, const Pos *p, int ply) {
    if (!e->endgame || p->own_hand || p->opp_hand) return 0;
    int found = morris_endgame_probe(e->endgame, p->own, p->opp, p->counter, e->limit);
    if (found > 0) return TABLE_WIN - ply - found;
    if (found < 0) return -TABLE_WIN + ply - found;
    return 0;
}

static int order(const Engine *e, const Pos *p, const int32_t *moves, int n, int hash_move,
                 int ply, int32_t *ranks, int32_t *sorted) {
    uint32_t empty = FULL & ~(p->own | p->opp);
    int opp_free = p->opp_hand || popcount(p->opp) + p->opp_hand <= FLYING_MAX;
    uint32_t threats = closable(p->opp, empty, opp_free);
    int first = e->killers[ply][0], second = e->killers[ply][1];
    for (int i = 0; i < n; i++) {
        int move = moves[i], source = move & 31, target = move >> 5 & 31, remove = move >> 10 & 31;
        int32_t rank;
        if (move == hash_move)
            rank = HASH_FIRST;
        else if (remove != NO_REMOVAL)
            rank = MILL_MOVE + removal_order(remove, p->opp, empty);
        else if (threats >> target & 1)
            rank = BLOCK + e->history[source * 24 + target];
        else if (move == first)
            rank = KILLER + 1;
        else if (move == second)
            rank = KILLER;
        else
            rank = e->history[source * 24 + target];
        /* insertion, stable: after every earlier move of the same rank */
        int j = i;
        while (j > 0 && ranks[j - 1] < rank) {
            ranks[j] = ranks[j - 1];
            sorted[j] = sorted[j - 1];
            j--;
        }
        ranks[j] = rank;
        sorted[j] = move;
    }
    return n;
}

static void reward(Engine *e, int move, int depth, int ply) {
    if ((move >> 10 & 31) != NO_REMOVAL) return;
    int slot = (move & 31) * 24 + (move >> 5 & 31);
    int value = e->history[slot] + depth * depth;
    e->history[slot] = value < HISTORY_CAP - 1 ? value : HISTORY_CAP - 1;
    if (e->killers[ply][0] != move) {
        e->killers[ply][1] = e->killers[ply][0];
        e->killers[ply][0] = move;
    }
}

static int quiesce(Engine *e, const Pos *p, int alpha, int beta, int ply, int qply) {
    if (!has_move(p)) return -(MATE - ply);
    int stand = evaluate(e, p);
    if (stand >= beta || qply >= QUIESCENCE_PLIES || ply >= MAX_PLY) return stand;
    if (stand > alpha) alpha = stand;
    int32_t moves[MAX_MOVES], ranks[MAX_MOVES], sorted[MAX_MOVES];
    int n = generate(p, 1, moves);
    order(e, p, moves, n, 0, ply, ranks, sorted);
    int best = stand;
    for (int i = 0; i < n; i++) {
        if (tick(e)) return 0;
        Pos child = play(p, sorted[i]);
        int score;
        if (popcount(child.own) + child.own_hand < MIN_STONES) {
            score = MATE - ply - 1;
        } else {
            int found = probe(e, &child, ply + 1);
            score = found ? -found : -quiesce(e, &child, -beta, -alpha, ply + 1, qply + 1);
            if (e->stop) return 0;
        }
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) break;
            }
        }
    }
    return best;
}

static int negamax(Engine *e, const Pos *p, int depth, int alpha, int beta, int ply) {
    if (tick(e)) return 0;
    int draw = ply & 1 ? e->contempt : -e->contempt;
    if (e->limit && p->counter >= e->limit) return draw;
    if (popcount(p->own) + p->own_hand < MIN_STONES) return -(MATE - ply);
    uint64_t key = repetition_key(p);
    if (repeated(e, key, p->counter)) return draw;
    int proven = probe(e, p, ply);
    if (proven) return proven;
    if (depth <= 0 || ply >= MAX_PLY) return quiesce(e, p, alpha, beta, ply, 0);
    uint64_t hash_key = zobrist(p, e->limit);
    if (e->contempt && (ply & 1)) hash_key ^= PARITY_KEY;
    Entry *entry = &e->table[hash_key & e->mask];
    int hash_move = 0;
    if (entry->key == hash_key) {
        hash_move = entry->move;
        if (entry->depth >= depth) {
            int stored = from_table(entry->score, ply);
            if (entry->flag == EXACT || (entry->flag == LOWER && stored >= beta) ||
                (entry->flag == UPPER && stored <= alpha))
                return stored;
        }
    }
    int32_t moves[MAX_MOVES], ranks[MAX_MOVES], sorted[MAX_MOVES];
    int n = generate(p, 0, moves);
    if (!n) return -(MATE - ply);
    order(e, p, moves, n, hash_move, ply, ranks, sorted);
    e->stack[e->stack_len++] = key;
    int original_alpha = alpha, best = -INFINITY_SCORE, best_move = 0;
    for (int index = 0; index < n; index++) {
        int move = sorted[index], score;
        Pos child = play(p, move);
        if (index == 0) {
            score = -negamax(e, &child, depth - 1, -beta, -alpha, ply + 1);
        } else {
            if (depth >= REDUCE_FROM_DEPTH && index >= REDUCE_AFTER && ranks[index] < KILLER) {
                score = -negamax(e, &child, depth - 2, -alpha - 1, -alpha, ply + 1);
                if (e->stop) break;
                if (score <= alpha) continue;
            }
            score = -negamax(e, &child, depth - 1, -alpha - 1, -alpha, ply + 1);
            if (!e->stop && alpha < score && score < beta)
                score = -negamax(e, &child, depth - 1, -beta, -alpha, ply + 1);
        }
        if (e->stop) break;
        if (score > best) {
            best = score, best_move = move;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) {
                    reward(e, move, depth, ply);
                    break;
                }
            }
        }
    }
    e->stack_len--;
    if (e->stop) return 0;
    entry->key = hash_key;
    entry->score = to_table(best, ply);
    entry->move = best_move;
    entry->depth = depth;
    entry->flag = best <= original_alpha ? UPPER : best >= beta ? LOWER : EXACT;
    return best;
}

/* out: score, best index, proven index (-1: none), aborted, nodes */
void morris_search_root(void *handle, const int32_t *moves, int n, int depth, int alpha, int beta,
                        double seconds, long long *out) {
    Engine *e = handle;
    e->nodes = 0;
    e->stop = 0;
    e->deadline = now() + seconds;
    int best_score = -INFINITY_SCORE, best = 0, proven = -1, low = alpha;
    for (int index = 0; index < n; index++) {
        Pos child = play(&e->root, moves[index]);
        int score;
        if (index == 0) {
            score = -negamax(e, &child, depth - 1, -beta, -low, 1);
        } else {
            score = -negamax(e, &child, depth - 1, -low - 1, -low, 1);
            if (!e->stop && low < score && score < beta)
                score = -negamax(e, &child, depth - 1, -beta, -low, 1);
        }
        if (e->stop) break;
        if (score > best_score) {
            best_score = score, best = index;
            if (score > low) {
                low = score;
                if (index) proven = index;
                if (low >= beta) break;
            }
        }
    }
    out[0] = best_score;
    out[1] = best;
    out[2] = proven;
    out[3] = e->stop;
    out[4] = e->nodes;
}

int morris_generate(uint32_t own, uint32_t opp, int own_hand, int opp_hand, int counter,
                    int32_t *moves) {
    Pos p = {own, opp, own_hand, opp_hand, counter};
    return generate(&p, 0, moves);
}

int morris_evaluate(void *handle, uint32_t own, uint32_t opp, int own_hand, int opp_hand,
                    int counter) {
    Pos p = {own, opp, own_hand, opp_hand, counter};
    return evaluate(handle, &p);
}

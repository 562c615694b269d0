/* Connect Four random playouts in plain C: the yardstick of benchmarks/loop_overhead.py.
 *
 * The rules of examples/connect_four/rules.py on the standard frame (6 rows, 7 columns,
 * four in a row), and simkit's seeds and streams (simkit/rng.py: game_seeds, seed_streams,
 * rand_below on SplitMix64), with a random strategy that draws from the seat's own stream
 * only when there is a choice, as the engine does. So it plays the very games the engine
 * plays under `--strategies random`, and its checksum line must match the engine's.
 *
 *     cc -O2 -o connect_four benchmarks/connect_four.c && ./connect_four GAMES SEED
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS 6
#define COLS 7
#define CONNECT 4

static const uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL;

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int rand_below(uint64_t *stream, int n) {
    *stream += GOLDEN;
    return (int)(mix64(*stream) % (uint64_t)n);
}

/* How many of seat's discs follow (r, c) in direction (dr, dc), not counting it. */
static inline int run_length(const int8_t *board, int r, int c, int dr, int dc, int seat) {
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < ROWS && c >= 0 && c < COLS
                           && board[r * COLS + c] == seat; r += dr, c += dc)
        n++;
    return n;
}

static inline int connects(const int8_t *board, int r, int c, int seat) {
    const int need = CONNECT - 1;
    return run_length(board, r, c, -1, 0, seat) >= need
        || run_length(board, r, c, 0, -1, seat) + run_length(board, r, c, 0, 1, seat) >= need
        || run_length(board, r, c, -1, -1, seat) + run_length(board, r, c, 1, 1, seat) >= need
        || run_length(board, r, c, -1, 1, seat) + run_length(board, r, c, 1, -1, seat) >= need;
}

/* One random game from its seed: returns the winning seat (-1 for a full frame). */
static int play(uint64_t seed, int *drops_out) {
    uint64_t streams[3];
    for (int k = 0; k < 3; k++)
        streams[k] = mix64(seed + (uint64_t)(k + 1) * GOLDEN);
    int8_t board[ROWS * COLS];
    int height[COLS] = {0};
    int moves[COLS];
    memset(board, -1, sizeof board);
    int seat = 0, drops = 0;
    for (;;) {
        int n = 0;
        for (int c = 0; c < COLS; c++)
            if (height[c] < ROWS)
                moves[n++] = c;
        int k = n > 1 ? rand_below(&streams[1 + seat], n) : 0;
        int c = moves[k], r = height[c];
        board[r * COLS + c] = (int8_t)seat;
        height[c] = r + 1;
        drops++;
        if (connects(board, r, c, seat)) {
            *drops_out = drops;
            return seat;
        }
        if (drops == ROWS * COLS) {
            *drops_out = drops;
            return -1;
        }
        seat = 1 - seat;
    }
}

int main(int argc, char **argv) {
    long games = argc > 1 ? atol(argv[1]) : 1000000;
    uint64_t master = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    long wins[2] = {0, 0}, full = 0, drops_total = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t z = mix64(master * GOLDEN + 0x632BE59BD9B4E019ULL);
    for (long i = 0; i < games; i++) {
        int drops;
        int winner = play(mix64(z + (uint64_t)(i + 1) * GOLDEN), &drops);
        if (winner < 0)
            full++;
        else
            wins[winner]++;
        drops_total += drops;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    printf("seconds %.6f\n", s);
    printf("checksum P1=%ld P2=%ld full=%ld drops=%ld\n", wins[0], wins[1], full, drops_total);
    return 0;
}

"""Seeds and random streams.

A run has one master seed. Game ``i`` gets its own 64-bit seed, ``game_seed(master, i)``,
which is recorded in its row and is all that is needed to replay it. From a game seed the
kernels derive independent streams: stream 0 is chance (shuffles, deals, dice) and stream
``1 + s`` belongs to the strategy in seat ``s``, so swapping a strategy never changes the deal.

A stream is a ``uint64[1]`` array (a view into the game's ``streams`` array) holding a
SplitMix64 state; SplitMix64 passes BigCrush and is a single add and mix per draw.
"""

import numpy as np

from simkit.jit import kernel

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
CHANCE = 0


@kernel
def mix64(z):
    """SplitMix64's finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def next_u64(stream):
    """Advance ``stream`` (uint64[1]) and return the next uint64."""
    stream[0] += GOLDEN
    return mix64(stream[0])


@kernel
def rand_below(stream, n):
    """A uniform integer in ``[0, n)`` from ``stream``; ``n`` >= 1. Modulo bias < 2**-50."""
    return np.int64(next_u64(stream) % np.uint64(n))


@kernel
def shuffle(stream, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = rand_below(stream, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@kernel
def seed_streams(seed, n_players, streams):
    """Fill ``streams`` (uint64[1 + n_players]) from a game's seed: chance, then each seat."""
    for k in range(1 + n_players):
        streams[k] = mix64(seed + np.uint64(k + 1) * GOLDEN)


def game_seeds(master_seed: int, start: int, count: int) -> np.ndarray:
    """The seeds (uint64[count]) of games ``start .. start+count-1`` of a run."""
    idx = np.arange(start, start + count, dtype=np.uint64)
    base = np.uint64(master_seed & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        z = mix64_np(base * GOLDEN + np.uint64(0x632BE59BD9B4E019))
        return mix64_np(z + (idx + np.uint64(1)) * GOLDEN)


def mix64_np(z: np.ndarray) -> np.ndarray:
    """``mix64`` on numpy arrays (vectorised, used outside kernels)."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))

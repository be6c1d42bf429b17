"""Random numbers inside kernels: xorshift64* in a uint64[1] state array.

A deal is a pure function of its seed: ``seed_state(seed)`` mixes a 64-bit seed
with splitmix64, then every draw advances the state.  Bounded draws use the
multiply-shift reduction (no integer division in the hot loop).
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel

U64_MULT = np.uint64(0x2545F4914F6CDD1D)


@lean_kernel
def reseed(state, seed):
    """Set an existing xorshift64* state (uint64[1]) from an integer seed (splitmix64
    mixing): ``seed_state`` without the allocation, for loops over many deals."""
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    state[0] = z if z != np.uint64(0) else np.uint64(1)


@kernel
def seed_state(seed):
    """A xorshift64* state (uint64[1]) from an integer seed (splitmix64 mixing)."""
    state = np.empty(1, dtype=np.uint64)
    reseed(state, seed)
    return state


@lean_kernel(inline="always")
def xorshift_step(x):
    """The next xorshift64* state after the uint64 ``x`` (a generator held in a scalar;
    ``next_random`` keeps it in an array)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


@lean_kernel(inline="always")
def below(x, n):
    """Uniform integer in [0, n) from the xorshift64* state ``x`` by multiply-shift (no
    division; n < 2**31)."""
    return (np.int64((x * U64_MULT) >> np.uint64(32)) * n) >> 32


@lean_kernel(inline="always")
def mix_step(h, value):
    """One step of a 64-bit multiply-xorshift hash: ``h`` (uint64) with ``value`` mixed in
    (the observation hashes of the expert)."""
    h = (h ^ np.uint64(value)) * np.uint64(0xBF58476D1CE4E5B9)
    return h ^ (h >> np.uint64(29))


@lean_kernel
def next_random(state):
    """Next 32-bit random value (as int64) of a xorshift64* state."""
    x = xorshift_step(state[0])
    state[0] = x
    return np.int64((x * U64_MULT) >> np.uint64(32))


@lean_kernel
def random_below(state, n):
    """Uniform integer in [0, n) by multiply-shift (no division; n < 2**31)."""
    return (next_random(state) * n) >> 32


@kernel
def seed_sequence_words(pool, out):
    """``SeedSequence.generate_state(len(out), np.uint64)`` from the sequence's ``pool``
    (uint32 array), into ``out`` (uint64): numpy's hash mixing (INIT_B, MULT_B,
    XSHIFT 16) word for word, 32-bit words combined little-endian -- the same seeds,
    ~50x faster than numpy's per-word loop."""
    h = np.uint32(0x8B51F9DD)
    mult = np.uint32(0x58F38DED)
    n_pool = pool.shape[0]
    k = 0
    for i in range(out.shape[0]):
        words = np.uint64(0)
        for half in range(2):
            v = np.uint32(pool[k % n_pool]) ^ h
            h = np.uint32(h * mult)
            v = np.uint32(v * h)
            v ^= v >> np.uint32(16)
            words |= np.uint64(v) << np.uint64(32 * half)
            k += 1
        out[i] = words


__all__ = [
    "U64_MULT",
    "below",
    "mix_step",
    "next_random",
    "random_below",
    "reseed",
    "seed_sequence_words",
    "seed_state",
    "xorshift_step",
]

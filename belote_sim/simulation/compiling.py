"""Compile before the work, and say so: the first run of a study compiles its kernels.

numba compiles a driver kernel the first time a process calls it with a new menu of
policies (``switchboard.policy_menu``) and keeps the machine code in its disk cache, so
only the first run of each kind of study pays: from ~20 s (greedy play) to ~90 s
(the full expert) on 2 cores.  ``prepare`` does that compile before a run's
clock starts: when the kernels are not cached it first says, in one line, what is being
compiled, that it happens once, and about how long it takes, so that nothing looks hung
and every printed rate and ETA leaves the compile out.  It says so through the logger
``belote_sim.compile`` (INFO): the command line shows it on standard error; a program
that imports belote_sim sees it if it configures logging.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterator

import numpy as np

from belote_sim.kernels.switchboard import (
    BID_POLICIES,
    BID_PREFIX,
    LEAN_PREFIX,
    PLAY_POLICIES,
    PLAY_PREFIX,
)
from belote_sim.simulation.study import Study

#: Seconds to compile the drivers of a study with the cheapest policies (``random``
#: play, ``fixed`` bidding) on the 2-core development machine, numba 0.68; each policy
#: of the menu adds its registry entry's ``compile_s`` (docs/benchmarks.md, "The first
#: five minutes").
BASE_COMPILE_S = 17.0

#: A prepare that took longer than this (seconds) was compiling, whatever was predicted.
COMPILED_AFTER_S = 2.0

#: Where ``prepare`` says that it compiles (INFO).
LOG = logging.getLogger("belote_sim.compile")


def compile_estimate(menu: np.ndarray) -> float:
    """About how many seconds compiling the kernels of a menu (``Study.menu``) takes on
    2 cores (wall): ``BASE_COMPILE_S`` and each policy's ``compile_s``
    (``lean_compile_s`` for a lean kernel)."""
    names = set(menu.dtype.names or ())
    return (
        BASE_COMPILE_S
        + sum(p.compile_s for p in PLAY_POLICIES if PLAY_PREFIX + p.name in names)
        + sum(p.lean_compile_s for p in PLAY_POLICIES if LEAN_PREFIX + p.name in names)
        + sum(p.compile_s for p in BID_POLICIES if BID_PREFIX + p.name in names)
    )


def kernels_text(menu: np.ndarray) -> str:
    """The policies whose kernels a menu compiles, for a reader: ``greedy, random play
    and threshold bidding``; ``expert (card network only)`` for the expert's lean
    kernel."""
    names = menu.dtype.names or ()
    play = [n[len(PLAY_PREFIX) :] for n in names if n.startswith(PLAY_PREFIX)]
    play += [
        f"{n[len(LEAN_PREFIX) :]} (card network only)" for n in names if n.startswith(LEAN_PREFIX)
    ]
    bid = [n[len(BID_PREFIX) :] for n in names if n.startswith(BID_PREFIX)]
    text = f"{', '.join(sorted(play))} play"
    return f"{text} and {', '.join(sorted(bid))} bidding" if bid else text


def rough_seconds(seconds: float) -> str:
    """``about 40 s`` / ``about 3 min``: a duration as a reader wants it ahead of time."""
    if seconds < 90:
        return f"about {max(10, math.floor(seconds / 10 + 0.5) * 10)} s"
    return f"about {math.floor(seconds / 60 + 0.5)} min"


@contextlib.contextmanager
def compile_notice(cached: bool | None, menu: np.ndarray) -> Iterator[None]:
    """Around the first call of a command's kernels: when ``cached`` is False (they
    are not in numba's disk cache, ``numba_internals.is_cached``) ``LOG`` first gets one
    line (what is compiled, once, about how long), then, when it is over, one line
    with the time it took; also that line when the block took long anyway."""
    if cached is False:
        LOG.info(
            f"compiling the kernels of {kernels_text(menu)} "
            f"({rough_seconds(compile_estimate(menu))} on 2 cores; once: later runs "
            "load them from the disk cache)..."
        )
    start = time.perf_counter()
    yield
    seconds = time.perf_counter() - start
    if cached is False or seconds > COMPILED_AFTER_S:
        LOG.info(f"compiled in {seconds:.0f} s")


def prepare(study: Study, keep_plays: bool = False) -> float:
    """Compile (or load from numba's disk cache) every kernel a run of ``study`` calls,
    and return the seconds it took, saying so (``compile_notice``) when they are not
    cached."""
    with compile_notice(study.kernels_cached(keep_plays), study.menu):
        seconds = study.prepare_kernels(keep_plays)
    return seconds


__all__ = [
    "BASE_COMPILE_S",
    "COMPILED_AFTER_S",
    "LOG",
    "compile_estimate",
    "compile_notice",
    "kernels_text",
    "prepare",
    "rough_seconds",
]

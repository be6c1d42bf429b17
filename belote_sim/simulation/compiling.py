"""Compile before the work, and say so: the first run of a study compiles its kernels.

numba compiles a driver kernel the first time a process calls it with a new menu of
policies (``switchboard.policy_menu``) and keeps the machine code in its disk cache, so
only the first run of each kind of study pays: from ~20 s (greedy play) to a few minutes
(the expert and the solver) on 2 cores.  ``prepare`` does that compile before a run's
clock starts: when the kernels are not cached it first says, in one line, what is being
compiled, that it happens once, and about how long it takes, so that nothing looks hung
and every printed rate and ETA leaves the compile out.  It says so through the logger
``belote_sim.compile`` (INFO): the command line shows it on standard error; a program
that imports belote_sim sees it if it configures logging.
"""

from __future__ import annotations

import logging

from belote_sim.kernels.switchboard import BID_POLICIES, PLAY_POLICIES
from belote_sim.simulation.study import Study

#: Seconds to compile the drivers of a 4-player study with the cheapest policies
#: (``random`` play, ``threshold`` bidding) on 2 cores, numba 0.68; each policy's entry
#: in the registry adds its own ``compile_s`` (``benchmarks/bench_compile.py``).
BASE_COMPILE_S = 25.0

#: A prepare that took longer than this (seconds) was compiling, whatever was predicted.
COMPILED_AFTER_S = 2.0

#: Where ``prepare`` says that it compiles (INFO).
LOG = logging.getLogger("belote_sim.compile")


def compile_estimate(study: Study) -> float:
    """About how many seconds compiling this study's kernels takes on 2 cores (wall)."""
    play = {s.name for s in study.play}
    bid = {s.name for s in study.bidding}
    return (
        BASE_COMPILE_S
        + sum(p.compile_s for p in PLAY_POLICIES if p.name in play)
        + sum(p.compile_s for p in BID_POLICIES if p.name in bid)
    )


def kernels_text(study: Study) -> str:
    """The policies whose kernels a study compiles, for a reader: ``greedy play and
    threshold bidding``."""
    play = ", ".join(sorted({s.name for s in study.play}))
    bid = ", ".join(sorted({s.name for s in study.bidding}))
    return f"{play} play and {bid} bidding"


def rough_seconds(seconds: float) -> str:
    """``about 40 s`` / ``about 3 min``: a duration as a reader wants it ahead of time."""
    if seconds < 90:
        return f"about {max(10, round(seconds / 10) * 10):.0f} s"
    return f"about {round(seconds / 60):.0f} min"


def prepare(study: Study, keep_plays: bool = False) -> float:
    """Compile (or load from numba's disk cache) every kernel a run of ``study`` calls,
    and return the seconds it took.  When the kernels are not cached, ``LOG`` first gets
    one line (what is compiled, once, about how long), then, when it is over, one line
    with the time it took."""
    cached = study.kernels_cached(keep_plays)
    if cached is False:
        LOG.info(
            f"compiling the kernels of {kernels_text(study)} "
            f"({rough_seconds(compile_estimate(study))} on 2 cores; once: later runs "
            "load them from the disk cache)..."
        )
    seconds = study.prepare_kernels(keep_plays)
    if cached is False or seconds > COMPILED_AFTER_S:
        LOG.info(f"compiled in {seconds:.0f} s")
    return seconds


__all__ = [
    "BASE_COMPILE_S",
    "COMPILED_AFTER_S",
    "LOG",
    "compile_estimate",
    "kernels_text",
    "prepare",
    "rough_seconds",
]

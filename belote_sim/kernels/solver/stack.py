"""The solver's preallocated buffers: the search stack, the move lists and the table.

The search (``search.alpha_beta``) is one loop over an explicit stack -- numba's on-disk
cache does not reload recursive functions safely -- so every node of the current
line of play is a row of ``ws`` (its *frame*) and a row of ``moves``; nothing is
allocated while searching.  All values are int64.

``ws[ply, F_*]`` (``MAX_PLY + 1`` rows of ``NUM_FIELDS``): row ``ply`` is the frame
of the node ``ply`` cards below the root (a node is one card to choose; 4 plies per
trick).  Points are card points (last-trick 10 included) counted for the
maximising team ``max_team``; "absolute" values are the points banked since the
root plus the points still to come, so a window passes down unchanged.

The last row, ``ws[MAX_PLY, G_*]``, holds what outlives one search: the table
generation, a node counter and the killer leads.

``moves[ply, :]`` (``MAX_PLY`` rows of 16): ``moves[ply, 0:8]`` the cards of the node
in the order they are tried, ``moves[ply, 8:16]`` their ordering scores (a node has
at most 8 legal cards).
"""

import numpy as np

#: Stack depth (rows of ``moves``; ``ws`` has one more, the row of ``G_*`` fields):
#: 32 cards + 1.
MAX_PLY = 34
#: Default transposition-table size (log2 of the number of entries).
TT_BITS = 16
#: Larger than any number of points (the "no value yet" of a min or max node).
INF = 1 << 20

# --- frame fields: ws[ply, F_*] ---------------------------------------------------------
#: Seat (0-3) that led the trick this node belongs to; the mover is ``(F_LEAD + F_N) & 3``.
F_LEAD = 0
#: Cards already played to that trick (0-3; 0: the mover leads).
F_N = 1
#: Suit led in the trick (0-3), -1 when ``F_N`` is 0.
F_LED = 2
#: Card (0-31) winning the trick so far, -1 when ``F_N`` is 0.
F_WC = 3
#: Position in the trick (0-2) of the winning card, -1 when ``F_N`` is 0.
F_WP = 4
#: Card points of the cards already in the trick.
F_TP = 5
#: Mask of the cards already in the trick.
F_TM = 6
#: Points banked by ``max_team`` from the root to this node (completed tricks).
F_ACC = 7
#: Points not banked yet: cards still held, the trick's cards and the last-trick 10.
F_REM = 8
#: Alpha: the lower end of the window (absolute points); raised as children return.
F_A = 9
#: Beta: the upper end of the window (absolute points); lowered as children return.
F_B = 10
#: Best value (absolute points) among the children searched so far (fail-soft).
F_BEST = 11
#: Card (0-31) that gave ``F_BEST``, -1 before the first child returns.
F_BC = 12
#: Index in ``moves[ply]`` of the next card to try.
F_I = 13
#: Number of cards in ``moves[ply]`` (ordered so far).
F_CNT = 14
#: Card (0-31) being searched now (removed from the mover's hand until it returns).
F_CARD = 15
#: First table entry of this node's bucket, -1 when the node stores nothing (not at a
#: trick boundary, or decided by the endgame or the cheap bounds).
F_SLOT = 16
#: Alpha after the cheap bounds and the table narrowed it: with ``F_B0``, tells whether
#: the value stored on exit is exact, a lower or an upper bound.
F_A0 = 17
#: Beta after the cheap bounds and the table narrowed it (see ``F_A0``).
F_B0 = 18
#: First table key word of the node (hands 0 and 1, ``table.tt_keys``).
F_K0 = 19
#: Second table key word of the node (hands 2 and 3).
F_K1 = 20
#: 1 while the child being searched is a null-window test (principal-variation search).
F_NULL = 21
#: 1 when the next child is the full-window re-search of a card whose test passed.
F_RS = 22
#: Mask of the cards not ordered yet (the table's card was tried first alone; the
#: others are ordered only if it does not cut); 0 when all are in ``moves[ply]``.
F_LAZY = 23
#: Number of frame fields (columns of ``ws``).
NUM_FIELDS = 24

# --- fields of the last row: ws[MAX_PLY, G_*] ------------------------------------------
#: Table generation (0-7), advanced by every ``solve_position``: entries of an older
#: generation may be replaced whatever their depth.
G_GEN = 1
#: Nodes visited, all searches together (diagnostics).
G_NODES = 2
#: ``ws[MAX_PLY, G_KILLER + k]``: killer lead for a leader holding k cards (card + 1,
#: 0 none): the last lead that cut off, tried first at the next such lead.
G_KILLER = 3


def new_tt(bits=TT_BITS):
    """An empty transposition table with ``2**bits`` entries (plain numpy)."""
    return np.zeros((1 << bits, 3), dtype=np.int64)


def new_workspace():
    """Search stack buffers ``(ws, moves)`` (plain numpy)."""
    return np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64), np.zeros(
        (MAX_PLY, 16), dtype=np.int64
    )


__all__ = [
    "F_A",
    "F_A0",
    "F_ACC",
    "F_B",
    "F_B0",
    "F_BC",
    "F_BEST",
    "F_CARD",
    "F_CNT",
    "F_I",
    "F_K0",
    "F_K1",
    "F_LAZY",
    "F_LEAD",
    "F_LED",
    "F_N",
    "F_NULL",
    "F_REM",
    "F_RS",
    "F_SLOT",
    "F_TM",
    "F_TP",
    "F_WC",
    "F_WP",
    "G_GEN",
    "G_KILLER",
    "G_NODES",
    "INF",
    "MAX_PLY",
    "NUM_FIELDS",
    "TT_BITS",
    "new_tt",
    "new_workspace",
]

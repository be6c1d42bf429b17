"""Exact double-dummy solver: card points of a Belote deal under perfect play.

The value of a position is the number of card points (last-trick 10 included) that
the *maximising* team (the taker's team) wins from here on -- the cards of the
trick in progress included -- when all four hands are visible and both teams play
perfectly under the play rules of docs/rules.md section 5 (``raise_over_partner`` and
``undertrump`` are kernel arguments).  Declarations and belote are fixed by the
deal and do not depend on the play, so they are not part of the search (the one
exception, ``belote_on_discard`` off, where a K/Q of a belote played as a discard
forfeits it, is ignored: the solver optimises card points only).

Algorithm
---------
* **Bitboards.**  A hand is a 32-bit mask (``card = 8 * suit + rank``); legal cards
  come from ``core.legal_mask``, trick winners from ``core.beats`` (``BEATS_MASK``:
  every card that beats a given one); bit counts are one ``popcnt``
  (``llvm.ctpop``), table lines are prefetched (``llvm.prefetch``).
* **Alpha-beta, fail-soft, iterative.**  The search (``search.alpha_beta``) is one loop
  over an explicit stack of frames (``ws[ply, field]``, ``moves[ply, :]``,
  preallocated, every field documented in ``stack``; no allocation in the loop):
  numba's on-disk cache does not reload recursive functions safely.  Values are
  absolute (points banked for the maximising team since the root plus the points
  still to come), so the window ``(alpha, beta)`` passes down unchanged; a seat of
  the maximising team raises ``alpha``, the other team lowers ``beta``.  Nodes are
  single cards (4 plies per trick).
* **Principal-variation search.**  The first card of a node is searched with the
  node's window, every other one with a null window around the best value so far
  and searched again with the full window only when it may be better.  The root is
  one full-window search (``solve_position`` mode 0); MTD(f) and bisection drivers
  made of null-window tests are kept as modes 1 and 2 (same values, slower here).
* **Transposition table.**  An ``(N, 3)`` int64 array of 2-way buckets (first way
  kept for the larger endgame of the current search, second way always replaced),
  probed at trick boundaries.  The key is the complete position -- the four hands in
  two words ``h0 | h1 << 32`` and ``h2 | h3 << 32`` -- plus the leader, strain,
  maximising team and both play options (low 10 bits of the data word), all
  checked, so there are no false hits: entries stay valid across searches, deals
  and rulesets and the table is never cleared.  Before packing, the zero-point cards
  of each suit (see below) are renumbered onto the lowest ranks (only their order
  matters; one ``PACK`` lookup per hand and suit), so transposed positions that
  differ only in which 7/8/9 went share an entry.  The data word holds a lower and
  an upper bound on the points still to come (bounds of several searches are
  intersected) and the best card (tried first).  Default size ``2**TT_BITS`` =
  65,536 entries (1.5 MB): a full deal stores some 10^4 positions, and a table much
  larger than the caches makes every probe wait on memory (``2**20`` entries was
  about 10% slower per node).
* **Move ordering** (``order_moves``, inlined).  Leader: sure tricks first (no
  opponent holds a higher card of the suit or can ruff it), most points first, then
  a low card to partner's sure winner (in every strain: after the sure tricks, NT
  searches some 13% fewer nodes than with it before them); then the rest, cheapest
  and lowest first, short suits first.
  Second and third hand: a winning card the next player cannot beat (most points
  first); with partner winning safely, throw points; else the cheapest card.
  Fourth hand: win or throw points on partner's trick, else the cheapest card.
  What depends only on the suit or the trick is worked out once per node.  When the
  table has a best card it is tried before the others are even scored; else a
  leader tries first the "killer" lead, the last card that cut off a lead with as
  many cards in hand (``ws[MAX_PLY, G_KILLER + cards]``, card + 1; kept across
  searches: ordering only).
* **Equivalent cards.**  Two cards of one suit in one hand are interchangeable when
  no other card still in play (other hands and the trick in progress) lies between
  them in that suit's order *and* their points are equal.  Card points of Belote
  differ for almost every rank, so this merges exactly the zero-point ranks at the
  bottom of a suit: 7 8 9 of a plain suit (the lowest three of the plain order) and
  7 8 of a trump suit (the lowest two of the trump order).  One card of each group
  is searched.
* **Dominated cards.**  More generally, a run of the mover's cards of one suit with
  no card of another hand between them in the suit's order have the same power for
  the rest of the deal once the current trick is over (its cards leave with it);
  those of them with the same effect on the current trick (all beat the card now
  winning, or none does) are interchangeable in it too: swapping two of them maps
  every line of play to one with the same trick winners, and only the two cards'
  points trade places.  So when the team that wins the current trick is known
  whichever of them is played (nobody still to play on the other side can beat the
  card that will be winning: the next player by his legal cards, later ones by
  their led-suit cards or else their trumps), the most points go on the mover's own
  trick or the least on the opponents' -- never worse for the mover's team,
  whoever wins the trick where the other card falls later -- and only that card is
  searched (``reduce_dominated``; every seat, the leader included).  This more
  than halves the tree.
* **Cheap bounds** (at trick boundaries, before the table probe, which is only made
  when they do not cut; the table slot is prefetched first so that its cache line
  loads while they are computed):
  ``[acc, acc + rem]`` (points banked for the maximising team, points unbanked);
  in a suit contract the top trumps held by one team, whose points that team is
  sure to bank (``_sure_trumps``); the leader's "quick points": his runs of top
  cards in each suit that win a trick each -- in a suit contract a side suit only
  while every opponent with trumps still follows -- with the cheapest cards the
  others must follow with, then one low lead to a card of partner's above both
  opponents' cards that they cannot ruff (``_quick_points``).  Both work on suit
  bytes renumbered in strength order (``STRENGTH_BYTE``), where a run of top cards
  is the bits above the other side's highest one (``ABOVE``) and its points one
  lookup (``SUM_POINTS``).  A node whose bounds fall outside the window is cut at once.
* **No calls in the hot loop.**  The helpers of a node (``reduce_equivalent``,
  ``reduce_dominated``, ``_quick_points``, ``tt_keys``, ``order_moves``) are
  inlined by numba (``inline="always"``), and the table lookup is written out in
  ``alpha_beta``: a call that passes the table would take a reference to it (two
  atomic operations per probe).  ``two_tricks`` stays a call (inlining it did not
  help).
* **Endgame.**  The last trick is played out directly, the last two by a
  fail-soft alpha-beta over the at most 16 ways to play the first of them, with the
  node's window (``two_tricks``).

Modules
-------
``stack``        the search stack, move lists and table buffers (every frame field)
``suit_tables``  lookup tables on suit bytes (strength order, points, beating cards)
``moves``        equivalent and dominated cards, move ordering
``bounds``       cheap bounds (sure trumps, quick points), the two-trick endgame
``table``        transposition-table keys, slots and entry layout
``search``       ``alpha_beta`` and its drivers (``solve_position``, ``dd_card_values``,
                 ``dd_best_card``, ``solve_batch``, ``random_positions``)
``pimc``         inferred voids, uniform consistent deals, PIMC scores and card

The brute-force reference search the tests compare against is in
``tests/solver_bruteforce.py``.
"""

from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.solver.pimc import (
    infer_forbidden,
    infer_forbidden_from,
    pimc_best_card,
    pimc_deals,
    pimc_scores,
    pimc_values,
    sample_deals,
)
from belote_sim.kernels.solver.search import (
    dd_best_card,
    dd_card_values,
    legal_of_position,
    random_positions,
    remaining_points,
    solve_batch,
    solve_position,
)
from belote_sim.kernels.solver.stack import INF, MAX_PLY, NUM_FIELDS, TT_BITS, new_tt, new_workspace

__all__ = [
    "INF",
    "MAX_PLY",
    "NUM_FIELDS",
    "TT_BITS",
    "dd_best_card",
    "dd_card_values",
    "infer_forbidden",
    "infer_forbidden_from",
    "legal_of_position",
    "lowest_card",
    "new_tt",
    "new_workspace",
    "pimc_best_card",
    "pimc_deals",
    "pimc_scores",
    "pimc_values",
    "popcount",
    "random_positions",
    "remaining_points",
    "sample_deals",
    "solve_batch",
    "solve_position",
]

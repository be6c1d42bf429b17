"""The ``atlas_auction`` bidding policy: the atlas bidder that listens to the auction.

The ``atlas`` policy (``bidding.atlas_bid_call``) values each strain from its own five
cards as if the other 27 were random; what partner and the opponents have said changes
nothing.  ``atlas_auction`` starts from the atlas's call and departs from it where a
table learned by self-play (``simulation.auction_table``) says another call scores
more *in this auction situation*: the expected gain, in net MP of the caller's team
per deal, of each of four actions over the atlas's own call,

- ``ACT_PASS``: pass;
- ``ACT_BID``: bid the strain above the current one with the best atlas value (the
  strain the atlas would bid if it bid at all; over a partner's bid too: a raise);
- ``ACT_DOUBLE``: double the opponents' undoubled contract;
- ``ACT_REDOUBLE``: redouble the team's doubled contract.

The gains are indexed by the *auction situation* (``auction_key``): the caller's
position, who holds the contract (nobody, the caller's team, the opponents) and at
which doubling level, the kind of the strain held (suit, NT, AT), the kind of the best
strain above it and whether partner or an opponent has bid that strain before, and the
atlas values (net MP x1) of that best strain and of the strain held, in bins.  Every
feature is suit-symmetric: a physical suit enters only as "the suit partner bid".
The table was measured (``kernels.auction_samples``) with four ``atlas`` players:
in each situation, the mean over many deals of the team's score after the action
minus its score after the atlas's call, the same deal played both ways; an action
enters the table only where its gain is significant (``auction_table.fit_gains``), so
an unmeasured situation keeps the atlas's call.  The french two rounds and the games
where every player is alone are bid as the ``atlas`` policy bids them.

Parameters (kernel-only, for the table's own measurement; zero for users):
``[FORCE_CALL]`` = t + 1 makes the seat at call t take action ``[FORCE_ACTION]``
whatever the table says (0: no forced call).

``atlas`` = the bidding tables (``switchboard``): ``atlas[0:2]`` the hand atlas,
``atlas[GAINS]`` the gains table (``NUM_KEYS``, ``NUM_ACTIONS``) float64; a table
with fewer rows than ``NUM_KEYS`` (the tiny one of studies without this policy)
makes the policy bid exactly as ``atlas``.
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bidding import (
    A_NET1,
    CALL_DOUBLE,
    CALL_PASS,
    CALL_REDOUBLE,
    STRAIN_CALLS,
    atlas_auction_call,
    atlas_best_strain,
    atlas_bid_call,
    atlas_value,
)
from belote_sim.kernels.records import BID_AUCTION, HEARD_BITS
from belote_sim.kernels.tables import STRAIN_AT, STRAIN_NT

ACT_PASS, ACT_BID, ACT_DOUBLE, ACT_REDOUBLE = range(4)
NUM_ACTIONS = 4
#: Index of the gains table in the bidding tables tuple.
GAINS = 6
FORCE_CALL, FORCE_ACTION = range(2)

#: Bin edges (net MP x1 from the atlas) of the best strain's value and the held one's:
#: fine near 0, where the atlas's own decisions fall.
BEST_EDGES = np.array([-9.0, -6.0, -4.0, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 4.0, 6.0, 9.0])
HELD_EDGES = np.array([-9.0, -6.0, -3.0, 0.0, 3.0, 6.0])
N_BEST_BINS = BEST_EDGES.shape[0] + 1
N_HELD_BINS = HELD_EDGES.shape[0] + 1
#: Who holds the contract and its level: 0 nobody; 1 + level the caller's team;
#: 4 + level the opponents (level 0, 1 doubled, 2 redoubled or more).
N_HOLDERS = 7
#: Kind of a strain: 0 suit, 1 NT, 2 AT; of the best strain also 3 none (AT is held).
N_HELD_KINDS = 3
N_BEST_KINDS = 4
#: Whether the best strain was bid before: 0 no, 1 by partner (or the caller), 2 by an
#: opponent.
N_HEARD = 3
NUM_KEYS = 4 * N_HOLDERS * N_HELD_KINDS * N_BEST_KINDS * N_HEARD * N_BEST_BINS * N_HELD_BINS


@kernel(inline="always")
def bin_of(edges, value):
    """Index of the bin of ``value`` (``edges`` ascending; bin k is edges[k-1] <= value <
    edges[k])."""
    k = 0
    while k < edges.shape[0] and value >= edges[k]:
        k += 1
    return k


@kernel(inline="always")
def kind_of_strain(strain):
    """0 suit, 1 NT, 2 AT."""
    if strain == STRAIN_NT:
        return 1
    if strain == STRAIN_AT:
        return 2
    return 0


@kernel
def auction_view(turn, atlas):
    """What the atlas says at a turn of the auction: ``(best, best_value,
    held_value)``, the best strain above the current one and its atlas net MP x1
    (``bidding.atlas_best_strain``) and the net MP x1 of the strain held (0 when none)."""
    best, best_value = atlas_best_strain(atlas, turn)
    held_value = 0.0
    if turn.current >= 0:
        held_value = atlas_value(atlas, turn.cards, turn.current, turn.seat, turn.dealer, A_NET1)
    return best, best_value, held_value


@kernel
def situation_key(turn, best, best_value, held_value):
    """The gains table's row of a turn of the auction (module docstring), from its
    ``auction_view``."""
    seat = turn.seat
    current = turn.current
    holder = 0
    held_kind = 0
    held_bin = 0
    if current >= 0:
        level = min(turn.level, 2)
        holder = 1 + level if (turn.bidder & 1) == (seat & 1) else 4 + level
        held_kind = kind_of_strain(current)
        held_bin = bin_of(HELD_EDGES, held_value)
    best_kind = 3
    heard = 0
    best_bin = 0
    if best >= 0:
        best_kind = kind_of_strain(best)
        best_bin = bin_of(BEST_EDGES, best_value)
        for other in range(4):
            if (turn.heard >> (HEARD_BITS * other + best)) & 1:
                if (other & 1) == (seat & 1):
                    heard = 1
                elif heard == 0:
                    heard = 2
    position = (seat - turn.dealer - 1) & 3
    key = position
    key = key * N_HOLDERS + holder
    key = key * N_HELD_KINDS + held_kind
    key = key * N_BEST_KINDS + best_kind
    key = key * N_HEARD + heard
    key = key * N_BEST_BINS + best_bin
    key = key * N_HELD_BINS + held_bin
    return key


@kernel
def auction_key(turn, atlas):
    """The auction situation of a turn of the auction (module docstring):
    ``(key, best, best_value)``: the gains table's row, the best strain above the
    current one by atlas value (-1 when AT is held) and its net MP x1."""
    best, best_value, held_value = auction_view(turn, atlas)
    return situation_key(turn, best, best_value, held_value), best, best_value


@kernel(inline="always")
def action_legal(turn, action, best):
    """Whether an action (``ACT_*``) is a legal call at this turn of the auction."""
    current = turn.current
    team_holds = current >= 0 and (turn.bidder & 1) == (turn.seat & 1)
    if action == ACT_PASS:
        return True
    if action == ACT_BID:
        return best >= 0
    if action == ACT_DOUBLE:
        return current >= 0 and not team_holds and turn.level == 0
    return team_holds and turn.level == 1


@kernel(inline="always")
def action_call(action, best):
    """``(call, strain)`` of an action (``best``: the strain of ``ACT_BID``)."""
    if action == ACT_BID:
        return STRAIN_CALLS[best], best
    if action == ACT_DOUBLE:
        return CALL_DOUBLE, -1
    if action == ACT_REDOUBLE:
        return CALL_REDOUBLE, -1
    return CALL_PASS, -1


@kernel(inline="always")
def action_of_call(call):
    """The ``ACT_*`` of an atlas call (a strain bid is ``ACT_BID``)."""
    if call == CALL_PASS:
        return ACT_PASS
    if call == CALL_DOUBLE:
        return ACT_DOUBLE
    if call == CALL_REDOUBLE:
        return ACT_REDOUBLE
    return ACT_BID


@kernel(inline="always")
def listens(turn):
    """Whether ``atlas_auction`` departs from the atlas at this turn: the 4-player
    auction, not a dealer who must take."""
    return turn.kind == BID_AUCTION and turn.players == 4 and not turn.must_bid


@kernel
def auction_atlas_call(params, turn, rules, atlas):
    """The ``atlas_auction`` policy's call (module docstring): ``(call, strain)``."""
    if not listens(turn):
        return atlas_bid_call(params, turn, rules, atlas)
    best, best_value, held_value = auction_view(turn, atlas)
    call, strain = atlas_auction_call(atlas, turn, best, best_value, held_value)
    gains = atlas[GAINS]
    forced = params[FORCE_CALL] > 0 and turn.n_calls == params[FORCE_CALL] - 1
    if forced:
        action = np.int64(params[FORCE_ACTION])
        if not action_legal(turn, action, best):
            return call, strain
        return action_call(action, best)
    if gains.shape[0] < NUM_KEYS:
        return call, strain
    key = situation_key(turn, best, best_value, held_value)
    action = -1
    best_gain = 0.0
    for a in range(NUM_ACTIONS):
        gain = gains[key, a]
        if gain > best_gain and action_legal(turn, a, best):
            action = a
            best_gain = gain
    if action < 0:
        return call, strain
    return action_call(action, best)


__all__ = [
    "ACT_BID",
    "ACT_DOUBLE",
    "ACT_PASS",
    "ACT_REDOUBLE",
    "BEST_EDGES",
    "FORCE_ACTION",
    "FORCE_CALL",
    "GAINS",
    "HELD_EDGES",
    "NUM_ACTIONS",
    "NUM_KEYS",
    "action_call",
    "action_legal",
    "action_of_call",
    "auction_atlas_call",
    "auction_key",
    "auction_view",
    "bin_of",
    "kind_of_strain",
    "listens",
    "situation_key",
]

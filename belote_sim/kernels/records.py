"""What a deal is and what became of it, and what a policy is shown when it decides.

``DEAL`` is the record of one deal (a numpy structured dtype; numba reads and writes
its fields by name).  The caller fills the deal -- the dealt hands, the contract, who
leads, the recorded cards to replay first -- and ``play.play_deal`` fills the rest:
the cards in playing order, the trick winners, announced belotes, declarations,
points and scores.  One record serves every game: the 4-player game, where the
per-side fields are indexed by team (``seat & 1``), and the games where every player
is alone (2 and 3 players, open belot), where they are indexed by player.

``Turn`` is what a play policy is shown at its decision (plus the ``DEAL`` record,
from which a policy takes only what its seat may see: its own cards, the cards
played, the contract, what was announced) and ``BidTurn`` what a bidding policy is
shown at its turn in the auction.  Both are named tuples of scalars: built per
decision in registers, they cost nothing when the policy is inlined.

Units: card points (the cards won in tricks, last-trick 10 included), raw points (card
points plus scored declarations and belote), match points (MP: raw points / 10
rounded, or French points under french scoring).
"""

from collections import namedtuple

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.declarations import NUM_DECL_FIELDS
from belote_sim.kernels.tables import RANK_K, RANK_Q

#: Most tricks in a deal (open belot: 32 cards between 2 players).
MAX_TRICKS = 16

DEAL = np.dtype(
    [
        # --- the deal, set by the caller ------------------------------------------
        ("leader", np.int64),  # seat that leads the first trick (dealer + 1)
        ("strain", np.int64),  # 0..3 suits C D H S, 4 NT, 5 AT
        ("taker", np.int64),  # the taker's seat
        ("doubling", np.int64),  # 0 none, 1 doubled, 2 redoubled, 3 third double
        ("announce", np.int64),  # bit s set: seat s announces its belotes
        ("hands", np.int64, (4,)),  # hands as dealt (card masks), one per seat
        # open belot's table: player, pile, [face-down, face-up] card (-1: none)
        ("table", np.int64, (2, 4, 2)),
        ("n_given", np.int64),  # cards of ``cards`` to replay before the policies play
        ("cards", np.int64, (32,)),  # in: recorded cards; out: cards in playing order
        # --- the play, set by play_deal -------------------------------------------
        ("n_played", np.int64),  # cards legally played
        ("duty", np.int64),  # core.DUTY_* broken by card n_played (0: none)
        ("next_legal", np.int64),  # legal cards of the next decision (0: deal over)
        ("failed_seat", np.int64),  # seat whose policy gave no legal card (-1: none)
        ("winners", np.int64, (MAX_TRICKS,)),  # seat that won each complete trick
        ("belote_suits", np.int64, (4,)),  # per seat: suits of its announced belotes
        # per seat: declarations.hand_declarations as held at the first card
        ("declarations", np.int64, (4, NUM_DECL_FIELDS)),
        # per seat: the cards of its declared runs and carrés (shown with its first card)
        ("declared_cards", np.int64, (4,)),
        # --- per side (team or player): play and score ----------------------------
        ("tricks", np.int64, (4,)),  # tricks won
        ("card_points", np.int64, (4,)),  # complete tricks, last-trick 10 included
        ("belote_points", np.int64, (4,)),
        ("decl_points", np.int64, (4,)),  # scored runs and carrés
        ("decl_scored", np.int64),  # which sides score their runs / carrés (bits)
        ("raw", np.int64, (4,)),  # raw points
        ("mp", np.int64, (4,)),  # MP (French points) added to the score now
        ("held", np.int64, (4,)),  # MP held as hanging points
        ("outcome", np.int64),  # tables.OUTCOME_* from the taker's side
        ("valat", np.int64),  # side that won every trick (-1: none)
    ],
    align=True,
)

#: A play decision: ``seat`` to play at position ``pos`` (0 = the lead) of the trick
#: led by ``leader``; the trick state ``led_suit``, ``win_card``, ``win_pos`` (see
#: ``core``; ``win_pos`` is ``core.NO_PARTNER`` when every player is alone);
#: ``hand``: the cards the player may play from (his hand and, in open belot, his
#: face-up table cards); ``legal``: the legal ones; ``played``: the cards no other
#: player can hold any more (played, and the 7s and 8s outside a 24-card deck);
#: ``n_played``: cards played so far in the deal (``DEAL.cards[:n_played]``);
#: ``players``: 2, 3 or 4.
Turn = namedtuple(
    "Turn",
    [
        "seat",
        "pos",
        "leader",
        "led_suit",
        "win_card",
        "win_pos",
        "hand",
        "legal",
        "played",
        "n_played",
        "players",
    ],
)

#: Kinds of bidding turn (``BidTurn.kind``): the auction of section 4.1, the two
#: french rounds of 4.2, take-or-pass of 4.3.
BID_AUCTION, BID_FRENCH_ROUND1, BID_FRENCH_ROUND2, BID_TAKE_OR_PASS = range(4)

#: A bidding turn: ``seat`` calls; ``cards`` the cards it sees (its five bidding cards;
#: every card of its hand when all cards are dealt first); ``scores`` their six strain
#: scores packed (``bidding.SCORE_PACKED``: strain s in bits 10s..10s+9); ``current``
#: the strain bid so far (-1 none), by ``bidder``, doubled ``level`` times; ``n_calls``
#: calls so far; ``must_bid``: the dealer must take (``dealer_must_take``, three
#: passes); ``turned``: the french turned card (-1 none); ``suit_order``: a per-deal
#: random order of the suits (``suit_symmetry.SUIT_PERMS`` row) in which a policy
#: visits suits whose choice is not ranked (the french second round), so that a tie
#: between equally good suits never falls by suit index; ``heard``: the strains each
#: seat has bid so far (seat s bid strain x: bit 6s + x).
#: Bits of one seat's strains in ``BidTurn.heard``.
HEARD_BITS = 6

BidTurn = namedtuple(
    "BidTurn",
    [
        "kind",
        "seat",
        "dealer",
        "players",
        "cards",
        "scores",
        "current",
        "bidder",
        "level",
        "n_calls",
        "must_bid",
        "turned",
        "suit_order",
        "heard",
    ],
)


@lean_kernel
def announced_cards(deal, n_played, played, viewer, out, players=4):
    """What the player at ``viewer`` has seen announced and is still in each other hand
    after ``n_played`` cards (``played``: their mask): ``out[s]`` (4,) the cards of
    seat s's runs and carrés (``deal.declared_cards``, shown once s has played its
    first card) and the other card of each belote s announced; 0 for the viewer.
    ``players``: 4, or 2 or 3 in the games where every player is alone."""
    for s in range(4):
        known = 0
        if s != viewer:
            first = s - deal.leader  # cards played before s's first card
            if first < 0:
                first += players
            if n_played > first:
                known = deal.declared_cards[s]
            suits = deal.belote_suits[s]
            for suit in range(4):
                if (suits >> suit) & 1:
                    known |= (1 << (8 * suit + RANK_K)) | (1 << (8 * suit + RANK_Q))
            known &= deal.hands[s] & ~played
        out[s] = known


@kernel
def deal_record():
    """A ``DEAL`` record array of length 1 for kernels (``[0]`` is the record): zeros,
    no table cards, no failed seat.  A kernel of its own so that a parallel loop can
    call it (numba's parallel passes do not make record arrays themselves)."""
    deals = np.zeros(1, dtype=DEAL)
    deal = deals[0]
    deal.failed_seat = -1
    for player in range(2):
        for pile in range(4):
            deal.table[player, pile, 0] = -1
            deal.table[player, pile, 1] = -1
    return deals


@kernel
def keep_alive(deals):
    """Nothing: a kernel that makes its own record array (``deals = deal_record()``)
    and works on ``deal = deals[0]`` calls this after its last use of ``deal``.  numba
    frees an array after the last use of its own variable, and a record is a bare
    pointer into the array's data that does not hold it: without a later use of
    ``deals``, ``deal`` would point into freed memory (writes to it corrupt the heap;
    ``tests/test_records.py``)."""
    return deals.shape[0]


def new_deal() -> np.ndarray:
    """A zeroed ``DEAL`` record array of length 1 with no table cards (``[0]`` is the
    record kernels take)."""
    deal = np.zeros(1, dtype=DEAL)
    deal["table"] = -1
    deal["failed_seat"] = -1
    return deal


__all__ = [
    "BID_AUCTION",
    "BID_FRENCH_ROUND1",
    "BID_FRENCH_ROUND2",
    "BID_TAKE_OR_PASS",
    "DEAL",
    "HEARD_BITS",
    "MAX_TRICKS",
    "BidTurn",
    "Turn",
    "announced_cards",
    "deal_record",
    "keep_alive",
    "new_deal",
]

"""Legal moves (docs/rules.md section 5) and trick winners.

The state of a trick in progress is four scalars: ``led_suit``, ``n_played``, the
``win_card`` that would win if the trick ended now and ``win_pos``, its position
(0 = leader) in the trick.  The player to move is at position ``n_played``; his
partner is at ``n_played - 2``.  In the 2- and 3-player games (docs/rules.md section 11)
every player is alone: callers pass ``win_pos = NO_PARTNER``, so the "partner is
winning" exemptions never apply -- ``win_pos`` serves no other purpose here.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.tables import (
    HIGHER_TRUMP_BYTE,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    STRAIN_AT,
    STRAIN_NT,
    WIN_KEY,
)

# Codes of the duty an illegal card broke (docs/rules.md 14.16); 0 = legal.
(
    DUTY_NONE,
    DUTY_NOT_IN_HAND,
    DUTY_FOLLOW_SUIT,
    DUTY_RAISE,
    DUTY_TRUMP,
    DUTY_OVERTRUMP,
    DUTY_UNDERTRUMP,
) = range(7)
DUTY_NAMES = ("", "not_in_hand", "follow_suit", "raise", "trump", "overtrump", "undertrump")

#: ``win_pos`` for games without partners: never the partner's position (n_played - 2).
NO_PARTNER = -1


@kernel
def is_trump(card, strain):
    """Whether ``card`` is a trump in a suit contract (never in NT; AT is handled apart)."""
    return strain < STRAIN_NT and (card >> 3) == strain


@kernel
def beats(card, win_card, led_suit, strain):
    """Whether ``card`` beats the current winning card of a trick led in ``led_suit``."""
    suit = card >> 3
    key = WIN_KEY[strain, card]
    if suit != led_suit and key < 16:
        return False  # neither trump nor led suit: cannot win
    return key > WIN_KEY[strain, win_card]


@lean_kernel
def legal_mask(hand, led_suit, n_played, win_card, win_pos, strain, rules):
    """Mask of the cards the player to move may play (docs/rules.md section 5).

    Parameters are the player's hand (uint32 mask), the trick state (see module
    docstring; ignored when ``n_played == 0``), the strain code and the rules array
    (its play options ``raise_over_partner`` and ``undertrump``).  Returns a
    uint32-valued int mask, never empty for a non-empty hand.
    """
    if n_played == 0:
        return hand
    shift = 8 * led_suit
    follow = hand & (0xFF << shift)
    partner_winning = n_played >= 2 and win_pos == n_played - 2
    if strain == STRAIN_AT or led_suit == strain:
        # Trump led (every suit is trump in AT): follow, and raise over the best card.
        if follow == 0:
            return hand
        if partner_winning and not rules[R_RAISE_OVER_PARTNER]:
            return follow
        higher = follow & (HIGHER_TRUMP_BYTE[win_card & 7] << shift)
        return higher if higher else follow
    if follow:
        return follow
    if strain == STRAIN_NT:
        return hand
    trump_shift = 8 * strain
    trumps = hand & (0xFF << trump_shift)
    if trumps == 0 or partner_winning:
        return hand
    if (win_card >> 3) == strain:
        # An opponent's trump is winning: overtrump if possible.
        higher = trumps & (HIGHER_TRUMP_BYTE[win_card & 7] << trump_shift)
        if higher:
            return higher
        return trumps if rules[R_UNDERTRUMP] else hand
    return trumps


@lean_kernel
def broken_duty(hand, card, led_suit, n_played, win_card, win_pos, strain, rules):
    """Which duty playing ``card`` breaks (a ``DUTY_*`` code, 0 if the card is legal)."""
    bit = 1 << card
    if hand & bit == 0:
        return DUTY_NOT_IN_HAND
    legal = legal_mask(hand, led_suit, n_played, win_card, win_pos, strain, rules)
    if legal & bit:
        return DUTY_NONE
    if hand & (0xFF << (8 * led_suit)):
        return DUTY_FOLLOW_SUIT if (card >> 3) != led_suit else DUTY_RAISE
    # Void in a plain led suit of a suit contract, and the card was refused.
    trump_shift = 8 * strain
    trumps = hand & (0xFF << trump_shift)
    if (win_card >> 3) == strain:
        if trumps & (HIGHER_TRUMP_BYTE[win_card & 7] << trump_shift):
            return DUTY_OVERTRUMP
        return DUTY_UNDERTRUMP
    return DUTY_TRUMP


@kernel(inline="always")
def add_to_trick(card, pos, led_suit, win_card, win_pos, strain):
    """``(led_suit, win_card, win_pos)`` after ``card`` is played at position ``pos``
    (0 = the lead) of a trick: the one home of the trick-winner update."""
    if pos == 0:
        return card >> 3, card, 0
    if beats(card, win_card, led_suit, strain):
        return led_suit, card, pos
    return led_suit, win_card, win_pos


@lean_kernel
def trick_state(trick, n_played, strain):
    """(led_suit, win_card, win_pos) of the first ``n_played`` cards of ``trick``."""
    led_suit, win_card, win_pos = -1, -1, -1
    for pos in range(n_played):
        led_suit, win_card, win_pos = add_to_trick(
            trick[pos], pos, led_suit, win_card, win_pos, strain
        )
    return led_suit, win_card, win_pos


@kernel
def advance_trick(card, n_played, led_suit, win_card, win_pos, leader, strain):
    """Trick state after ``card`` is played at position ``n_played`` (4 players).

    Returns ``(n_played, led_suit, win_card, win_pos, leader)`` for the next card: after
    the fourth card the trick is over, the winner leads and the state is reset.
    """
    led_suit, win_card, win_pos = add_to_trick(card, n_played, led_suit, win_card, win_pos, strain)
    n_played += 1
    if n_played == 4:
        return 0, -1, -1, -1, (leader + win_pos) & 3
    return n_played, led_suit, win_card, win_pos, leader


@kernel
def trick_winner(trick, leader, strain):
    """Seat that wins a complete 4-card trick led by ``leader``."""
    _, _, win_pos = trick_state(trick, 4, strain)
    return (leader + win_pos) & 3


@lean_kernel
def legal_mask_of_trick(hand, trick, n_played, strain, rules):
    """``legal_mask`` for a trick given as an array of its first ``n_played`` cards."""
    led_suit, win_card, win_pos = trick_state(trick, n_played, strain)
    return legal_mask(hand, led_suit, n_played, win_card, win_pos, strain, rules)


@kernel
def legal_masks_batch(hands, tricks, n_played, strains, rules):
    """Vectorised ``legal_mask_of_trick`` over arrays of positions (for tests and tools).

    ``hands``: (n,) int64 masks; ``tricks``: (n, 4) cards; ``n_played``/``strains``:
    (n,); ``rules``: the rules array.  Returns an (n,) int64 array of legal masks.
    """
    n = hands.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = legal_mask_of_trick(hands[i], tricks[i], n_played[i], strains[i], rules)
    return out


@kernel
def trick_winners_batch(tricks, leaders, strains):
    """Vectorised ``trick_winner``: (n, 4) cards, (n,) leaders and strains -> (n,) seats."""
    n = tricks.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = trick_winner(tricks[i], leaders[i], strains[i])
    return out


__all__ = [
    "DUTY_FOLLOW_SUIT",
    "DUTY_NAMES",
    "DUTY_NONE",
    "DUTY_NOT_IN_HAND",
    "DUTY_OVERTRUMP",
    "DUTY_RAISE",
    "DUTY_TRUMP",
    "DUTY_UNDERTRUMP",
    "NO_PARTNER",
    "add_to_trick",
    "advance_trick",
    "beats",
    "broken_duty",
    "is_trump",
    "legal_mask",
    "legal_mask_of_trick",
    "legal_masks_batch",
    "trick_state",
    "trick_winner",
    "trick_winners_batch",
]

"""The three encodings of the play duty (docs/rules.md section 5) agree.

The duty is written three times for speed: ``kernels.core.legal_mask`` (the move
generator), ``kernels.core.broken_duty`` (which duty an illegal card breaks) and
``kernels.solver.infer_forbidden`` (what a played card shows about the rest of the
player's hand).  These tests hold them equal on many random positions and on every
play of random legal deals, under each combination of the two play options, with fixed
integer seeds.

The bridge between ``legal_mask`` and ``infer_forbidden`` is pairwise: card ``c`` is
legal in hand ``H`` exactly when it is legal in every two-card hand ``{c, x}`` with
``x`` in ``H`` (checked here), so what a play of ``c`` shows is the set of cards ``x``
for which ``{c, x}`` would have made ``c`` illegal -- computed from ``legal_mask``
alone and compared with ``infer_forbidden``'s masks.
"""

import numpy as np
import pytest

from belote_sim.kernels.core import (
    DUTY_FOLLOW_SUIT,
    DUTY_NONE,
    DUTY_NOT_IN_HAND,
    DUTY_OVERTRUMP,
    DUTY_RAISE,
    DUTY_TRUMP,
    DUTY_UNDERTRUMP,
    NO_PARTNER,
    broken_duty,
    legal_mask,
    legal_masks_batch,
    trick_state,
)
from belote_sim.kernels.solver import infer_forbidden
from belote_sim.kernels.tables import R_RAISE_OVER_PARTNER, R_UNDERTRUMP
from belote_sim.rules import Rules

OPTIONS = [(raise_op, undertrump) for raise_op in (0, 1) for undertrump in (0, 1)]
ALL_CARDS = np.arange(32, dtype=np.int64)


def play_rules(raise_op, undertrump):
    """A rules array with the two play options set (the rest as ``common``)."""
    rules = Rules.preset("common").to_array().copy()
    rules[R_RAISE_OVER_PARTNER] = raise_op
    rules[R_UNDERTRUMP] = undertrump
    return rules


def random_positions(n, seed):
    """``n`` random positions: (hands, tricks (n, 4), n_played, strains).

    The trick's cards and the hand (1 to 8 cards) are distinct cards of the deck.
    """
    rng = np.random.default_rng(seed)
    perms = np.argsort(rng.random((n, 32)), axis=1)
    sizes = rng.integers(1, 9, size=n)
    hands = np.zeros(n, dtype=np.int64)
    for k in range(8):
        hands |= np.where(k < sizes, np.int64(1) << perms[:, 4 + k], 0)
    tricks = perms[:, :4].astype(np.int64)
    n_played = rng.integers(0, 4, size=n).astype(np.int64)
    strains = rng.integers(0, 6, size=n).astype(np.int64)
    return hands, tricks, n_played, strains


def shown_by_play(tricks, n_played, strains, cards, rules):
    """Per position, the mask of cards ``x`` such that holding ``{card, x}`` would have
    made ``card`` illegal (what playing ``card`` shows the player does not hold),
    from ``legal_mask`` alone."""
    n = len(cards)
    pair_hands = (np.int64(1) << cards)[:, None] | (np.int64(1) << ALL_CARDS)[None, :]
    legal = legal_masks_batch(
        pair_hands.ravel(),
        np.repeat(tricks, 32, axis=0),
        np.repeat(n_played, 32),
        np.repeat(strains, 32),
        rules,
    ).reshape(n, 32)
    refused = ((legal >> cards[:, None]) & 1) == 0
    return (refused.astype(np.int64) << ALL_CARDS[None, :]).sum(axis=1)


@pytest.mark.parametrize("raise_op,undertrump", OPTIONS)
def test_broken_duty_is_zero_exactly_for_legal_cards(raise_op, undertrump):
    """card legal by legal_mask <=> broken_duty == 0, and the duty named fits the hand."""
    rules = play_rules(raise_op, undertrump)
    hands, tricks, n_played, strains = random_positions(1500, seed=11)
    rng = np.random.default_rng(12)
    solo = rng.random(len(hands)) < 0.25  # games without partners
    for i in range(len(hands)):
        hand, n, strain = int(hands[i]), int(n_played[i]), int(strains[i])
        led, win_card, win_pos = trick_state(tricks[i], n, strain)
        if solo[i] and n > 0:
            win_pos = NO_PARTNER
        legal = legal_mask(hand, led, n, win_card, win_pos, strain, rules)
        assert legal & hand == legal and (legal or not hand)
        for card in range(32):
            duty = broken_duty(hand, card, led, n, win_card, win_pos, strain, rules)
            if not (hand >> card) & 1:
                assert duty == DUTY_NOT_IN_HAND
                continue
            assert (duty == DUTY_NONE) == bool((legal >> card) & 1), (i, card)
            if duty == DUTY_NONE:
                continue
            holds_led = bool(hand & (0xFF << (8 * led)))
            if duty == DUTY_FOLLOW_SUIT:
                assert holds_led and card >> 3 != led
            elif duty == DUTY_RAISE:
                assert card >> 3 == led
            else:
                assert duty in (DUTY_TRUMP, DUTY_OVERTRUMP, DUTY_UNDERTRUMP)
                assert not holds_led and strain < 4 and hand & (0xFF << (8 * strain))


@pytest.mark.parametrize("raise_op,undertrump", OPTIONS)
def test_legal_mask_is_decided_card_by_card(raise_op, undertrump):
    """c is legal in H <=> c is legal in {c, x} for every x of H (the premise of the
    infer_forbidden comparison below)."""
    rules = play_rules(raise_op, undertrump)
    hands, tricks, n_played, strains = random_positions(1500, seed=21)
    n = len(hands)
    legal = legal_masks_batch(hands, tricks, n_played, strains, rules)
    rows = np.repeat(np.arange(n), 32)
    cards = np.tile(ALL_CARDS, n)
    shown = shown_by_play(tricks[rows], n_played[rows], strains[rows], cards, rules).reshape(n, 32)
    held = ((hands[:, None] >> ALL_CARDS[None, :]) & 1) == 1
    legal_bits = ((legal[:, None] >> ALL_CARDS[None, :]) & 1) == 1
    pairwise_legal = (shown & hands[:, None]) == 0
    assert (legal_bits[held] == pairwise_legal[held]).all()
    assert (legal_bits[~held] == False).all()  # noqa: E712


@pytest.mark.parametrize("raise_op,undertrump", OPTIONS)
def test_infer_forbidden_agrees_with_legal_mask(raise_op, undertrump):
    """On every prefix of random legal deals, infer_forbidden's mask per seat is the
    union over that seat's plays of what legal_mask says each play shows."""
    rules = play_rules(raise_op, undertrump)
    rng = np.random.default_rng(31 + 2 * raise_op + undertrump)
    for _ in range(150):
        deck = rng.permutation(32)
        hands = [int(sum(1 << int(c) for c in deck[8 * s : 8 * s + 8])) for s in range(4)]
        strain = int(rng.integers(0, 6))
        first_leader = int(rng.integers(0, 4))
        plays = np.zeros(32, dtype=np.int64)
        tricks = np.zeros((32, 4), dtype=np.int64)
        n_in_trick = np.zeros(32, dtype=np.int64)
        seats = np.zeros(32, dtype=np.int64)
        leader = first_leader
        trick = np.zeros(4, dtype=np.int64)
        for i in range(32):
            n = i % 4
            seat = (leader + n) & 3
            led, win_card, win_pos = trick_state(trick, n, strain)
            legal = legal_mask(hands[seat], led, n, win_card, win_pos, strain, rules)
            options = [c for c in range(32) if (legal >> c) & 1]
            card = options[int(rng.integers(0, len(options)))]
            tricks[i] = trick
            n_in_trick[i] = n
            seats[i] = seat
            plays[i] = card
            trick[n] = card
            hands[seat] &= ~(1 << card)
            if n == 3:
                _, _, win_pos = trick_state(trick, 4, strain)
                leader = (leader + win_pos) & 3
        shown = shown_by_play(tricks, n_in_trick, np.full(32, strain), plays, rules)
        expected = np.zeros(4, dtype=np.int64)
        out = np.zeros(4, dtype=np.int64)
        for i in range(32):
            expected[seats[i]] |= shown[i]
            next_leader, n_trick = infer_forbidden(plays, i + 1, first_leader, strain, rules, out)
            assert out.tolist() == expected.tolist(), (i, strain)
            assert n_trick == (i + 1) % 4
            if i + 1 < 32:
                assert next_leader == (seats[i + 1] - n_trick) & 3

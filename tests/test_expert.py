"""The expert play policy: legal cards (against the reference) and choices that depend
only on what its player saw."""

import numpy as np
import pytest
import reference as ref
from deal_walk import deal_plays

from belote_sim.kernels import solver as KS
from belote_sim.kernels.declarations import hand_declarations
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import announced_cards, new_deal
from belote_sim.kernels.rng import seed_state
from belote_sim.kernels.switchboard import POLICY_NONE, policy_buffers, policy_menu
from belote_sim.kernels.tables import RANK_K, RANK_Q, STRAIN_AT, STRAIN_NT
from belote_sim.policies import MAX_PARAMS, PLAY_POLICIES
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate

POLICY_EXPERT = PLAY_POLICIES["expert"].id

PRESETS = ("common", "bulgarian", "french")


@pytest.mark.parametrize("preset", PRESETS)
def test_every_expert_card_is_legal(preset):
    """Every card of simulated deals (rules path, endgame path, an early endgame, the
    linear model, the network with and without endgame) is legal by the slow reference
    rules."""
    play = ["expert", "expert:0,0,32,0,1", "expert:5,4", "expert:0"]
    df = simulate(150, rules=preset, play=play, seed=3, trick_log=True)
    df = df[df["outcome"] != "thrown_in"]
    assert len(df) > 50
    for play in deal_plays(df):
        if play.k == 0:
            assert len(play.plays) == 32
        legal = ref.legal_cards(
            play.hand, play.trick, play.leader, play.strain, {"ruleset": preset}
        )
        assert play.card in legal, (play.row.deal_id, play.k, play.card, legal)


def _run(hands, leader, strain, taker, rules, plays, k, policy, params, search):
    """play_deal from the first ``k`` recorded cards; returns the deal record."""
    records = new_deal()
    deal = records[0]
    deal["hands"] = hands
    deal["leader"] = leader
    deal["strain"] = strain
    deal["taker"] = taker
    deal["announce"] = 15
    deal["n_given"] = k
    deal["cards"] = plays
    menu = policy_menu(play=[name for name, p in PLAY_POLICIES.items() if p.id == policy])
    play_deal(deal, (np.full(4, policy, np.int64), params, menu), rules, seed_state(99), search)
    return deal


def _declared_cards(hand, strain, rules):
    d = hand_declarations(hand, strain, rules)
    cards = int(d[1])
    for rank in range(8):
        if (int(d[0]) >> rank) & 1:
            cards |= 0x01010101 << rank
    if strain != STRAIN_NT:
        for suit in range(4):
            if strain == STRAIN_AT or suit == strain:
                pair = (1 << (8 * suit + RANK_K)) | (1 << (8 * suit + RANK_Q))
                if hand & pair == pair:
                    cards |= pair
    return cards & hand


@pytest.mark.parametrize("model", [0, 1, 2], ids=["rules", "linear", "network"])
@pytest.mark.parametrize("preset", PRESETS)
def test_expert_depends_only_on_the_observation(preset, model):
    """Same observation (own hand, cards played, contract, announcements), different
    hidden cards: the same card.  The other hands are dealt again uniformly among the
    deals where every card so far was legal (and the announcements are the same)."""
    rules = Rules.preset(preset).to_array()
    params = np.zeros((4, MAX_PARAMS))
    params[:, :5] = (3, 6, 0, 0, model)
    search = policy_buffers(12)
    rng = np.random.default_rng(11)
    compared = differed = 0
    for _ in range(40):
        deck = rng.permutation(32)
        hands = np.array(
            [sum(1 << int(c) for c in deck[8 * s : 8 * s + 8]) for s in range(4)], np.int64
        )
        strain = int(rng.integers(6))
        taker = int(rng.integers(4))
        first = int(rng.integers(4))
        plays = _run(
            hands,
            first,
            strain,
            taker,
            rules,
            np.zeros(32, np.int64),
            0,
            POLICY_EXPERT,
            params,
            search,
        )["cards"].copy()
        for k in (2, 7, 13, 18, 22, 25, 27, 30):
            forbidden = np.zeros(4, np.int64)
            lead, n_trick = KS.infer_forbidden(plays, k, first, strain, rules, forbidden)
            seat = (lead + n_trick) % 4
            gone = sum(1 << int(c) for c in plays[:k])
            fixed = np.zeros(4, np.int64)
            need = np.zeros(4, np.int64)
            allowed = np.zeros(4, np.int64)
            unseen = 0xFFFFFFFF & ~gone & ~int(hands[seat])
            for s in range(4):
                if s == seat:
                    continue
                fixed[s] = _declared_cards(int(hands[s]), strain, rules) & ~gone
                unseen &= ~int(fixed[s])
            for s in range(4):
                if s != seat:
                    need[s] = bin(int(hands[s]) & ~gone).count("1") - bin(int(fixed[s])).count("1")
                    allowed[s] = unseen & ~int(forbidden[s])
            deals = np.zeros((1, 4), np.int64)
            if (
                KS.sample_deals(fixed, unseen, need, allowed, 1, int(rng.integers(1 << 40)), deals)
                <= 0
            ):
                continue
            other = np.array(
                [(int(hands[s]) & gone) | int(deals[0, s]) for s in range(4)], np.int64
            )
            other[seat] = hands[seat]
            deal_a = _run(hands, first, strain, taker, rules, plays, k, POLICY_NONE, params, search)
            deal_b = _run(other, first, strain, taker, rules, plays, k, POLICY_NONE, params, search)
            if deal_b["n_played"] != k or deal_b["duty"] != 0:
                continue  # an earlier card would have been illegal in the other deal
            known_a = np.zeros(4, np.int64)
            known_b = np.zeros(4, np.int64)
            announced_cards(deal_a, k, gone, seat, known_a)
            announced_cards(deal_b, k, gone, seat, known_b)
            if (known_a != known_b).any():
                continue  # different announcements: a different observation
            out_a = _run(
                hands, first, strain, taker, rules, plays, k, POLICY_EXPERT, params, search
            )["cards"]
            out_b = _run(
                other, first, strain, taker, rules, plays, k, POLICY_EXPERT, params, search
            )["cards"]
            assert out_a[k] == plays[k]
            assert out_a[k] == out_b[k], (preset, strain, k)
            compared += 1
            differed += int((other != hands).any())
    assert compared > 150 and differed > 100


def test_the_resumed_inference_is_the_inference_from_scratch():
    """``observed_forbidden`` with the play policies' work rows (its memo) gives what
    ``infer_forbidden`` gives from the first card, whatever came before it: the next
    card of the same deal, a deal sharing only its first cards, another first leader,
    strain or rules, or an earlier point of the deal."""
    from belote_sim.kernels.expert import WORK_ROWS, observed_forbidden
    from belote_sim.kernels.tables import R_RAISE_OVER_PARTNER, R_UNDERTRUMP

    rng = np.random.default_rng(8)
    work = np.zeros((WORK_ROWS, 4), np.int64)
    base = Rules.preset("common").to_array()
    plays = rng.permutation(32).astype(np.int64)
    first, strain, raise_over, undertrump = 0, 0, 0, 0
    k = 0
    resumed = 0
    for _ in range(3000):
        event = rng.random()
        if event < 0.05:  # another deal with the same first cards
            j = int(rng.integers(33))
            plays = np.concatenate((plays[:j], rng.permutation(plays[j:])))
        elif event < 0.08:
            first = int(rng.integers(4))
        elif event < 0.11:
            strain = int(rng.integers(6))
        elif event < 0.14:
            raise_over, undertrump = (int(x) for x in rng.integers(2, size=2))
        if event < 0.2:
            k = int(rng.integers(33))
        else:
            k = (k + int(rng.integers(1, 3))) % 33
        rules = base.copy()
        rules[R_RAISE_OVER_PARTNER] = raise_over
        rules[R_UNDERTRUMP] = undertrump
        expected = np.zeros(4, np.int64)
        want = KS.infer_forbidden(plays, k, first, strain, rules, expected)
        resumed += int(0 < work[4, 0] <= k)
        got = observed_forbidden(plays, k, first, strain, rules, work)
        assert tuple(got) == tuple(want)
        assert (work[1] == expected).all(), (k, first, strain)
    assert resumed > 1000


def test_an_unknown_expert_model_is_refused():
    from belote_sim.policies import PLAY_POLICIES, parse_policy

    for spec in ("expert:4,24,32,0,4", "expert:0,0,32,0,1.5"):
        with pytest.raises(ValueError, match="expert model must be 0 .rules., 1 .* 3 .network."):
            parse_policy(spec, PLAY_POLICIES, "play")
    assert parse_policy("expert:0", PLAY_POLICIES, "play").params[4] == 3.0

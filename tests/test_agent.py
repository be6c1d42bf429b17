"""The per-decision agent API agrees with the simulator's policies."""

import pytest
import reference as ref
from deal_walk import deal_plays, play_observation

from belote_sim.cards import format_cards
from belote_sim.deal.agent import choose_card
from belote_sim.simulation.runner import simulate


@pytest.mark.parametrize("policy", ["greedy", "greedy:0,1", "random"])
def test_agent_plays_what_the_simulator_played(policy):
    """Replaying simulated deals decision by decision through the agent API gives the
    same cards for the deterministic greedy policy, and legal cards for every policy."""
    df = simulate(60, play=policy, seed=5, trick_log=True)
    for play in deal_plays(df):
        if play.k == 0:
            perms = set(range(24))  # the simulator's relabelling of the suits: unknown
        obs = play_observation(play, ruleset="common")
        obs["contract"]["doubling"] = int(play.row.doubling)
        chosen = choose_card(obs, policy, seed=play.k)
        assert chosen in ref.legal_cards(
            play.hand, play.trick, play.leader, play.strain, {"ruleset": "common"}
        )
        if policy.startswith("greedy"):
            # one relabelling of the suits played the whole deal: some relabelling
            # must give every card the simulator played
            perms = {p for p in perms if choose_card(obs, policy, suit_perm=p) == play.card}
            assert perms, (play.row.deal_id, play.k, play.card)


def test_agent_rejects_bad_observations():
    obs = {
        "dealer": 3,
        "seat": 1,
        "hand": "7C 8C 9C TC JC QC KC AC",
        "contract": {"strain": "H", "taker": 0},
        "plays": [],
    }
    with pytest.raises(ValueError, match="seat 0's turn"):
        choose_card(obs)
    with pytest.raises(ValueError, match="lacks 'hand'"):
        choose_card({k: v for k, v in obs.items() if k != "hand"})
    with pytest.raises(ValueError, match="unknown observation field"):
        choose_card(dict(obs, seat=0, hnd=[]))
    with pytest.raises(ValueError, match="should hold 8 cards"):
        choose_card(dict(obs, seat=0, hand="7C 8C"))


def test_agent_dd_and_pimc():
    from belote_sim import replay
    from belote_sim.deal.playout import random_record
    from belote_sim.deal.solver import dd_scores

    rec = random_record(12, "common")
    rec["plays"] = rec["plays"][:17]  # 4 tricks and one card of the fifth
    state = replay(rec)
    seat = state["to_play"]
    played = set(rec["plays"])
    hands = [" ".join(c for c in h.split() if c not in played) for h in rec["hands"]]
    obs = {
        "dealer": rec["dealer"],
        "seat": seat,
        "hand": hands[seat],
        "hands": hands,
        "contract": rec["contract"],
        "plays": rec["plays"],
    }
    card = choose_card(obs, "dd")
    assert card in state["legal"]
    trick = state["tricks"][-1]
    scores = dd_scores(
        hands, rec["contract"]["strain"], trick["leader"], seat % 2, "common", trick=trick["cards"]
    )
    assert scores[card] == max(scores.values())  # the best card for the mover's team
    del obs["hands"]
    assert choose_card(obs, "pimc:8", samples=8) in state["legal"]
    with pytest.raises(ValueError, match="give 'hands'"):
        choose_card(obs, "dd")


def _announced(row, plays, k, leader0, strain):
    """Declarations every player has seen after ``k`` cards (runs and carrés of the seats
    that have played, belotes whose first card is down), as agent entries."""
    from belote_sim.deal.declarations import hand_declarations

    entries = []
    played_by = [[], [], [], []]
    leader = leader0
    for j, card in enumerate(plays[:k]):
        t, pos = divmod(j, 4)
        if pos == 0 and t > 0:
            leader = ref.trick_winner(plays[4 * t - 4 : 4 * t], leader, strain)
        played_by[(leader + pos) % 4].append(card)
    for s in range(4):
        hand = format_cards(int(getattr(row, f"hand{s}")))
        if played_by[s]:
            for e in hand_declarations(" ".join(hand), strain, "common", seat=s):
                entries.append({"seat": s, "kind": e["kind"], "cards": e["cards"]})
        if strain != "NT":
            for suit in "CDHS" if strain == "AT" else strain:
                pair = {"K" + suit, "Q" + suit}
                if pair <= set(hand) and pair & set(played_by[s]):
                    entries.append({"seat": s, "kind": "belote", "cards": sorted(pair)})
    return entries


def test_agent_expert_plays_what_the_simulator_played():
    """The agent, given only the observation (hand, plays, contract, announcements),
    picks the card the simulator's expert played: its choice uses nothing else."""
    df = simulate(40, play="expert", seed=8, trick_log=True)
    checked = 0
    for play in deal_plays(df):
        if play.k == 0:
            perms = set(range(24))  # the simulator's relabelling of the suits: unknown
        obs = play_observation(
            play,
            declarations=_announced(play.row, play.plays, play.k, play.first_leader, play.strain),
        )
        perms = {p for p in perms if choose_card(obs, "expert", suit_perm=p) == play.card}
        assert perms, (play.row.deal_id, play.k, play.card)
        checked += 1
    assert checked > 500


def test_agent_declarations_validated_and_pimc_samples():
    obs = {
        "dealer": 3,
        "seat": 0,
        "hand": "7C 8C 9C TC JC QC KC AC",
        "contract": {"strain": "H", "taker": 0},
        "plays": [],
    }
    bad = [
        ({"seat": 1, "kind": "tierce", "cards": "7S 8S TS"}, "in sequence"),
        ({"seat": 1, "kind": "tierce", "cards": "7C 8C 9C"}, "mover's hand"),
        ({"seat": 5, "kind": "tierce", "cards": "7S 8S 9S"}, "seat must be"),
        ({"seat": 1, "kind": "sequence", "cards": "7S 8S 9S"}, "kind must be"),
        ({"seat": 1, "kind": "belote", "cards": "KS QS"}, "trump suit"),
        ({"seat": 1, "kind": "carre", "cards": "JS JH JD 9S"}, "one rank"),
        ({"seat": 1, "cards": "7S 8S 9S"}, "needs"),
    ]
    for entry, message in bad:
        with pytest.raises(ValueError, match=message):
            choose_card(dict(obs, declarations=[entry]))
    with pytest.raises(ValueError, match="turned"):
        choose_card(dict(obs, turned={"card": "JH"}))
    ok = dict(
        obs,
        declarations=[
            {"seat": 1, "kind": "quinte", "cards": "7S 8S 9S TS JS"},
            {"seat": 3, "kind": "belote", "cards": "KH QH"},
        ],
        turned={"card": "AH", "seat": 2},
    )
    for policy in ("expert", "greedy", "pimc:2"):
        assert choose_card(ok, policy) in obs["hand"].split()
    with pytest.raises(ValueError, match="samples"):
        choose_card(ok, "pimc:0")

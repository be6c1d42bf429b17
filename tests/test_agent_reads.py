"""choose_card says what each policy reads (issue 27 item 4): an input a policy does
not read is refused with one line, and what the table says a policy ignores does not
change its card."""

import pytest
import reference as ref

from belote_sim.cards import format_cards
from belote_sim.deal.agent import POLICY_READS, choose_card
from belote_sim.policies import PLAY_POLICIES
from belote_sim.simulation.runner import simulate

OBS = {
    "ruleset": "common",
    "dealer": 3,
    "seat": 0,
    "hand": "JH 9H AH TS 7C KD QD 8S",
    "contract": {"strain": "H", "taker": 0, "doubling": 0},
    "plays": [],
}
HANDS = ["JH 9H AH TS 7C KD QD 8S", "7H 8H QH KH AC TC KC QC", "9C 8C JC AD TD JD 9D 8D",
         "7D 7S 9S JS QS KS AS TH"]  # fmt: skip


def test_every_play_policy_says_what_it_reads():
    assert set(POLICY_READS) == set(PLAY_POLICIES)


@pytest.mark.parametrize(
    "policy, kwargs, extra, words",
    [
        ("greedy", {}, {"hands": HANDS}, "greedy policy does not read 'hands'"),
        ("random", {}, {"hands": HANDS}, "random policy does not read 'hands'"),
        ("expert:0", {}, {"hands": HANDS}, "expert policy does not read 'hands'"),
        ("pimc:2", {}, {"hands": HANDS}, "pimc policy does not read 'hands'"),
        ("dd", {"seed": 3}, {"hands": HANDS}, "dd policy does not use seed"),
        ("dd", {"suit_perm": 1}, {"hands": HANDS}, "dd policy does not use suit_perm"),
        ("dd", {"samples": 5}, {"hands": HANDS}, "dd policy does not use samples"),
        ("pimc:2", {"suit_perm": 1}, {}, "pimc policy does not use suit_perm"),
        ("greedy", {"samples": 5}, {}, "greedy policy does not use samples"),
        ("expert:0", {"samples": 5}, {}, "expert policy does not use samples"),
        ("pimc:8", {"samples": 5}, {}, "pimc:8 already says"),
    ],
)
def test_inputs_a_policy_does_not_read_are_refused(policy, kwargs, extra, words):
    with pytest.raises(ValueError, match=words) as info:
        choose_card(dict(OBS, **extra), policy, **kwargs)
    assert "\n" not in str(info.value)


def test_what_a_policy_reads_is_accepted():
    hand = OBS["hand"].split()
    assert choose_card(dict(OBS, hands=HANDS), "dd") in hand
    assert choose_card(OBS, "pimc", seed=1, samples=2) in hand
    assert choose_card(OBS, "pimc:2", seed=1, samples=2) in hand
    for policy in ("random", "greedy", "expert:0"):
        assert choose_card(OBS, policy, seed=4, suit_perm=5) in hand


def _observations(deals):
    """Mid-game observations of simulated deals, with a card each seat still holds
    that another seat could have been told about (the french turned card)."""
    df = simulate(deals, play="greedy", seed=11, trick_log=True)
    df = df[df["outcome"] != "thrown_in"]
    for row in df.itertuples():
        plays = row.plays.split()
        hands = [set(format_cards(int(getattr(row, f"hand{s}")))) for s in range(4)]
        leader = (row.dealer + 1) % 4
        strain = str(row.strain)
        for k in range(0, 28, 3):
            t, pos = divmod(k, 4)
            lead = leader
            for done in range(t):
                lead = ref.trick_winner(plays[4 * done : 4 * done + 4], lead, strain)
            seat = (lead + pos) % 4
            left = [h - set(plays[:k]) for h in hands]
            other = (seat + 1) % 4
            yield (
                {
                    "ruleset": "common",
                    "dealer": int(row.dealer),
                    "seat": seat,
                    "hand": " ".join(sorted(left[seat])),
                    "contract": {"strain": strain, "taker": int(row.taker), "doubling": 0},
                    "plays": plays[:k],
                },
                {"card": sorted(left[other])[0], "seat": other},
            )


def test_what_the_table_says_is_ignored_does_not_change_the_card():
    """The doubling is read by no policy; random and greedy read neither the
    declarations nor the turned card (expert and pimc do)."""
    seen = 0
    for obs, turned in _observations(12):
        for policy in ("random", "greedy", "expert:0"):
            card = choose_card(obs, policy, seed=7)
            doubled = dict(obs, contract=dict(obs["contract"], doubling=2))
            assert choose_card(doubled, policy, seed=7) == card
            if "turned" not in POLICY_READS[policy.split(":")[0]][0]:
                assert choose_card(dict(obs, turned=turned), policy, seed=7) == card
            seen += 1
    assert seen > 100

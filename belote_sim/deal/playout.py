"""Random legal playouts as replay records (for tests, samples and tools)."""

from __future__ import annotations

from typing import Any

import numpy as np

from belote_sim.cards import format_card, format_cards
from belote_sim.kernels.dealing import shuffle_deal
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import new_deal
from belote_sim.kernels.rng import random_below, seed_state
from belote_sim.kernels.switchboard import policy_buffers
from belote_sim.kernels.tables import ALL_SEATS_MASK, STRAIN_NAMES
from belote_sim.policies import PLAY_POLICIES, menu_of, per_seat, search_bits, to_arrays
from belote_sim.rules import Rules

__all__ = ["random_record"]


def random_record(
    seed: int,
    rules: Rules | str = "common",
    n_plays: int = 32,
    strain: str | None = None,
    doubling: int | None = None,
    play: Any = "random",
) -> dict[str, Any]:
    """A replay record of a uniformly dealt deal played with random legal cards.

    The deal, dealer, taker, strain (among those the rules allow, unless given) and
    doubling (0..max, unless given) are drawn from ``seed``; the cards are played by
    the ``play`` policies (one name, or four) and ``n_plays`` of them are kept.
    """
    rules = Rules.from_spec(rules)
    state = seed_state(seed)
    hands = np.empty(4, dtype=np.int64)
    shuffle_deal(state, hands)
    strains = [s for s in range(6) if rules.strain_allowed(s)]
    code = STRAIN_NAMES.index(strain) if strain else strains[random_below(state, len(strains))]
    dealer = int(random_below(state, 4))
    taker = int(random_below(state, 4))
    if doubling is None:
        doubling = int(random_below(state, rules.max_doubling + 1))
    specs = per_seat(play, PLAY_POLICIES, "play")
    records = new_deal()
    deal = records[0]
    deal["hands"] = hands
    deal["leader"] = (dealer + 1) % 4
    deal["strain"] = code
    deal["taker"] = taker
    deal["doubling"] = doubling
    deal["announce"] = ALL_SEATS_MASK
    play_deal(
        deal,
        (*to_arrays(specs, PLAY_POLICIES), menu_of(specs, players=rules.players)),
        rules.to_array(),
        state,
        policy_buffers(search_bits(specs)),
    )
    plays = deal["cards"]
    return {
        "ruleset": rules.name,
        "options": {
            k: v for k, v in rules.options().items() if v != Rules.preset(rules.name).options()[k]
        },
        "dealer": dealer,
        "hands": [" ".join(format_cards(int(h))) for h in hands],
        "contract": {"strain": STRAIN_NAMES[code], "taker": taker, "doubling": doubling},
        "plays": [format_card(int(c)) for c in plays[:n_plays]],
    }

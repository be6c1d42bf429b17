"""Belote as an OpenSpiel game: ``import belote_sim.openspiel`` registers ``belote``.

Needs the ``openspiel`` extra (``pip install belote-sim[openspiel]``: open-spiel).
The guide is docs/guide/openspiel-pettingzoo.md; in short::

    import pyspiel
    import belote_sim.openspiel
    game = pyspiel.load_game("belote(rules=bulgarian,dealer=3)")
    game = pyspiel.load_game("belote", {"rules": "common", "options": "third_double:true"})

Game parameters: ``rules`` (``common``, ``bulgarian``, ``french``), ``dealer`` (0..3,
default 3: seat 0 speaks and leads first) and ``options``, rule options of
docs/rules.md section 13 as ``name:value`` pairs joined by ``;`` (an option not
given keeps the preset's value).  4 players; team 0 is players 0 and 2.

Actions: 0..31 a card (index ``8 * suit + rank``, suits C D H S, ranks 7 8 9 T J Q K
A), 32 pass, 33..38 a bid of C D H S NT AT (in ``french`` taking the turned card is
the bid of its suit), 39 double, 40 redouble, 41 third double.  Chance outcomes are
cards: every card dealt is one chance node, uniform over the cards not dealt yet
(docs/rules.md section 3's order: 3 then 2 cards to each seat from ``dealer + 1``, the
french turned card, and after a contract the last 3 to each seat).

Returns: each player's team's points of the deal -- match points (MP), French points
under ``french`` scoring -- as the engine scores them (``deal.replay``); 0 for both
teams when the deal is thrown in.  Held points of a hanging deal are not in the
returns.  The sum over the teams varies from deal to deal: the game is declared
``GENERAL_SUM``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from belote_sim.cards import format_card, format_cards, iter_cards, parse_card
from belote_sim.deal.agent import choose_card
from belote_sim.deal.declarations import hand_declarations
from belote_sim.games.encoding import Encoding
from belote_sim.games.table import (
    BIDDING,
    CALL_ACTIONS,
    CALL_WORDS,
    DEALING,
    NUM_ACTIONS,
    OVER,
    PLAY,
    Table,
    action_of_call,
    call_of_action,
)
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.rules import Rules

__all__ = [
    "CALL_ACTIONS",
    "GAME_TYPE",
    "NUM_ACTIONS",
    "BeloteGame",
    "BeloteObserver",
    "BeloteSimBot",
    "BeloteState",
    "action_of_call",
    "call_of_action",
    "default_bidding",
    "determinize",
    "parse_options",
]

#: Loose bounds of a team's points in one deal (every deal total, declarations and
#: doublings at their largest): -10 (kirtik) .. 3000.
_MIN_UTILITY, _MAX_UTILITY = -10.0, 3000.0

GAME_TYPE = pyspiel.GameType(
    short_name="belote",
    long_name="Belote (belote-sim: common, bulgarian, french)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "common", "dealer": 3, "options": ""},
)


def _option_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(low)
    except ValueError:
        return text.strip()


def parse_options(text: str) -> dict[str, Any]:
    """The ``options`` game parameter (``"third_double:true;capot_points:252"``) as a
    dict of rule options; ``ValueError`` (one line) for a malformed pair."""
    out: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, value = pair.partition(":")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(
                f"belote option {pair!r}: write name:value pairs joined by ';' "
                "(e.g. third_double:true;undertrump:false)"
            )
        out[name.strip()] = _option_value(value)
    return out


class BeloteGame(pyspiel.Game):
    """The OpenSpiel game ``belote`` (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        rules_name = params.get("rules", "common")
        try:
            rules = Rules.from_spec(str(rules_name), parse_options(str(params.get("options", ""))))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"belote game parameters: {exc}") from None
        dealer = params.get("dealer", 3)
        Table(rules, dealer=dealer)  # refuses the other games and a bad dealer, in one line
        self.rules = rules
        self.dealer = int(dealer)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=32,
            num_players=4,
            min_utility=_MIN_UTILITY,
            max_utility=_MAX_UTILITY,
            utility_sum=None,
            max_game_length=32 + MAX_CALLS + 32,
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> BeloteState:
        """A deal before its first card is dealt."""
        return BeloteState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BeloteObserver:
        """An observer (the information state when ``perfect_recall``)."""
        return BeloteObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class BeloteState(pyspiel.State):
    """A deal in progress: ``table`` (``belote_sim.games.table.Table``) holds it."""

    def __init__(self, game: BeloteGame):
        super().__init__(game)
        self.table = Table(game.rules, dealer=game.dealer)

    def current_player(self) -> int:
        """The player to move, ``PlayerId.CHANCE`` while dealing, ``TERMINAL`` at the end."""
        phase = self.table.phase
        if phase == DEALING:
            return int(pyspiel.PlayerId.CHANCE)
        if phase == OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.table.to_move

    def _legal_actions(self, player: int) -> list[int]:
        return self.table.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not dealt yet, each with the same probability."""
        cards = list(iter_cards(self.table.deck))
        return [(c, 1.0 / len(cards)) for c in cards]

    def _apply_action(self, action: int) -> None:
        if self.table.phase == DEALING:
            self.table.deal_card(action)
        else:
            self.table.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal {format_card(action)}"
        if action >= CALL_ACTIONS:
            return CALL_WORDS[action - CALL_ACTIONS]
        return format_card(action)

    def is_terminal(self) -> bool:
        """Whether the deal is over (scored, or thrown in)."""
        return self.table.phase == OVER

    def returns(self) -> list[float]:
        """Each player's team's points (MP, French points under french scoring); 0
        before the end and for a thrown-in deal."""
        mp = self.table.mp
        if mp is None:
            return [0.0] * 4
        return [float(mp[p % 2]) for p in range(4)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BeloteState:
        """A state with the same information state for ``player_id`` and the other
        seats' unseen cards dealt again at random (``determinize``; the sampler is not
        used: the draws come from a generator seeded by ``probability_sampler()``'s
        first value when it is callable, else from the state)."""
        try:
            seed = int(probability_sampler() * 2**31)
        except TypeError:
            seed = hash(self.information_state_string(player_id)) & 0x7FFFFFFF
        return determinize(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        t = self.table
        lines = [f"dealer {t.dealer} phase {t.phase}"]
        lines += [f"seat {s}: {' '.join(format_cards(t.hands[s]))}" for s in range(4)]
        if t.turned >= 0:
            lines.append(f"turned {format_card(t.turned)}")
        lines.append(f"calls {''.join(t.calls)}")
        if t.contract:
            c = t.contract
            lines.append(f"contract {c['strain']} by {c['taker']} doubling {c['doubling']}")
        lines.append(f"plays {' '.join(format_card(c) for c in t.plays)}")
        if t.mp is not None:
            lines.append(f"points {t.mp[0]} {t.mp[1]} ({t.outcome})")
        return "\n".join(lines)


def determinize(state: BeloteState, player: int, rng: random.Random,
                tries: int = 2000) -> BeloteState:  # fmt: skip
    """A state that ``player`` cannot tell from ``state``: the cards it has not seen
    dealt again among the other seats (each keeps the cards it played and announced,
    none gets a card its play showed it lacks: ``Table.excluded``, a suit it did not
    follow, a trump it did not play or raise), the calls and cards replayed, and
    kept only if ``player``'s information state is unchanged (an announcement that the
    new hands would change, e.g. a run nobody declared, sends it back: at most
    ``tries`` draws).  Uniform among such deals up to the order in which the cards
    are given (the most constrained first); the other seats' calls are not taken
    into account."""
    table = state.table
    key = state.information_state_string(player)
    game = state.get_game()
    history = state.history()
    # the chance positions of the history and who received each card
    seats_of_chance: list[int] = []
    probe = Table(table.rules, dealer=table.dealer)
    for action in history:
        if probe.phase == DEALING:
            seats_of_chance.append(probe.receiver)
            probe.deal_card(action)
        elif probe.phase == BIDDING:
            probe.call(call_of_action(action))
        else:
            probe.play(action)
    mine = sum(1 << c for c in table.dealt[player])
    played = table.played_by()
    fixed = [played[s] | table.announced_cards()[s] for s in range(4)]
    if table.french and table.taker >= 0 and table.phase != DEALING:
        fixed[table.taker] |= 1 << table.turned
    fixed[player] = 0
    excluded = table.excluded
    public = (1 << table.turned) if table.turned >= 0 else 0
    for _ in range(tries):
        pool = ((1 << 32) - 1) & ~table.deck & ~mine & ~public
        for s in range(4):
            pool &= ~fixed[s]
        need = [0, 0, 0, 0]
        for seat in seats_of_chance:
            if seat >= 0 and seat != player:
                need[seat] += 1
        if table.french and table.taker >= 0 and table.taker != player:
            need[table.taker] += 1  # the turned card, not a chance card
        hands = list(fixed)
        for s in range(4):
            if s != player:
                need[s] -= bin(fixed[s]).count("1")
        cards = list(iter_cards(pool))
        rng.shuffle(cards)
        # the most constrained cards first (fewest seats that may hold them)
        others = [x for x in range(4) if x != player]
        cards.sort(key=lambda c: sum(1 for x in others if not excluded[x] >> c & 1))
        ok = True
        for card in cards:
            allowed = [s for s in others if need[s] > 0 and not excluded[s] >> card & 1]
            if not allowed:
                ok = False
                break
            s = rng.choices(allowed, weights=[need[x] for x in allowed])[0]
            hands[s] |= 1 << card
            need[s] -= 1
        if not ok or not _same_declarations(table, hands, player):
            continue
        new = _rebuild(game, history, seats_of_chance, player, hands, table, rng)
        if new is not None and new.information_state_string(player) == key:
            return new
    raise RuntimeError(f"no deal consistent with player {player}'s information in {tries} draws")


def _same_declarations(table: Table, hands: list[int], player: int) -> bool:
    """Whether each other seat that has played a card would have announced, holding
    ``hands[seat]``, the runs and carrés it announced (a cheap test before a rebuild)."""
    if table.strain < 0:
        return True
    strain = STRAIN_NAMES[table.strain]
    for seat in range(4):
        if seat == player or not table.played_by()[seat]:
            continue
        said = sorted(
            (d["kind"], tuple(d["cards"]))
            for d in table.announced
            if d["seat"] == seat and d["kind"] != "belote"
        )
        would = sorted(
            (d["kind"], tuple(d["cards"]))
            for d in hand_declarations(hands[seat], strain, table.rules)
        )
        if said != would:
            return False
    return True


def _rebuild(game: Any, history: list[int], seats: list[int], player: int, hands: list[int],
             table: Table, rng: random.Random) -> BeloteState | None:  # fmt: skip
    """The state of ``history`` with the other seats' chance cards taken from
    ``hands`` (the turned card and ``player``'s cards kept)."""
    left = [list(iter_cards(h)) for h in hands]
    for s in range(4):
        if table.french and s == table.taker and table.phase != DEALING:
            left[s] = [c for c in left[s] if c != table.turned]
        rng.shuffle(left[s])
        # the cards played and announced go first: they were dealt (any order is one
        # the player cannot tell apart); the rest follow
    state = game.new_initial_state()
    k = 0
    for action in history:
        if state.table.phase == DEALING:
            seat = seats[k]
            k += 1
            if seat >= 0 and seat != player:
                action = left[seat].pop()
        try:
            state.apply_action(action)
        except (ValueError, RuntimeError):
            return None
    return state


class BeloteObserver:
    """OpenSpiel's Python observer of ``belote`` (``make_observation``): ``tensor``
    and its named views ``dict``, as ``belote_sim.games.encoding.Encoding`` lays them
    out (docs/guide/openspiel-pettingzoo.md); private information ``SINGLE_PLAYER``
    (the observing seat's cards), ``ALL_PLAYERS`` (every hand) or none."""

    def __init__(self, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"belote observer parameters are not supported, got {params}")
        private = {
            pyspiel.PrivateInfoType.SINGLE_PLAYER: "single",
            pyspiel.PrivateInfoType.ALL_PLAYERS: "all",
        }.get(iig_obs_type.private_info, "none")
        self.encoding = Encoding(
            private, bool(iig_obs_type.public_info), bool(iig_obs_type.perfect_recall)
        )
        self.tensor = self.encoding.tensor
        self.dict = self.encoding.dict

    def set_from(self, state: BeloteState, player: int) -> None:
        """Fill ``tensor`` with what ``player`` knows of ``state``."""
        self.encoding.fill(state.table, player)

    def string_from(self, state: BeloteState, player: int) -> str:
        """What ``player`` knows of ``state`` as text (the information state string
        when ``perfect_recall``)."""
        return self.encoding.text(state.table, player)


class BeloteSimBot(pyspiel.Bot):
    """A belote-sim player at an OpenSpiel table: cards by ``choose_card`` with
    ``policy`` (``expert``, ``expert:0``, ``greedy``, ``random``, ``pimc`` ...), calls
    by ``choose_call`` with ``bidding`` (a bidding policy of the ruleset's bidding;
    default ``atlas_auction``, in ``french`` ``take``).
    ``seed``: each decision's seed is drawn from it (the bot plays the same deal the
    same way)."""

    def __init__(self, game: BeloteGame, player: int, policy: str = "expert",
                 bidding: str | None = None, seed: int = 0):  # fmt: skip
        super().__init__()
        self.player = player
        self.policy = policy
        self.bidding = bidding or default_bidding(game.rules)
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)

    def restart_at(self, state: BeloteState) -> None:
        """Nothing to forget: every decision reads the state."""

    def step(self, state: BeloteState) -> int:
        """The bot's action in ``state`` (a card or a call)."""
        table = state.table
        seed = int(self._rng.integers(1 << 62))
        if table.phase == PLAY:
            card = choose_card(table.observation(self.player), self.policy, seed=seed)
            return parse_card(card)
        if table.phase == BIDDING:
            return action_of_call(bot_call(table, self.player, self.bidding, seed))
        raise ValueError(f"player {self.player} has nothing to decide (phase {table.phase})")


def default_bidding(rules: Rules) -> str:
    """The bots' bidding policy by default: ``atlas_auction`` in the auction of
    ``common`` and ``bulgarian``, ``take`` (the simulator's default) in the french
    two rounds (the shipped atlas covers the common rules only)."""
    return "take" if rules.bidding == "two_round" else "atlas_auction"


def bot_call(table: Table, seat: int, bidding: str, seed: int) -> str:
    """The call (a word or letter) of the bidding policy ``bidding`` at ``seat``
    (``belote_sim.choose_call`` on the table's bidding observation)."""
    from belote_sim.simulation.agent_calls import choose_call

    return str(choose_call(table.bidding_observation(seat), bidding, seed=seed))


pyspiel.register_game(GAME_TYPE, BeloteGame)

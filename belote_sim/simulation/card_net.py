"""A card network over raw facts (issue 41, first step): encoder, accumulator, fit.

The shipped ``expert`` network reads 80 hand-made features per legal card
(``kernels.expert_model``).  This one reads raw facts: for every one of the 32 cards,
where it is as far as the player to move can know, from his observation row
(``kernels.expert_data``, ``OBS_*`` columns).  Each card has one *place* (``PLACE_*``):

* in the mover's hand;
* played in completed trick ``t`` (0..7) by the seat ``r`` places after the mover
  (relative seat 0..3; 0 is the mover);
* on the table now, played by relative seat 1..3;
* announced (belote, declarations) and still held by relative seat 1..3;
* unknown (in one of the three other hands);

and, when unknown, up to three *impossible* flags: relative seat 1..3 cannot hold it
(shown by a failure to follow suit, to trump or to overtrump,
``solver.infer_forbidden``).  That is ``N_FACTS`` = 43 binary inputs per card.

Suit symmetry: the answer must not depend on which suit is called clubs.  The cards
are read in *slots*: in a suit contract the trump suit is slot 0 and the three other
suits take slots 1..3 in decreasing order of their facts (the eight cards' places and
flags, read as one number); in no trumps and all trumps the four suits are ordered
so.  Suits with the same facts give the same inputs in either order, so the encoding
does not change when the suits of an observation are relabelled.

Beside the cards, ``N_GLOBALS`` inputs: the strain's kind (suit, NT, AT), the taker
relative to the mover, the cards in the trick now, the trick's number, the two play
rules, the seat winning the trick now and the card points taken so far (mover's team,
opponents, the trick on the table).

The network: ``first = b1 + sum of W1 rows of the active inputs`` (the accumulator,
``HIDDEN1`` units), rectified; a second rectified layer; one output per slot card, the
score of that card.  The target is ``fit_hidden``'s: each legal card's double-dummy
value minus the mean of the decision's legal cards, against the score minus the mean
score (squared error).

The accumulator kept incrementally (``accumulate``): the first layer is a sum over
cards, and a card's rows depend on its suit only through the suit's slot.  Per
perspective (the seat it is computed for) keep ``P[s, j]``, the sum of the rows of
suit ``s``'s cards read as if the suit were in slot ``j`` (4 suits x 4 slots x
``HIDDEN1``).  A card whose facts change (played: hand/unknown/announced -> table; a
trick completed: table -> played in trick t; a show-out: unknown -> unknown and
impossible for that seat) subtracts its old rows from and adds its new rows to the 4
vectors ``P[suit, 0..3]``; at a decision, ``acc = b1 + sum_s P[s, slot(s)] +`` the
global rows, whatever the order of the suits has become.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from belote_sim.kernels.expert_data import (
    OBS_FIRST_LEADER,
    OBS_HAND,
    OBS_KNOWN,
    OBS_N_PLAYED,
    OBS_RAISE_OVER_PARTNER,
    OBS_STRAIN,
    OBS_TAKER,
    OBS_UNDERTRUMP,
)
from belote_sim.kernels.solver import infer_forbidden
from belote_sim.kernels.tables import (
    CARD_POINTS,
    NUM_RULE_FIELDS,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    STRAIN_NT,
    WIN_KEY,
)
from belote_sim.simulation.expert_training import points_lost

__all__ = [
    "N_FACTS",
    "N_GLOBALS",
    "N_INPUTS",
    "PLACE_ANNOUNCED",
    "PLACE_HAND",
    "PLACE_PLAYED",
    "PLACE_TABLE",
    "PLACE_UNKNOWN",
    "CardNet",
    "Encoded",
    "accumulate",
    "encode",
    "full_accumulator",
    "loss_and_gradients",
    "train",
]

#: Places of a card: in hand; played in trick t by relative seat r (1 + 4t + r);
#: on the table by relative seat r = 1..3 (32 + r); announced, held by r (35 + r);
#: unknown.
PLACE_HAND = 0
PLACE_PLAYED = 1
PLACE_TABLE = 32
PLACE_ANNOUNCED = 35
PLACE_UNKNOWN = 39
N_PLACES = 40
#: Inputs per card: its place (one of N_PLACES) and three impossible flags.
N_FACTS = N_PLACES + 3
N_GLOBALS = 3 + 4 + 4 + 8 + 2 + 4 + 3
N_INPUTS = 32 * N_FACTS + N_GLOBALS


@dataclass
class Encoded:
    """Raw facts of R observation rows.

    ``place`` (R, 32) int8 and ``impossible`` (R, 32) uint8 (bit j-1: relative seat j
    cannot hold it) per *absolute* card; ``slot`` (R, 4) the slot of each absolute
    suit; ``globals_`` (R, N_GLOBALS) float32; ``mover`` (R,) the seat to move
    (worked out from the plays)."""

    place: np.ndarray
    impossible: np.ndarray
    slot: np.ndarray
    globals_: np.ndarray
    mover: np.ndarray

    def slot_cards(self, cards: np.ndarray, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Absolute cards (r, K) of ``rows`` (-1: none) -> their slot cards (8 * slot +
        rank)."""
        suit = np.where(cards >= 0, cards >> 3, 0)
        out = 8 * np.take_along_axis(self.slot[rows], suit, axis=1) + (cards & 7)
        return np.where(cards >= 0, out, -1)

    def active(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Dense 0/1 inputs (r, N_INPUTS) float32 of ``rows``, cards in slot order."""
        place = self.place[rows].astype(np.int64)
        imp = self.impossible[rows].astype(np.int64)
        glob = self.globals_[rows]
        n = len(place)
        x = np.zeros((n, N_INPUTS), dtype=np.float32)
        slot_card = 8 * self.slot[rows][:, np.arange(32) >> 3] + (np.arange(32) & 7)
        base = slot_card * N_FACTS + np.arange(n)[:, None] * N_INPUTS
        flat = x.reshape(-1)
        flat[(base + place).reshape(-1)] = 1.0
        for j in range(3):
            on = ((imp >> j) & 1).astype(bool)
            flat[(base + N_PLACES + j)[on]] = 1.0
        x[:, 32 * N_FACTS :] = glob
        return x


def _walk(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The plays of each row walked trick by trick (vectorised over rows)."""
    n_rows = len(obs)
    k = obs[:, OBS_N_PLAYED]
    strain = obs[:, OBS_STRAIN]
    leader = obs[:, OBS_FIRST_LEADER].copy()
    n = np.zeros(n_rows, np.int64)
    led = np.full(n_rows, -1)
    wc = np.full(n_rows, -1)
    wp = np.full(n_rows, -1)
    trick_no = np.zeros(n_rows, np.int64)
    trick_pts = np.zeros(n_rows, np.int64)
    team_pts = np.zeros((n_rows, 2), np.int64)
    play_seat = np.full((n_rows, 32), -1)
    play_trick = np.full((n_rows, 32), -1)
    idx = np.arange(n_rows)
    for i in range(32):
        on = i < k
        if not on.any():
            break
        card = np.where(on, obs[:, i], 0)
        seat = (leader + n) & 3
        play_seat[on, i] = seat[on]
        play_trick[on, i] = trick_no[on]
        first = on & (n == 0)
        key = WIN_KEY[strain, card]
        wins = (
            on
            & (n > 0)
            & (((card >> 3) == led) | (key >= 16))
            & (key > WIN_KEY[strain, np.maximum(wc, 0)])
        )
        led = np.where(first, card >> 3, led)
        wc = np.where(first | wins, card, wc)
        wp = np.where(first, 0, np.where(wins, n, wp))
        trick_pts = trick_pts + np.where(on, CARD_POINTS[strain, card], 0)
        n = n + on
        done = n == 4
        winner = (leader + wp) & 3
        team_pts[idx[done], winner[done] & 1] += trick_pts[done]
        leader = np.where(done, winner, leader)
        trick_no = trick_no + done
        trick_pts = np.where(done, 0, trick_pts)
        n = np.where(done, 0, n)
        led = np.where(done, -1, led)
        wc = np.where(done, -1, wc)
        wp = np.where(done, -1, wp)
    return {
        "leader": leader, "n": n, "wp": wp, "trick_no": trick_no, "trick_pts": trick_pts,
        "team_pts": team_pts, "play_seat": play_seat, "play_trick": play_trick,
    }  # fmt: skip


def forbidden(obs: np.ndarray) -> np.ndarray:
    """(R, 4) masks of the cards each absolute seat is shown not to hold
    (``solver.infer_forbidden`` on each row)."""
    out = np.zeros((len(obs), 4), np.int64)
    rules = np.zeros(NUM_RULE_FIELDS, np.int64)
    plays = np.ascontiguousarray(obs[:, :32])
    for r in range(len(obs)):
        rules[R_RAISE_OVER_PARTNER] = obs[r, OBS_RAISE_OVER_PARTNER]
        rules[R_UNDERTRUMP] = obs[r, OBS_UNDERTRUMP]
        infer_forbidden(plays[r], obs[r, OBS_N_PLAYED], obs[r, OBS_FIRST_LEADER],
                        obs[r, OBS_STRAIN], rules, out[r])  # fmt: skip
    return out


def encode(
    obs: np.ndarray, forbid: np.ndarray | None = None, trick_numbers: bool = True
) -> Encoded:
    """The raw facts of observation rows ``obs`` (R, OBS_COLUMNS).  ``forbid``: the
    rows' ``forbidden`` masks when already known.  ``trick_numbers`` False: a card
    played in a completed trick is read as played by its seat in trick 0 (the trick's
    number dropped: 4 places instead of 32, fewer weights to fit)."""
    n_rows = len(obs)
    w = _walk(obs)
    if forbid is None:
        forbid = forbidden(obs)
    mover = (w["leader"] + w["n"]) & 3
    k = obs[:, OBS_N_PLAYED]
    strain = obs[:, OBS_STRAIN]
    bits = np.arange(32)
    place = np.full((n_rows, 32), PLACE_UNKNOWN, np.int64)
    # announced and still held (the mover's own entry is ignored)
    for s in range(4):
        rel = (s - mover) & 3
        held = ((obs[:, OBS_KNOWN + s][:, None] >> bits) & 1).astype(bool) & (rel > 0)[:, None]
        place = np.where(held, PLACE_ANNOUNCED + rel[:, None], place)
    in_hand = ((obs[:, OBS_HAND][:, None] >> bits) & 1).astype(bool)
    place[in_hand] = PLACE_HAND
    rows, plays = np.nonzero(np.arange(32) < k[:, None])
    card = obs[rows, plays]
    rel = (w["play_seat"][rows, plays] - mover[rows]) & 3
    trick = w["play_trick"][rows, plays]
    on_table = trick == w["trick_no"][rows]
    trick_place = 4 * trick if trick_numbers else 0
    place[rows, card] = np.where(on_table, PLACE_TABLE + rel, PLACE_PLAYED + trick_place + rel)
    impossible = np.zeros((n_rows, 32), np.int64)
    unknown = place == PLACE_UNKNOWN
    for j in range(1, 4):
        seat = (mover + j) & 3
        mask = forbid[np.arange(n_rows), seat]
        impossible |= (((mask[:, None] >> bits) & 1).astype(bool) & unknown) << (j - 1)
    # suit slots: trump first in a suit contract, the others by their facts
    fact = place * 8 + impossible  # < 2**9
    key = np.zeros((n_rows, 4, 2), np.int64)  # (high ranks, low ranks), 36 bits each
    for rank in range(8):
        half = rank >> 2
        key[:, :, half] |= fact[:, rank::8] << (9 * (rank & 3))
    suit_contract = strain < STRAIN_NT
    for s in range(4):
        key[suit_contract & (strain == s), s, :] = 1 << 40  # above every other key
    slot = np.zeros((n_rows, 4), np.int64)
    for s in range(4):
        for o in range(4):
            if o == s:
                continue
            above = (key[:, o, 1] > key[:, s, 1]) | (
                (key[:, o, 1] == key[:, s, 1])
                & ((key[:, o, 0] > key[:, s, 0]) | ((key[:, o, 0] == key[:, s, 0]) & (o < s)))
            )
            slot[:, s] += above
    glob = np.zeros((n_rows, N_GLOBALS), np.float32)
    r = np.arange(n_rows)
    kind = np.where(suit_contract, 0, strain - STRAIN_NT + 1)
    glob[r, kind] = 1
    glob[r, 3 + ((obs[:, OBS_TAKER] - mover) & 3)] = 1
    glob[r, 7 + w["n"]] = 1
    glob[r, 11 + np.minimum(w["trick_no"], 7)] = 1
    glob[:, 19] = obs[:, OBS_RAISE_OVER_PARTNER]
    glob[:, 20] = obs[:, OBS_UNDERTRUMP]
    winning = np.where(w["n"] > 0, (w["leader"] + w["wp"] - mover) & 3, 0)
    glob[r, 21 + winning] = 1
    glob[:, 25] = w["team_pts"][r, mover & 1] / 100.0
    glob[:, 26] = w["team_pts"][r, 1 - (mover & 1)] / 100.0
    glob[:, 27] = w["trick_pts"] / 50.0
    return Encoded(
        place.astype(np.int8), impossible.astype(np.uint8), slot, glob, mover.astype(np.int64)
    )


def _card_rows(w1: np.ndarray, slot_card: int, place: int, imp: int) -> np.ndarray:
    """The sum of the first-layer rows of one card's facts, read in ``slot_card``."""
    base = slot_card * N_FACTS
    out = w1[base + place].copy()
    for j in range(3):
        if (imp >> j) & 1:
            out += w1[base + N_PLACES + j]
    return out


def full_accumulator(enc: Encoded, w1: np.ndarray, b1: np.ndarray) -> np.ndarray:
    """The first layer (R, H) recomputed from every input (``active @ w1 + b1``)."""
    return enc.active() @ w1 + b1


def accumulate(
    enc: Encoded, order: np.ndarray, w1: np.ndarray, b1: np.ndarray
) -> tuple[np.ndarray, int]:
    """The first layer of rows ``order`` (successive positions of one perspective,
    e.g. a seat's decisions in one deal) kept incrementally: per suit s and slot j the
    running sum ``P[s, j]`` of suit s's card rows as if in slot j, updated only for
    the cards whose facts changed since the previous row; the accumulator read as
    ``b1 + sum_s P[s, slot(s)] + globals``.  Returns (R', H) and the number of card
    updates made after the first row."""
    n_hidden = w1.shape[1]
    partial = np.zeros((4, 4, n_hidden), w1.dtype)
    prev_place = np.full(32, -1)
    prev_imp = np.zeros(32, np.int64)
    out = np.zeros((len(order), n_hidden), w1.dtype)
    updates = 0
    glob_rows = w1[32 * N_FACTS :]
    for i, r in enumerate(order):
        for card in range(32):
            place, imp = int(enc.place[r, card]), int(enc.impossible[r, card])
            if place == prev_place[card] and imp == prev_imp[card]:
                continue
            suit, rank = card >> 3, card & 7
            for j in range(4):
                if prev_place[card] >= 0:
                    partial[suit, j] -= _card_rows(w1, 8 * j + rank, prev_place[card],
                                                   prev_imp[card])  # fmt: skip
                partial[suit, j] += _card_rows(w1, 8 * j + rank, place, imp)
            if i > 0:
                updates += 1
            prev_place[card], prev_imp[card] = place, imp
        acc = b1 + enc.globals_[r] @ glob_rows
        for s in range(4):
            acc = acc + partial[s, enc.slot[r, s]]
        out[i] = acc
    return out, updates


@dataclass
class CardNet:
    """Weights: ``w1`` (N_INPUTS, H1), ``b1`` (the accumulator); ``w2`` (H1, H2), ``b2``;
    then either one score per slot card (``w3`` (H2, 32), ``b3`` (32,); ``wc`` empty)
    or, with the candidate as an input, ``wc`` (128, H1): the row of the candidate
    (its slot card x the cards already in the trick) added to the accumulator before
    the first rectifier, and ``w3`` (H2, 1), ``b3`` (1,) its score."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    wc: np.ndarray
    log: list[dict[str, float]] = field(default_factory=list)

    @property
    def candidate_input(self) -> bool:
        return self.wc.size > 0

    def params(self) -> list[np.ndarray]:
        out = [self.w1, self.b1, self.w2, self.b2, self.w3, self.b3]
        return out + [self.wc] if self.candidate_input else out

    def forward(
        self, x: np.ndarray, cand: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(z1, z2, h1, h2, scores (B, K)) of inputs ``x`` (B, N_INPUTS) and candidates
        ``cand`` (B, K): slot cards (one score per slot card, -1 none) or, with the
        candidate as an input, ``wc`` rows (-1: none)."""
        acc = x @ self.w1 + self.b1
        if self.candidate_input:
            z1 = acc[:, None, :] + self.wc[np.maximum(cand, 0)]
            h1 = np.maximum(z1, 0.0)
            z2 = h1 @ self.w2 + self.b2
            h2 = np.maximum(z2, 0.0)
            return z1, z2, h1, h2, (h2 @ self.w3)[:, :, 0] + self.b3[0]
        h1 = np.maximum(acc, 0.0)
        z2 = h1 @ self.w2 + self.b2
        h2 = np.maximum(z2, 0.0)
        out = h2 @ self.w3 + self.b3
        return acc, z2, h1, h2, np.take_along_axis(out, np.maximum(cand, 0), axis=1)

    def candidates(self, enc: Encoded, cards: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The ``cand`` of ``forward`` for the absolute cards ``cards`` (r, K) of ``rows``."""
        sc = enc.slot_cards(cards, rows)
        if not self.candidate_input:
            return sc
        n_trick = enc.globals_[rows, 7:11].argmax(axis=1)
        return np.where(sc >= 0, sc * 4 + n_trick[:, None], -1)

    def scores(self, enc: Encoded, cards: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(len(rows), K) scores of the absolute cards ``cards[rows]`` (-inf: none)."""
        out = np.empty((len(rows), cards.shape[1]))
        for start in range(0, len(rows), 20_000):
            part = rows[start : start + 20_000]
            cand = self.candidates(enc, cards[part], part)
            s = self.forward(enc.active(part), cand)[-1]
            out[start : start + len(part)] = np.where(cand >= 0, s, -np.inf)
        return out


def loss_and_gradients(
    net: CardNet, x: np.ndarray, cand: np.ndarray, present: np.ndarray, target: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """The loss of a batch (mean over decisions of the squared errors of the centred
    scores of the legal cards ``present`` against ``target``, the centred values) and
    its gradients, in the order of ``net.params()``."""
    n1, n2 = net.w2.shape
    z1, z2, a1, a2, s = net.forward(x, cand)
    m = present.astype(x.dtype)
    s = s * m
    mean_s = s.sum(axis=1) / present.sum(axis=1)
    err = (s - mean_s[:, None] - target) * m
    g = 2.0 * err / len(x)  # d loss / d score (the mean's term: err sums to 0)
    if net.candidate_input:
        g_w3 = np.einsum("bk,bkh->h", g, a2)[:, None]
        g_b3 = np.zeros(1, x.dtype)  # a common shift of the scores: no gradient
        g_z2 = g[:, :, None] * net.w3[:, 0] * (z2 > 0)
        g_w2 = a1.reshape(-1, n1).T @ g_z2.reshape(-1, n2)
        g_b2 = g_z2.sum(axis=(0, 1))
        g_z1 = (g_z2 @ net.w2.T) * (z1 > 0)  # (B, K, H1)
        g_acc = g_z1.sum(axis=1)
        onehot = np.zeros((cand.size, 129), x.dtype)  # column 128: no card
        onehot[np.arange(cand.size), np.where(cand >= 0, cand, 128).ravel()] = 1.0
        g_wc = (onehot.T @ g_z1.reshape(-1, n1))[:128]
    else:
        g_full = np.zeros((len(x), 33), x.dtype)  # column 32: the absent cards
        np.put_along_axis(g_full, np.where(cand >= 0, cand, 32), g, axis=1)
        g_out = g_full[:, :32]
        g_w3 = a2.T @ g_out
        g_b3 = g_out.sum(axis=0)
        g_z2 = (g_out @ net.w3.T) * (z2 > 0)
        g_w2 = a1.T @ g_z2
        g_b2 = g_z2.sum(axis=0)
        g_acc = (g_z2 @ net.w2.T) * (z1 > 0)
    g_w1 = x.T @ g_acc
    g_b1 = g_acc.sum(axis=0)
    grads = [g_w1, g_b1, g_w2, g_b2, g_w3, g_b3]
    if net.candidate_input:
        grads.append(g_wc)
    return float((err * err).sum()) / len(x), grads


def train(
    enc: Encoded,
    cards: np.ndarray,
    values: np.ndarray,
    rows: np.ndarray,
    seed: np.random.SeedSequence,
    hidden: tuple[int, int] = (128, 32),
    epochs: int = 10,
    learning_rate: float = 1e-3,
    batch: int = 1024,
    candidate_input: bool = True,
    check: tuple[np.ndarray, np.ndarray] | None = None,
) -> CardNet:
    """Fit a ``CardNet`` on decisions ``rows`` (Adam, squared error of the centred
    scores against the centred values, as ``expert_training.fit_hidden``; the rate
    halved over each of the last three passes).  ``check``: (rows, values) scored
    after each pass for the log only (never used to choose anything)."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    h1, h2 = hidden
    n_out = 1 if candidate_input else 32
    net = CardNet(
        (rng.standard_normal((N_INPUTS, h1)) * np.sqrt(2.0 / 48)).astype(f32),
        np.zeros(h1, f32),
        (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(f32),
        np.zeros(h2, f32),
        (rng.standard_normal((h2, n_out)) * np.sqrt(1.0 / h2)).astype(f32),
        np.zeros(n_out, f32),
        (rng.standard_normal((128, h1)) * 0.1).astype(f32)
        if candidate_input
        else np.zeros((0, h1), f32),
    )
    present = values >= 0
    n_legal = present.sum(axis=1)
    mean_v = np.where(present, values, 0).sum(axis=1) / n_legal
    target = np.where(present, values - mean_v[:, None], 0.0).astype(f32)
    params = net.params()
    moment1 = [np.zeros_like(p) for p in params]
    moment2 = [np.zeros_like(p) for p in params]
    step = 0
    start_time = time.perf_counter()
    for epoch in range(epochs):
        rate = learning_rate * 0.5 ** max(0, epoch - (epochs - 3))
        order = rows[rng.permutation(len(rows))]
        total = 0.0
        for start in range(0, len(order), batch):
            i = order[start : start + batch]
            x = enc.active(i)
            cand = net.candidates(enc, cards[i], i)
            loss, grads = loss_and_gradients(net, x, cand, present[i], target[i])
            total += loss * len(i)
            step += 1
            for p, gp, m1, m2 in zip(params, grads, moment1, moment2):
                m1 *= 0.9
                m1 += 0.1 * gp
                m2 *= 0.999
                m2 += 0.001 * gp * gp
                p -= rate * (m1 / (1 - 0.9**step)) / (np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
        entry = {
            "epoch": epoch + 1,
            "train_mse": round(total / len(order), 3),
            "seconds": round(time.perf_counter() - start_time, 1),
        }
        if check is not None:
            check_rows, check_values = check
            entry["check_points_lost"] = points_lost(
                net.scores(enc, cards, check_rows), check_values
            )["points_lost"]
        net.log.append(entry)
        print(entry, flush=True)
    return net

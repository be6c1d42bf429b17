"""Card networks over raw facts (issue 41): encoder, accumulators, fit.

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

``SuitNet`` (the second step) reads one suit at a time with the *same* weights for
every suit: per suit a vector ``u`` (its 8 cards' facts, plus the suit's role: trump,
side suit, NT, AT), rectified; their sum is the table's context; each legal card is
scored from its own suit's vector, the context, the globals and its rank.  It is
suit-symmetric by construction (no slots), every weight of the suit layer is fitted on
four suits' data, and its accumulator is simpler: a card whose facts change updates
its own suit's vector only (``SuitNet.accumulate``).  A network can also be fitted as
a *residual* of another model (``train``'s ``base``: its scores are added to the
other model's, e.g. the shipped network's, and the fit starts from that model alone).

The fit (``train``) reads the inputs sparse (``SparseInputs``, ``suit_inputs``: ~40
inputs on per decision, gathered and scattered by two small numba loops) and keeps
the weights of the pass that loses least on validation rows, when given.
"""

from __future__ import annotations

import hashlib
import io
import re
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

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
from belote_sim.kernels.pair_rows import gather_pair_rows, scatter_pair_rows
from belote_sim.kernels.solver import infer_forbidden
from belote_sim.kernels.suit_net import (
    N_FACTS,
    N_GLOBALS,
    N_PLACES,
    N_ROLES,
    PLACE_ANNOUNCED,
    PLACE_HAND,
    PLACE_PLAYED,
    PLACE_TABLE,
    PLACE_UNKNOWN,
)
from belote_sim.kernels.suit_net_weights import NAMES as SUIT_NET_NAMES
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
    "N_ROLES",
    "PLACE_ANNOUNCED",
    "PLACE_HAND",
    "PLACE_PLAYED",
    "PLACE_TABLE",
    "PLACE_UNKNOWN",
    "SUIT_INPUTS",
    "CardNet",
    "Encoded",
    "SparseInputs",
    "SuitNet",
    "accumulate",
    "centred_error",
    "encode",
    "first_layer",
    "first_layer_gradient",
    "full_accumulator",
    "loss_and_gradients",
    "npz_bytes",
    "ship_suit_net",
    "suit_inputs",
    "suit_roles",
    "train",
]

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

    def sparse(self, rows: np.ndarray) -> SparseInputs:
        """The inputs of ``rows`` as ``SparseInputs`` (the same numbers as ``active``;
        ~40 binary inputs on per row instead of 1,404 columns)."""
        place = self.place[rows].astype(np.int64)
        imp = self.impossible[rows].astype(np.int64)
        n = len(place)
        slot_card = 8 * self.slot[rows][:, np.arange(32) >> 3] + (np.arange(32) & 7)
        base = slot_card * N_FACTS
        row_parts = [np.repeat(np.arange(n), 32)]
        index_parts = [(base + place).reshape(-1)]
        for j in range(3):
            r, c = np.nonzero((imp >> j) & 1)
            row_parts.append(r)
            index_parts.append(base[r, c] + N_PLACES + j)
        return SparseInputs(
            np.concatenate(row_parts), np.concatenate(index_parts), self.globals_[rows]
        )


@dataclass
class SparseInputs:
    """A batch of inputs kept sparse: the binary card inputs on as (``row``,
    ``index``) pairs (input ``index`` of batch row ``row`` is 1) and the ``globals_``
    (B, N_GLOBALS), which are dense (not all 0/1)."""

    row: np.ndarray
    index: np.ndarray
    globals_: np.ndarray

    def __len__(self) -> int:
        return len(self.globals_)

    def dense(self) -> np.ndarray:
        """The same inputs as a dense (B, N_INPUTS) array (``Encoded.active``'s)."""
        x = np.zeros((len(self), N_INPUTS), self.globals_.dtype)
        x[self.row, self.index] = 1.0
        x[:, 32 * N_FACTS :] = self.globals_
        return x


def first_layer(x: np.ndarray | SparseInputs, w1: np.ndarray) -> np.ndarray:
    """``x @ w1`` (B, H) for dense inputs or ``SparseInputs``."""
    if not isinstance(x, SparseInputs):
        return x @ w1
    out = x.globals_.astype(w1.dtype) @ w1[32 * N_FACTS :]
    gather_pair_rows(x.row, x.index, w1, out)
    return out


def first_layer_gradient(x: np.ndarray | SparseInputs, g_acc: np.ndarray) -> np.ndarray:
    """``x.T @ g_acc`` (N_INPUTS, H): the gradient of ``first_layer``'s weights."""
    if not isinstance(x, SparseInputs):
        return x.T @ g_acc
    out = np.zeros((N_INPUTS, g_acc.shape[1]), g_acc.dtype)
    scatter_pair_rows(x.row, x.index, g_acc, out)
    out[32 * N_FACTS :] = x.globals_.astype(g_acc.dtype).T @ g_acc
    return out


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
        self, x: np.ndarray | SparseInputs, cand: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(z1, z2, h1, h2, scores (B, K)) of inputs ``x`` (dense (B, N_INPUTS) or
        ``SparseInputs``) and candidates ``cand`` (B, K): slot cards (one score per
        slot card, -1 none) or, with the candidate as an input, ``wc`` rows (-1: none)."""
        acc = first_layer(x, self.w1) + self.b1
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

    def zero_output(self) -> None:
        """Set the last layer to 0 (a residual network starts from the other model)."""
        self.w3[:] = 0.0

    def batch_loss(
        self,
        enc: Encoded,
        cards: np.ndarray,
        rows: np.ndarray,
        present: np.ndarray,
        target: np.ndarray,
        base: np.ndarray | None,
    ) -> tuple[float, list[np.ndarray]]:
        """``loss_and_gradients`` of decisions ``rows`` (``present``, ``target`` and
        ``base`` already of those rows)."""
        cand = self.candidates(enc, cards[rows], rows)
        return loss_and_gradients(self, enc.sparse(rows), cand, present, target, base)

    def scores(
        self, enc: Encoded, cards: np.ndarray, rows: np.ndarray, base: np.ndarray | None = None
    ) -> np.ndarray:
        """(len(rows), K) scores of the absolute cards ``cards[rows]`` (-inf: none), in
        card points.  ``base`` (R, K): scores of another model the network's are added
        to (a residual network; e.g. the shipped network's), indexed as ``cards``."""
        out = np.empty((len(rows), cards.shape[1]))
        for start in range(0, len(rows), 20_000):
            part = rows[start : start + 20_000]
            cand = self.candidates(enc, cards[part], part)
            s = self.forward(enc.sparse(part), cand)[-1]
            if base is not None:
                s = s + base[part]
            out[start : start + len(part)] = np.where(cand >= 0, s, -np.inf)
        return out


def loss_and_gradients(
    net: CardNet,
    x: np.ndarray | SparseInputs,
    cand: np.ndarray,
    present: np.ndarray,
    target: np.ndarray,
    base: np.ndarray | None = None,
) -> tuple[float, list[np.ndarray]]:
    """The loss of a batch (mean over decisions of the squared errors of the centred
    scores of the legal cards ``present`` against ``target``, the centred values) and
    its gradients, in the order of ``net.params()``.  ``base`` (B, K): scores the
    network's are added to (a residual network), constants of the fit."""
    n1, n2 = net.w2.shape
    z1, z2, a1, a2, s = net.forward(x, cand)
    loss, g = centred_error(s, present, target, base)
    if net.candidate_input:
        g_w3 = np.einsum("bk,bkh->h", g, a2)[:, None]
        g_b3 = np.zeros(1, net.w1.dtype)  # a common shift of the scores: no gradient
        g_z2 = g[:, :, None] * net.w3[:, 0] * (z2 > 0)
        g_w2 = a1.reshape(-1, n1).T @ g_z2.reshape(-1, n2)
        g_b2 = g_z2.sum(axis=(0, 1))
        g_z1 = (g_z2 @ net.w2.T) * (z1 > 0)  # (B, K, H1)
        g_acc = g_z1.sum(axis=1)
        onehot = np.zeros((cand.size, 129), net.w1.dtype)  # column 128: no card
        onehot[np.arange(cand.size), np.where(cand >= 0, cand, 128).ravel()] = 1.0
        g_wc = (onehot.T @ g_z1.reshape(-1, n1))[:128]
    else:
        g_full = np.zeros((len(x), 33), net.w1.dtype)  # column 32: the absent cards
        np.put_along_axis(g_full, np.where(cand >= 0, cand, 32), g, axis=1)
        g_out = g_full[:, :32]
        g_w3 = a2.T @ g_out
        g_b3 = g_out.sum(axis=0)
        g_z2 = (g_out @ net.w3.T) * (z2 > 0)
        g_w2 = a1.T @ g_z2
        g_b2 = g_z2.sum(axis=0)
        g_acc = (g_z2 @ net.w2.T) * (z1 > 0)
    g_w1 = first_layer_gradient(x, g_acc)
    g_b1 = g_acc.sum(axis=0)
    grads = [g_w1, g_b1, g_w2, g_b2, g_w3, g_b3]
    if net.candidate_input:
        grads.append(g_wc)
    return loss, grads


def centred_error(
    scores: np.ndarray, present: np.ndarray, target: np.ndarray, base: np.ndarray | None
) -> tuple[float, np.ndarray]:
    """The loss of a batch of decisions -- the mean over decisions of the summed
    squared errors of the centred scores (``scores`` + ``base``) of the legal cards
    ``present`` against ``target``, the centred values (card points) -- and its
    derivative by each score (B, K)."""
    m = present.astype(scores.dtype)
    s = scores if base is None else scores + base
    s = s * m
    mean_s = s.sum(axis=1) / present.sum(axis=1)
    err = (s - mean_s[:, None] - target) * m
    g = 2.0 * err / len(s)  # d loss / d score (the mean's term: err sums to 0)
    return float((err * err).sum()) / len(s), g


#: A suit's card inputs in ``SuitNet``: each of its 8 ranks' ``N_FACTS``.
SUIT_INPUTS = 8 * N_FACTS


def suit_roles(enc: Encoded, rows: np.ndarray) -> np.ndarray:
    """(r, 4) the role (``N_ROLES``) of each absolute suit in ``rows``."""
    kind = enc.globals_[rows, :3].argmax(axis=1)  # 0 suit contract, 1 NT, 2 AT
    trump = enc.slot[rows] == 0  # the trump suit takes slot 0 in a suit contract
    return np.where(kind[:, None] == 0, np.where(trump, 0, 1), kind[:, None] + 1)


def suit_inputs(enc: Encoded, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The card inputs of ``rows`` per suit, as (row, index) pairs: input ``index``
    (rank * N_FACTS + fact) of suit row ``4 * b + suit`` is 1."""
    place = enc.place[rows].astype(np.int64)
    imp = enc.impossible[rows].astype(np.int64)
    n = len(place)
    suit_row = 4 * np.arange(n)[:, None] + (np.arange(32) >> 3)
    base = (np.arange(32) & 7) * N_FACTS
    row_parts = [suit_row.reshape(-1)]
    index_parts = [(base + place).reshape(-1)]
    for j in range(3):
        r, c = np.nonzero((imp >> j) & 1)
        row_parts.append(suit_row[r, c])
        index_parts.append(base[c] + N_PLACES + j)
    return np.concatenate(row_parts), np.concatenate(index_parts)


@dataclass
class SuitNet:
    """A card network whose first layer reads one suit at a time, with the same
    weights for every suit (suit-symmetric by construction, and each weight fitted on
    four suits' data):

    * per suit, ``u = ws`` rows of its 8 cards' facts ``+ wr[role]``, ``a = relu(u)``
      (the accumulator: one vector per suit, updated per card);
    * the table's context ``ctx = sum of the 4 suits' a`` and the globals'
      ``gh = relu(globals @ wg + bg)``;
    * per legal card (suit s, rank k): ``z = relu(a_s @ wa + ctx @ wb + gh @ wc +
      wk[role(s) * 8 + k] + b2)``, its score ``z @ wo`` (card points).

    Hidden sizes: ``ws`` (SUIT_INPUTS, Hs), ``wg`` (N_GLOBALS, Hg), ``wa``/``wb``/``wc``
    to H2."""

    ws: np.ndarray
    wr: np.ndarray
    wg: np.ndarray
    bg: np.ndarray
    wa: np.ndarray
    wb: np.ndarray
    wc: np.ndarray
    wk: np.ndarray
    b2: np.ndarray
    wo: np.ndarray
    log: list[dict[str, float]] = field(default_factory=list)

    @classmethod
    def new(cls, rng: np.random.Generator, hidden: tuple[int, int, int]) -> SuitNet:
        """Random initial weights (float32) for hidden sizes (Hs, Hg, H2)."""
        hs, hg, h2 = hidden

        def normal(shape: tuple[int, ...], scale: float) -> np.ndarray:
            return (rng.standard_normal(shape) * scale).astype(np.float32)

        return cls(
            normal((SUIT_INPUTS, hs), np.sqrt(2.0 / 10)), np.zeros((N_ROLES, hs), np.float32),
            normal((N_GLOBALS, hg), np.sqrt(2.0 / 7)), np.zeros(hg, np.float32),
            normal((hs, h2), np.sqrt(2.0 / hs)), normal((hs, h2), np.sqrt(0.5 / hs)),
            normal((hg, h2), np.sqrt(2.0 / hg)), np.zeros((N_ROLES * 8, h2), np.float32),
            np.zeros(h2, np.float32), normal((h2,), np.sqrt(1.0 / h2)),
        )  # fmt: skip

    def params(self) -> list[np.ndarray]:
        return [self.ws, self.wr, self.wg, self.bg, self.wa, self.wb, self.wc, self.wk,
                self.b2, self.wo]  # fmt: skip

    def zero_output(self) -> None:
        """Set the last layer to 0 (a residual network starts from the other model)."""
        self.wo[:] = 0.0

    def forward(self, enc: Encoded, cards: np.ndarray, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The layers of decisions ``rows`` for their absolute cards ``cards`` (r, K)
        (-1: none); ``"score"`` (r, K)."""
        n, hs = len(rows), self.ws.shape[1]
        role = suit_roles(enc, rows)
        row, index = suit_inputs(enc, rows)
        u = np.zeros((4 * n, hs), self.ws.dtype)
        gather_pair_rows(row, index, self.ws, u)
        u = u.reshape(n, 4, hs) + self.wr[role]
        a = np.maximum(u, 0.0)
        ctx = a.sum(axis=1)
        pg = enc.globals_[rows].astype(self.wg.dtype) @ self.wg + self.bg
        gh = np.maximum(pg, 0.0)
        card = np.maximum(cards, 0)
        suit, rank = card >> 3, card & 7
        a_k = np.take_along_axis(a, suit[:, :, None], axis=1)  # (n, K, Hs)
        k_row = np.take_along_axis(role, suit, axis=1) * 8 + rank
        p = a_k @ self.wa + (ctx @ self.wb + gh @ self.wc + self.b2)[:, None, :] + self.wk[k_row]
        z = np.maximum(p, 0.0)
        return {"role": role, "row": row, "index": index, "u": u, "a": a, "ctx": ctx,
                "pg": pg, "gh": gh, "suit": suit, "a_k": a_k, "k_row": k_row, "p": p, "z": z,
                "score": z @ self.wo}  # fmt: skip

    def gradients(
        self, enc: Encoded, rows: np.ndarray, f: dict[str, np.ndarray], g: np.ndarray
    ) -> list[np.ndarray]:
        """The weights' gradients (order of ``params``) given ``forward``'s layers
        ``f`` and the loss's derivative by each score ``g`` (r, K; 0 for no card)."""
        n, hs = len(rows), self.ws.shape[1]
        g = g.astype(self.wo.dtype)
        g_wo = np.einsum("bk,bkh->h", g, f["z"])
        dp = g[:, :, None] * self.wo * (f["p"] > 0)  # (n, K, H2)
        h2 = dp.shape[2]
        g_wa = f["a_k"].reshape(-1, hs).T @ dp.reshape(-1, h2)
        sum_dp = dp.sum(axis=1)
        g_wb = f["ctx"].T @ sum_dp
        g_wc = f["gh"].T @ sum_dp
        g_b2 = sum_dp.sum(axis=0)
        g_wk = np.zeros_like(self.wk)
        scatter_pair_rows(np.arange(dp.shape[0] * dp.shape[1]), f["k_row"].reshape(-1),
                      dp.reshape(-1, h2), g_wk)  # fmt: skip
        da_k = dp @ self.wa.T  # (n, K, Hs)
        da = np.zeros((n, 4, hs), self.ws.dtype)
        b = np.arange(n)
        for k in range(da_k.shape[1]):  # each decision once per k: no index repeats
            da[b, f["suit"][:, k]] += da_k[:, k]
        da += (sum_dp @ self.wb.T)[:, None, :]  # through the context, to every suit
        du = da * (f["u"] > 0)
        g_ws = np.zeros_like(self.ws)
        scatter_pair_rows(f["row"], f["index"], du.reshape(-1, hs), g_ws)
        g_wr = np.zeros_like(self.wr)
        scatter_pair_rows(np.arange(4 * n), f["role"].reshape(-1), du.reshape(-1, hs), g_wr)
        dpg = (sum_dp @ self.wc.T) * (f["pg"] > 0)
        g_wg = enc.globals_[rows].astype(self.wg.dtype).T @ dpg
        g_bg = dpg.sum(axis=0)
        return [g_ws, g_wr, g_wg, g_bg, g_wa, g_wb, g_wc, g_wk, g_b2, g_wo]

    def suit_accumulators(self, enc: Encoded, rows: np.ndarray) -> np.ndarray:
        """(r, 4, Hs) the first layer of each suit, ``u``, recomputed from every input."""
        n, hs = len(rows), self.ws.shape[1]
        row, index = suit_inputs(enc, rows)
        u = np.zeros((4 * n, hs), self.ws.dtype)
        gather_pair_rows(row, index, self.ws, u)
        return u.reshape(n, 4, hs) + self.wr[suit_roles(enc, rows)]

    def accumulate(self, enc: Encoded, order: np.ndarray) -> tuple[np.ndarray, int]:
        """``suit_accumulators`` of rows ``order`` (successive positions of one
        perspective, e.g. a seat's decisions in one deal) kept incrementally: a card
        whose facts changed since the previous row subtracts its old rows from and
        adds its new rows to its own suit's vector only -- the weights are the same
        for every suit, so no suit order is kept.  Returns (R', 4, Hs) and the number
        of card updates after the first row."""
        hs = self.ws.shape[1]
        sums = np.zeros((4, hs), self.ws.dtype)
        prev_place = np.full(32, -1)
        prev_imp = np.zeros(32, np.int64)
        out = np.zeros((len(order), 4, hs), self.ws.dtype)
        updates = 0
        for i, r in enumerate(order):
            for card in range(32):
                place, imp = int(enc.place[r, card]), int(enc.impossible[r, card])
                if place == prev_place[card] and imp == prev_imp[card]:
                    continue
                # the suit layer's rows of a card: its rank's (rank * N_FACTS + fact)
                if prev_place[card] >= 0:
                    sums[card >> 3] -= _card_rows(self.ws, card & 7, prev_place[card],
                                                  prev_imp[card])  # fmt: skip
                sums[card >> 3] += _card_rows(self.ws, card & 7, place, imp)
                updates += i > 0
                prev_place[card], prev_imp[card] = place, imp
            out[i] = sums + self.wr[suit_roles(enc, np.array([r]))[0]]
        return out, updates

    def batch_loss(
        self,
        enc: Encoded,
        cards: np.ndarray,
        rows: np.ndarray,
        present: np.ndarray,
        target: np.ndarray,
        base: np.ndarray | None,
    ) -> tuple[float, list[np.ndarray]]:
        """The loss of decisions ``rows`` (``centred_error``) and its gradients."""
        f = self.forward(enc, cards[rows], rows)
        loss, g = centred_error(f["score"], present, target, base)
        return loss, self.gradients(enc, rows, f, g)

    def scores(
        self, enc: Encoded, cards: np.ndarray, rows: np.ndarray, base: np.ndarray | None = None
    ) -> np.ndarray:
        """(len(rows), K) scores of the absolute cards ``cards[rows]`` (-inf: none), as
        ``CardNet.scores``."""
        out = np.empty((len(rows), cards.shape[1]))
        for start in range(0, len(rows), 20_000):
            part = rows[start : start + 20_000]
            s = self.forward(enc, cards[part], part)["score"]
            if base is not None:
                s = s + base[part]
            out[start : start + len(part)] = np.where(cards[part] >= 0, s, -np.inf)
        return out


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
    weight_decay: float = 0.0,
    base: np.ndarray | None = None,
    valid: np.ndarray | None = None,
    suits: tuple[int, int, int] | None = None,
) -> CardNet | SuitNet:
    """Fit a ``CardNet`` on decisions ``rows`` (Adam, squared error of the centred
    scores against the centred values, as ``expert_training.fit_hidden``; the rate
    halved over each of the last three passes).

    ``weight_decay``: each pass shrinks the weight matrices (not the biases) by this
    share per step times the rate (decoupled, as AdamW).  ``base`` (R, K): scores of
    another model (card points) the network's are added to -- the network then fits
    what that model misses (a residual).  ``valid``: rows of fitted deals kept out of
    the fit; after each pass they are scored and the weights of the best pass are the
    ones returned (with ``valid`` None, the last pass's).  ``check``: (rows, values)
    scored after each pass for the log only (never used to choose anything).
    ``suits``: fit a ``SuitNet`` of these hidden sizes (Hs, Hg, H2) instead (``hidden``
    and ``candidate_input`` then unused)."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    h1, h2 = hidden
    n_out = 1 if candidate_input else 32
    net: CardNet | SuitNet = CardNet(
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
    if suits is not None:
        net = SuitNet.new(rng, suits)
    if base is not None:
        net.zero_output()  # a residual starts from the other model alone
    present = values >= 0
    n_legal = present.sum(axis=1)
    mean_v = np.where(present, values, 0).sum(axis=1) / n_legal
    target = np.where(present, values - mean_v[:, None], 0.0).astype(f32)
    base32 = None if base is None else np.where(present, base, 0.0).astype(f32)
    params = net.params()
    decays = [p.ndim == 2 for p in params]  # weight matrices only
    moment1 = [np.zeros_like(p) for p in params]
    moment2 = [np.zeros_like(p) for p in params]
    step = 0
    best_loss, best = np.inf, [p.copy() for p in params]
    start_time = time.perf_counter()
    if valid is not None and base is not None:
        # the other model alone: a residual fit returns it unchanged unless a pass does better
        best_loss = points_lost(net.scores(enc, cards, valid, base), values[valid])["points_lost"]
        net.log.append({"epoch": 0, "valid_points_lost": best_loss})
        print(net.log[-1], flush=True)
    for epoch in range(epochs):
        rate = learning_rate * 0.5 ** max(0, epoch - (epochs - 3))
        order = rows[rng.permutation(len(rows))]
        total = 0.0
        for start in range(0, len(order), batch):
            i = order[start : start + batch]
            loss, grads = net.batch_loss(
                enc, cards, i, present[i], target[i], None if base32 is None else base32[i]
            )
            total += loss * len(i)
            step += 1
            for p, gp, m1, m2, decay in zip(params, grads, moment1, moment2, decays):
                m1 *= 0.9
                m1 += 0.1 * gp
                m2 *= 0.999
                m2 += 0.001 * gp * gp
                if decay and weight_decay:
                    p *= 1.0 - rate * weight_decay
                p -= rate * (m1 / (1 - 0.9**step)) / (np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
        entry: dict[str, float] = {
            "epoch": epoch + 1,
            "train_mse": round(total / len(order), 3),
            "seconds": round(time.perf_counter() - start_time, 1),
        }
        if valid is not None:
            lost = points_lost(net.scores(enc, cards, valid, base), values[valid])["points_lost"]
            entry["valid_points_lost"] = lost
            if lost < best_loss:
                best_loss, best = lost, [p.copy() for p in params]
        if check is not None:
            check_rows, check_values = check
            entry["check_points_lost"] = points_lost(
                net.scores(enc, cards, check_rows, base), check_values
            )["points_lost"]
        net.log.append(entry)
        print(entry, flush=True)
    if valid is not None:
        for p, b in zip(params, best):
            p[:] = b
    return net


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` (as float32) as the bytes of an ``.npz`` file that depend on the
    arrays only (``np.savez`` stamps each member with the time of writing)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array, np.float32))
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def ship_suit_net(net: SuitNet, training: str, package: Path | None = None) -> str:
    """Make ``net`` the ``expert`` policy's suit network (model 3): its arrays into
    ``belote_sim/data/suit_net.npz`` and that file's SHA-256 and ``training`` (how the
    weights were fitted, for the module's docstring) into
    ``kernels/suit_net_weights.py``, so that every kernel that bakes the weights in is
    compiled again (``kernels._cache``).  ``package``: the ``belote_sim`` folder to
    write into (default: this one).  Returns the hash."""
    root = Path(__file__).resolve().parent.parent if package is None else Path(package)
    data = npz_bytes(dict(zip(SUIT_NET_NAMES, net.params(), strict=True)))
    digest = hashlib.sha256(data).hexdigest()
    (root / "data" / "suit_net.npz").write_bytes(data)
    module = root / "kernels" / "suit_net_weights.py"
    text = module.read_text()
    text = re.sub(r'^SHA256 = "[0-9a-f]*"$', f'SHA256 = "{digest}"', text, count=1, flags=re.M)
    start = text.index("do not edit.\n\n") + len("do not edit.\n\n")
    end = text.index('\n"""', start)
    module.write_text(text[:start] + training.strip() + text[end:])
    return digest

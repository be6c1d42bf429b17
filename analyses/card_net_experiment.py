"""Issue 41: card networks over raw facts against the shipped ``expert`` network.

Question: does a network whose first layer reads raw card facts (every card: where it
is as far as the mover can know) lose fewer card points per decision than the shipped
network over 80 hand-made features, on the same held-out decisions?

1. Labels (``expert_training.label``): ``--deals`` deals per ruleset (``--rulesets``)
   played by the shipped ``expert`` network (``expert:0,0,32,0,2``, the policy of
   ``train_expert.py``'s last rounds) with a share ``--explore`` of random cards; every
   decision with two legal cards or more kept with each legal card's exact
   double-dummy value.  Saved in ``--workdir`` (reused when present).
2. Held-out split as ``train_expert.held_out`` (one decision in five, by deal and seat).
3. The shipped network (``expert_weights``: ``NET_WEIGHTS``, ``HIDDEN_*``) scored on
   the held-out decisions with ``expert_training.evaluate``.
4. The shipped shape (ridge + 64 hidden units, 8 passes) refitted on the same rows
   (``--baseline``), and the raw-facts network (``simulation.card_net``; the candidate
   as an input or one output per card, ``--candidate-input``; played cards with or
   without their trick's number, ``--trick-numbers``) trained on the other four in five
   (or a share of them by deal, ``--train-share``; seeded) and scored with the same
   metric, overall, per ruleset and on the suit contracts' first four tricks (fewer
   than 16 cards played), each paired against the shipped network on the same
   decisions (mean difference and its s.e.); the raw-facts network also on 150,000 of
   its own rows.  ``--suits Hs,Hg,H2``: the one-suit-at-a-time ``card_net.SuitNet``
   instead of the flat network; ``--residual 1``: fitted on top of the shipped
   network's scores; ``--valid-share``: the best pass on validation deals kept;
   ``--more-labels``: further label sets (other seeds), fitted on only; each set is
   encoded as it is loaded and its observations dropped, but for the held-out rows
   (``lean_sets``: six sets of 1.5 million decisions fit in 24 GB).
5. The flat network's incremental accumulator (``card_net.accumulate``) with the
   trained first layer against the full recompute, on each seat's decisions in 50
   held-out deals.
6. ``--ship``: the fitted ``SuitNet`` installed as the ``expert``'s model 3
   (``card_net.ship_suit_net``: ``belote_sim/data/suit_net.npz`` and its hash).

Writes ``--out`` (JSON).  Deterministic for a given ``--seed`` (``SeedSequence([seed,
i])`` for ruleset i; the network's own seed ``seed * 1000 + 41``), up to float32 sums.

    python analyses/card_net_experiment.py [--deals 20000] [--seed 41] [--epochs 12]
        [--candidate-input 1] [--trick-numbers 1] [--train-share 1] [--baseline 1]
        [--suits 128,32,64] [--residual 0] [--valid-share 0.1] [--more-labels 42] [--ship]

Results: docs/benchmarks.md, "A card network over raw facts (issue 41, first step)",
"..., second step: one suit at a time", "..., third step: the suit network in play",
"..., fourth step: a third label set, two tries at speed" and "..., fifth step: a
cheaper kernel, a narrower network tried again".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields

# The fit's matrices are small (a batch of 1,024 decisions): BLAS threads gain nothing
# there and, on a shared 2-core machine, spin against each other (5x slower measured).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # after the thread settings, which numpy reads at import

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from belote_sim.simulation import card_net
from belote_sim.simulation.expert_training import (
    N_SITUATIONS,
    OBS_DEAL,
    OBS_N_PLAYED,
    OBS_SEAT,
    OBS_STRAIN,
    class_rows,
    evaluate,
    features,
    fit,
    fit_hidden,
    label,
    points_lost,
    shipped_models,
)

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "output")
SHIPPED_PLAY = "expert:0,0,32,0,2"  # the shipped network (as train_expert.MODEL_PLAY)


def held_out(deal: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The held-out fifth (by deal and seat), the rule of ``train_expert.held_out``."""
    return (deal * 7919 + seat) % 5 == 0


def labelled(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(obs, values, cards, seconds spent labelling) of ``--deals`` deals per ruleset."""
    path = os.path.join(args.workdir, f"labels_seed{args.seed}_{args.deals}_{args.rulesets}.npz")
    if os.path.exists(path):
        with np.load(path, allow_pickle=False) as z:
            return z["obs"], z["values"], z["cards"], float(z["seconds"])
    start = time.perf_counter()
    rulesets = args.rulesets.split(",")
    seeds = [np.random.SeedSequence([args.seed, i]) for i in range(len(rulesets))]
    with ThreadPoolExecutor(len(rulesets)) as pool:
        parts = list(
            pool.map(
                lambda i: label(args.deals, rulesets[i], SHIPPED_PLAY, args.explore, seeds[i]),
                range(len(rulesets)),
            )
        )
    obs = np.concatenate([p[0] for p in parts])
    values = np.concatenate([p[1] for p in parts])
    cards = np.concatenate([p[2] for p in parts])
    # deal numbers unique across rulesets (for the held-out split)
    obs[:, OBS_DEAL] += np.repeat(np.arange(len(parts)) * 1_000_000, [len(p[0]) for p in parts])
    seconds = time.perf_counter() - start
    os.makedirs(args.workdir, exist_ok=True)
    np.savez_compressed(path, obs=obs, values=values, cards=cards, seconds=seconds)
    return obs, values, cards, seconds


#: The observation columns kept for every row (deal, seat, strain, cards played): the
#: split and the report's subsets read them; the rest is encoded, then dropped.
KEPT_COLUMNS = [OBS_DEAL, OBS_SEAT, OBS_STRAIN, OBS_N_PLAYED]
#: Rows encoded at a time (``card_net.encode``'s temporaries take ~2 KB a row).
ENCODE_ROWS = 200_000


@dataclass
class LabelSets:
    """The label sets of ``--seed`` and ``--more-labels``, one after the other:
    ``cols`` (R, 4) the ``KEPT_COLUMNS``, ``cards`` / ``values`` (R, 8) int16,
    ``enc`` their raw facts (``card_net.encode``), ``extra`` (R,) True for rows of
    the further sets; ``kept_obs`` the whole observations of every row (``whole``)
    or of the first set's held-out rows only."""

    cols: np.ndarray
    cards: np.ndarray
    values: np.ndarray
    enc: card_net.Encoded
    extra: np.ndarray
    kept_obs: np.ndarray
    seconds: float
    encode_seconds: float


def encoded(obs: np.ndarray, trick_numbers: bool) -> list[card_net.Encoded]:
    """``card_net.encode`` of ``obs`` in parts of ``ENCODE_ROWS`` rows (the same
    numbers as at once: every row is encoded on its own)."""
    return [
        card_net.encode(obs[start : start + ENCODE_ROWS], trick_numbers=trick_numbers)
        for start in range(0, len(obs), ENCODE_ROWS)
    ]


def lean_sets(args: argparse.Namespace, whole: bool) -> LabelSets:
    """Load (or make) every label set and keep only what the fit reads: ~300 bytes a
    decision instead of ~1.3 KB (the observations, 360 bytes a row, kept only where
    ``whole``), so that six sets of 1.5 million decisions fit in a 24 GB machine."""
    seeds = [args.seed] + [int(x) for x in args.more_labels.split(",") if x]
    cols, cards, values, enc, extra, kept = [], [], [], [], [], []
    seconds = encode_seconds = 0.0
    for k, seed in enumerate(seeds):
        obs, set_values, set_cards, set_seconds = labelled(
            argparse.Namespace(**{**vars(args), "seed": seed})
        )
        if k == 0:
            print(f"{len(obs):,} decisions labelled in {set_seconds:.0f} s", flush=True)
        else:
            obs[:, OBS_DEAL] += k * 10_000_000  # deal numbers unique across the sets
            print(f"{len(obs):,} more decisions (seed {seed})", flush=True)
        seconds += set_seconds
        if np.abs(set_values).max() >= 2**15:  # card points: never near; kept as int16
            raise ValueError(f"label set {seed}: a value beyond int16 ({np.abs(set_values).max()})")
        cols.append(obs[:, KEPT_COLUMNS])
        cards.append(set_cards.astype(np.int16))
        values.append(set_values.astype(np.int16))
        start = time.perf_counter()
        enc += encoded(obs, bool(args.trick_numbers))
        encode_seconds += time.perf_counter() - start
        extra.append(np.full(len(obs), k > 0))
        if whole:
            kept.append(obs)
        elif k == 0:
            kept.append(obs[held_out(obs[:, OBS_DEAL], obs[:, OBS_SEAT])])
        del obs, set_values, set_cards
    return LabelSets(
        np.concatenate(cols), np.concatenate(cards), np.concatenate(values),
        card_net.Encoded(*(np.concatenate([getattr(e, f.name) for e in enc])
                           for f in fields(card_net.Encoded))),
        np.concatenate(extra), np.concatenate(kept), seconds, encode_seconds,
    )  # fmt: skip


def lost_per_decision(scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Card points each decision's best-scored legal card loses to a best card (the
    per-decision terms of ``points_lost``)."""
    scores = np.where(values >= 0, scores, -np.inf)
    got = values[np.arange(len(values)), scores.argmax(axis=1)]
    return (values.max(axis=1) - got).astype(np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000, help="deals per ruleset")
    parser.add_argument("--rulesets", default="common,bulgarian")
    parser.add_argument("--explore", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--workdir", default=os.path.join(OUTPUT, "card_net"))
    parser.add_argument("--hidden", default="128,32", help="units of the two hidden layers")
    parser.add_argument("--epochs", type=int, default=12, help="passes of the raw-facts fit")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="Adam's step")
    parser.add_argument(
        "--candidate-input",
        type=int,
        default=1,
        help="1: the candidate card is an input (a row added to the accumulator, one "
        "forward per legal card); 0: one output per slot card",
    )
    parser.add_argument(
        "--baseline",
        type=int,
        default=1,
        help="also refit the shipped architecture on the same rows (0: skip)",
    )
    parser.add_argument(
        "--train-share",
        type=float,
        default=1.0,
        help="fit the raw-facts network on this share of the fitting rows (by deal; a "
        "learning curve); the held-out rows are the same",
    )
    parser.add_argument(
        "--trick-numbers",
        type=int,
        default=1,
        help="0: played cards without the number of their trick (fewer inputs)",
    )
    parser.add_argument(
        "--weight-decay",
        type=float,
        default=0.0,
        help="decoupled weight decay of the raw-facts network's weight matrices (per step, "
        "times the rate)",
    )
    parser.add_argument(
        "--residual",
        type=int,
        default=0,
        help="1: the raw-facts network's scores are added to the shipped network's (it fits "
        "what the shipped network misses)",
    )
    parser.add_argument(
        "--valid-share",
        type=float,
        default=0.0,
        help="keep this share of the fitting rows (by deal) out of the fit and return the "
        "weights of the pass that loses least on them (0: the last pass)",
    )
    parser.add_argument(
        "--suits",
        default="",
        help="fit card_net.SuitNet (one suit at a time, shared weights) of these hidden "
        "sizes Hs,Hg,H2 instead of the flat network (e.g. 64,32,32)",
    )
    parser.add_argument(
        "--more-labels",
        default="",
        help="seeds of further label sets (the same --deals and --rulesets; made first when "
        "missing), all fitted on: more data, the same held-out decisions",
    )
    parser.add_argument("--out", default=os.path.join(OUTPUT, "card_net_experiment.json"))
    parser.add_argument("--label-only", action="store_true", help="stop after the labels")
    parser.add_argument(
        "--ship",
        action="store_true",
        help="install the fitted network as the expert's model 3 (card_net.ship_suit_net; "
        "needs --suits, --trick-numbers 0 and no --residual: what the kernel reads)",
    )
    args = parser.parse_args()
    if args.ship and not (args.suits and args.trick_numbers == 0 and not args.residual):
        parser.error("--ship needs --suits, --trick-numbers 0 and --residual 0")
    if args.label_only:
        obs, _, _, seconds = labelled(args)
        print(f"{len(obs):,} decisions labelled in {seconds:.0f} s", flush=True)
        return
    # the refit and the residual read every row's features (the whole observations
    # kept); otherwise only the held-out rows' are kept, the rest encoded and dropped
    whole = bool(args.baseline or args.residual)
    data = lean_sets(args, whole)
    cols, cards, values, enc, seconds = data.cols, data.cards, data.values, data.enc, data.seconds
    test = held_out(cols[:, 0], cols[:, 1]) & ~data.extra
    train_rows = np.flatnonzero(~test)
    test_rows = np.flatnonzero(test)
    deal, strain, n_played = cols[:, 0], cols[:, 2], cols[:, 3]
    if args.train_share < 1:
        train_rows = train_rows[deal[train_rows] % 1000 < args.train_share * 1000]
    valid_rows = None
    if args.valid_share > 0:
        in_valid = deal[train_rows] % 997 < args.valid_share * 997
        train_rows, valid_rows = train_rows[~in_valid], train_rows[in_valid]
    # the suit contracts' first four tricks (issue 27's gap), per ruleset
    subsets = {
        "all": np.ones(len(test_rows), bool),
        "suit_first_four_tricks": (strain[test_rows] < 4) & (n_played[test_rows] < 16),
    }
    for i, r in enumerate(args.rulesets.split(",")):
        subsets[r] = deal[test_rows] // 1_000_000 == i
    report: dict = {
        "command": "python analyses/card_net_experiment.py " + " ".join(sys.argv[1:]),
        "deals_per_ruleset": args.deals,
        "rulesets": args.rulesets,
        "decisions": len(cols),
        "train_decisions": len(train_rows),
        "train_share": args.train_share,
        "more_labels": args.more_labels,
        "valid_decisions": 0 if valid_rows is None else len(valid_rows),
        "weight_decay": args.weight_decay,
        "residual": bool(args.residual),
        "trick_numbers": bool(args.trick_numbers),
        "held_out_decisions": len(test_rows),
        "label_seconds": round(seconds, 1),
        "losses": {},
    }

    shipped_lost: list[np.ndarray] = []

    def score(name: str, scores: np.ndarray) -> None:
        lost = lost_per_decision(scores, values[test_rows])
        if not shipped_lost:
            shipped_lost.append(lost)
        for sub, sel in subsets.items():
            entry = points_lost(scores[sel], values[test_rows][sel])
            # paired against the shipped network on the same decisions: card points
            # per decision, mean and standard error
            diff = lost[sel] - shipped_lost[0][sel]
            entry["vs_shipped"] = round(float(diff.mean()), 4)
            entry["vs_shipped_se"] = round(float(diff.std(ddof=1) / np.sqrt(len(diff))), 4)
            report["losses"].setdefault(sub, {})[name] = entry
        print(name, {k: (v[name]["points_lost"], v[name]["vs_shipped"], v[name]["vs_shipped_se"])
                     for k, v in report["losses"].items()}, flush=True)  # fmt: skip

    # the shipped network (and its linear model) on the held-out decisions (on every
    # row when kept whole); features in parts: all rows' at once take 2.5 GB per
    # million decisions
    kept = data.kept_obs  # the observations of rows ``scored``
    scored = np.arange(len(cols)) if whole else test_rows
    net, shipped_linear, ply_stage = shipped_models()
    shipped_scores = np.zeros((len(scored), values.shape[1]))
    linear_scores = np.zeros((len(scored), values.shape[1]))
    rows = np.zeros(len(scored), np.int64)
    for start in range(0, len(scored), 100_000):
        part = slice(start, start + 100_000)
        feats, situations = features(kept[part], cards[scored[part]])
        rows[part] = class_rows(situations, kept[part], ply_stage)
        shipped_scores[part] = net.scores(feats, rows[part])
        linear_scores[part] = shipped_linear.scores(feats, rows[part])
    del feats
    at_test = test_rows if whole else np.arange(len(test_rows))
    score("shipped_network", shipped_scores[at_test])
    score("shipped_linear", linear_scores[at_test])
    # cross-check with evaluate (the metric train_expert prints)
    test_feats = features(kept[at_test], cards[test_rows])[0]
    report["shipped_network_evaluate"] = evaluate(test_feats, values[test_rows], rows[at_test], net)
    if args.baseline:
        start = time.perf_counter()
        n_classes = N_SITUATIONS * (int(ply_stage.max()) + 1)
        train_feats = features(kept[train_rows], cards[train_rows])[0]
        linear = fit(train_feats, values[train_rows], rows[train_rows], 1.0, n_classes)
        refit = fit_hidden(train_feats, values[train_rows], rows[train_rows], linear, 64, 8,
                           args.seed * 1000 + 27)  # fmt: skip
        del train_feats
        report["refit_seconds"] = round(time.perf_counter() - start, 1)
        score("features_refit_same_rows", refit.scores(test_feats, rows[test_rows]))
    del test_feats
    # the raw-facts network
    report["encode_seconds"] = round(data.encode_seconds, 1)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    suits = tuple(int(h) for h in args.suits.split(",")) if args.suits else None
    check = np.random.default_rng(0).choice(test_rows, min(20_000, len(test_rows)), replace=False)
    start = time.perf_counter()
    model = card_net.train(
        enc, cards, values, train_rows, np.random.SeedSequence([args.seed, 41]),
        hidden=hidden, epochs=args.epochs, learning_rate=args.learning_rate,
        candidate_input=bool(args.candidate_input),
        check=(check, values[check]), weight_decay=args.weight_decay,
        base=shipped_scores if args.residual else None, valid=valid_rows, suits=suits,
    )  # fmt: skip
    report["train_seconds"] = round(time.perf_counter() - start, 1)
    report["hidden"] = list(hidden)
    report["suits"] = list(suits) if suits else None
    report["epochs"] = args.epochs
    report["learning_rate"] = args.learning_rate
    report["candidate_input"] = bool(args.candidate_input)
    report["train_log"] = model.log
    base = shipped_scores if args.residual else None
    score("raw_facts_network", model.scores(enc, cards, test_rows, base))
    # the same metric on fitted rows (the gap to the held-out loss: over-fitting)
    own = np.random.default_rng(1).choice(train_rows, min(150_000, len(train_rows)), replace=False)
    report["raw_facts_network_own_rows"] = points_lost(
        model.scores(enc, cards, own, base), values[own]
    )
    weights = {k: v for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    np.savez_compressed(os.path.splitext(args.out)[0] + "_weights.npz", **weights)
    if args.ship and isinstance(model, card_net.SuitNet):
        report["shipped_sha256"] = card_net.ship_suit_net(model, _training_text(report))
    if not isinstance(model, card_net.CardNet):  # the accumulator check is the flat one's
        _write(report, args.out)
        return
    # the accumulator kept incrementally, with the trained first layer: one seat's
    # decisions through a deal, against the full recompute
    w1, b1 = model.w1.astype(np.float64), model.b1.astype(np.float64)
    worst, updates, steps = 0.0, 0, 0
    active = enc.active(test_rows[:1]).sum()
    for one_deal in np.unique(deal[test_rows])[:50]:
        for seat in range(4):
            order = np.flatnonzero((deal == one_deal) & (cols[:, 1] == seat))
            order = order[np.argsort(n_played[order])]
            if len(order) < 2:
                continue
            inc, n_updates = card_net.accumulate(enc, order, w1, b1)
            full = card_net.full_accumulator(card_net.Encoded(
                enc.place[order], enc.impossible[order], enc.slot[order], enc.globals_[order],
                enc.mover[order]), w1, b1)  # fmt: skip
            worst = max(worst, float(np.abs(inc - full).max()))
            updates += n_updates
            steps += len(order) - 1
    report["accumulator_check"] = {
        "max_abs_difference": worst,
        "card_updates_per_decision": round(updates / max(steps, 1), 2),
        "active_inputs_per_decision_example": int(active),
    }
    _write(report, args.out)


def _training_text(report: dict) -> str:
    """How a shipped network was fitted, for its weights module's docstring."""
    lost = report["losses"]["all"]
    return (
        f"Fitted by ``{report['command']}`` on {report['train_decisions']:,} decisions "
        f"({report['rulesets']}, {report['deals_per_ruleset']:,} deals per ruleset and "
        f"label set, extra label seeds: {report['more_labels'] or 'none'}; every legal "
        f"card labelled with its double-dummy value); hidden sizes {report['suits']}, "
        f"{report['epochs']} passes.  On {report['held_out_decisions']:,} held-out "
        f"decisions: {lost['raw_facts_network']['points_lost']:.3f} card points lost per "
        f"decision, the shipped feature network (model 2) "
        f"{lost['shipped_network']['points_lost']:.3f}."
    )


def _write(report: dict, path: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report["losses"], indent=1))


if __name__ == "__main__":
    main()

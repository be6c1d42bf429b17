"""One answer per hand (issue 23): ``hand`` prints the same table, header and best-call
rule whichever path (atlas or simulation) answers, says which path and why, never
ignores an option; ``atlas show CARDS``; ``atlas show --parquet``; the bidding duel's
``--option``.  Greedy play and small deal counts: the policy does not matter here."""

import json

import numpy as np
import pandas as pd
import pytest

import belote_sim.atlas as A
from belote_sim.atlas import (
    HAND_COLUMNS,
    answer_hand,
    best_call,
    build_atlas,
    hand_by_simulation,
    runner_up,
    strain_clear,
    strain_margin,
    within_noise,
)
from belote_sim.cards import parse_cards
from belote_sim.cli import main
from belote_sim.simulation.atlas_table import hand_classes, hand_keys
from belote_sim.simulation.runner import simulate

WEAK = "7C 8D 9S 7H 8C"  # every strain loses: the call is pass
STRONG = "JH 9H AH TH KH"  # hearts: a clear bid
HANDS = (WEAK, STRONG, "JC TD AD AH 9S")
RECORD_KEYS = set(HAND_COLUMNS) | {
    "best_call",
    "within_noise",
    "bid_clear",
    "runner_up",
    "strain_margin",
    "strain_margin_se",
    "strain_paired",
    "strain_clear",
    "reason",
    "position",
    "play",
}


def _no_nan(text):
    def refuse(name):
        raise AssertionError(f"{name} in JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def tiny_atlas(tmp_path_factory):
    """A greedy atlas holding only the cells of ``HANDS`` (every kind) at positions 1, 2."""
    rows = set()
    for strain in range(6):
        keys = hand_classes(0 if strain < 4 else strain - 3)[0]
        for text in HANDS:
            mask = sum(1 << c for c in parse_cards(text))
            rows.add(int(np.searchsorted(keys, hand_keys(np.array([mask]), strain)[0])))
    path = tmp_path_factory.mktemp("atlas") / "tiny.npz"
    build_atlas(
        path,
        play="greedy",
        seed=7,
        first_deals=400,
        max_deals=400,
        rounds=1,
        positions=(1, 2),
        class_rows=sorted(rows),
    )
    return path


def test_best_call_rule_and_noise():
    """pass unless a strain's net x1 is above 0; within noise: |net x1| < 1.96 s.e. of
    the chosen strain (of the best one for pass)."""

    def table(nets, ses):
        return pd.DataFrame({"strain": ["C", "D", "NT"], "net_mp_x1": nets, "net_mp_x1_se": ses})

    assert best_call(table([-9.1, -11.9, -16.2], [0.3] * 3)) == "pass"
    assert not within_noise(table([-9.1, -11.9, -16.2], [0.3] * 3))
    assert best_call(table([-0.1, -3.0, -2.0], [0.3] * 3)) == "pass"
    assert within_noise(table([-0.1, -3.0, -2.0], [0.3] * 3))
    assert best_call(table([0.35, -5.0, 0.2], [0.59, 0.5, 0.1])) == "C"
    assert within_noise(table([0.35, -5.0, 0.2], [0.59, 0.5, 0.1]))
    assert best_call(table([-1.0, 4.0, 2.0], [0.5, 0.5, 0.5])) == "D"
    assert not within_noise(table([-1.0, 4.0, 2.0], [0.5, 0.5, 0.5]))
    assert best_call(table([0.0, -1.0, -2.0], [0.5] * 3)) == "pass"


def test_strain_clear_paired_and_unpaired():
    """The best strain beats the runner-up clearly only beyond 1.96 s.e. of their
    difference: paired (vs_best) on the simulation path, unpaired from the atlas."""

    def table(nets, ses, vs=None, vs_se=None):
        nan = [float("nan")] * len(nets)
        return pd.DataFrame(
            {
                "strain": ["H", "S", "AT"],
                "net_mp_x1": nets,
                "net_mp_x1_se": ses,
                "vs_best": vs or nan,
                "vs_best_se": vs_se or nan,
            }
        )

    # the atlas's answer to 7H 8H 9H JH JS, bulgarian, position 4 (issue 39): AT +10.97
    # ± 1.21 over H +10.70 ± 0.78: 0.27 / sqrt(1.21**2 + 0.78**2) = 0.19 s.e.
    atlas = table([10.70, -2.39, 10.97], [0.78, 0.60, 1.21])
    assert runner_up(atlas) == "H"
    margin, se, paired = strain_margin(atlas)
    assert not paired and margin == pytest.approx(0.27) and se == pytest.approx(1.4397, abs=1e-4)
    assert strain_clear(atlas) is False
    # unpaired but far apart: 2.0 / sqrt(0.3**2 + 0.3**2) = 4.7 s.e.
    assert strain_clear(table([12.0, -2.0, 10.0], [0.3, 0.3, 0.3])) is True
    # paired: H best, AT 0.47 ± 0.15 behind on the same deals: 3.1 s.e., clear; the
    # unpaired s.e. of the same two values (0.55) would not have told them apart
    sim = table([11.17, -2.0, 10.70], [0.40, 0.4, 0.38], [0.0, -13.17, -0.47], [0.0, 0.5, 0.15])
    assert strain_margin(sim) == (pytest.approx(0.47), pytest.approx(0.15), True)
    assert strain_clear(sim) is True
    sim = table([11.17, -2.0, 10.97], [0.40, 0.4, 0.38], [0.0, -13.17, -0.20], [0.0, 0.5, 0.15])
    assert strain_clear(sim) is False
    assert strain_clear(atlas[:1]) is None  # a single strain: no runner-up


def test_shipped_atlas_does_not_call_close_strains_clear(capsys):
    """issue 39: bid-or-pass is clear for this hand, the choice between AT and H is not
    (from the atlas: cannot tell; run --simulate)."""
    args = ["hand", "7H 8H 9H JH JS", "--ruleset", "bulgarian", "--position", "4"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "bid-or-pass is clear" in out
    assert "cannot tell from the atlas" in out and "run --simulate" in out
    assert main([*args, "--json"]) == 0
    rows = _no_nan(capsys.readouterr().out)
    assert {(r["bid_clear"], r["strain_clear"], r["strain_paired"]) for r in rows} == {
        (True, False, False)
    }
    assert rows[0]["runner_up"] in ("H", "AT") and rows[0]["best_call"] in ("H", "AT")


def test_both_paths_give_the_same_columns_and_call(tiny_atlas):
    """The atlas and a simulation answer with the same columns and the same rule: a
    hand whose every strain loses is a pass on both paths (the simulation path used to
    name its best strain whatever its sign), a strong one a bid."""
    for hand, call in ((WEAK, "pass"), (STRONG, "H")):
        atlas = answer_hand(hand, 0, 3, play="greedy", atlas=tiny_atlas)
        sim = answer_hand(hand, 0, 3, play="greedy", deals=800, atlas=tiny_atlas)
        assert (atlas.source, sim.source) == ("atlas", "simulation")
        assert list(atlas.table.columns) == list(sim.table.columns) == list(HAND_COLUMNS)
        assert atlas.best_call == sim.best_call == call
        assert atlas.table["vs_best"].isna().all()
        best = sim.table.set_index("strain").loc[sim.best_strain]
        assert best["vs_best"] == 0 and (sim.table["vs_best"] <= 0).all()
        assert (sim.table["vs_best_se"] >= 0).all()
        for table in (atlas.table, sim.table):
            assert table[[c for c in HAND_COLUMNS if c.startswith("net")]].notna().all().all()
    weak = answer_hand(WEAK, 0, 3, play="greedy", deals=800, atlas=tiny_atlas)
    assert (weak.table["net_mp_x1"] < 0).all() and weak.best_call == "pass"


def test_simulation_scores_the_same_play_doubled():
    """x2 and x4 of the simulation path are the deals' play scored doubled and
    redoubled: exactly what a simulation with the contract doubled gives."""
    t = hand_by_simulation("JC TD AD AH 9S", seat=1, dealer=3, deals=300, play="greedy", seed=5)
    for strain, name in ((0, "C"), (4, "NT")):
        for doubling, x in ((1, 2), (2, 4)):
            df = simulate(
                300,
                bidding=f"fixed:1,{strain},{doubling}",
                play="greedy",
                seed=5,
                predeal={1: "JC TD AD AH 9S"},
                dealer=3,
            )
            net = (df["mp1"] - df["mp0"]).to_numpy(float)
            assert t.set_index("strain").loc[name, f"net_mp_x{x}"] == pytest.approx(net.mean())


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_cli_hand_prints_one_table_on_both_paths(tiny_atlas, capsys):
    base = ["hand", WEAK, "--position", "1", "--play", "greedy", "--atlas", str(tiny_atlas)]
    assert main(base) == 0
    atlas = _lines(capsys)
    assert main([*base, "--deals", "600"]) == 0
    sim = _lines(capsys)
    # the same header (position and seat in words, rules, players) and table header
    assert atlas[:2] == sim[:2]
    assert "position 1 of 4 (speaks first and leads; seat 0, dealer seat 3)" in atlas[0]
    assert "all four players play greedy (play spec greedy:1,1)" in atlas[1]
    path = [line for line in atlas if line.startswith(("from the atlas", "by simulation"))]
    assert len(path) == 1 and path[0].startswith("from the atlas tiny.npz: it covers these rules")
    path = [line for line in sim if line.startswith(("from the atlas", "by simulation"))]
    assert len(path) == 1 and path[0].startswith("by simulation (600 deals per strain")
    assert "--deals 600" in path[0]
    header = [line for line in atlas if line.startswith("strain")]
    assert header == [line for line in sim if line.startswith("strain")]
    assert all(w in header[0] for w in ("n", "P(made)", "net x1 ± s.e.", "net x4", "vs best"))
    for out in (atlas, sim):
        call = [line for line in out if line.startswith("best call:")]
        assert len(call) == 1 and call[0].startswith("best call: pass (no strain's net x1")
        assert "clear" in call[0]
    assert len([line for line in sim if line.endswith("best")]) == 1


def test_cli_hand_json_keys_and_validity(tiny_atlas, capsys):
    base = ["hand", "JC TD AD AH 9S", "--position", "1", "--play", "greedy", "--json"]
    assert main([*base, "--atlas", str(tiny_atlas)]) == 0
    atlas = _no_nan(capsys.readouterr().out)
    assert main([*base, "--simulate", "--deals", "300"]) == 0
    sim = _no_nan(capsys.readouterr().out)
    for rows, source in ((atlas, "atlas"), (sim, "simulation")):
        assert [r["strain"] for r in rows] == ["C", "D", "H", "S", "NT", "AT"]
        assert all(set(r) == RECORD_KEYS and r["source"] == source for r in rows)
        assert len({r["best_call"] for r in rows}) == 1
        assert len({r["within_noise"] for r in rows}) == 1
        assert isinstance(rows[0]["within_noise"], bool)
        assert rows[0]["position"] == 1 and rows[0]["play"] == "greedy:1,1"
    assert all(r["vs_best"] is None for r in atlas)
    assert "--simulate" in sim[0]["reason"]
    # french rules do not double: x2 and x4 are null, never NaN
    assert (
        main(
            ["hand", STRONG, "--ruleset", "french", "--play", "greedy", "--json"]
            + ["--deals", "200"]
        )
        == 0
    )
    rows = _no_nan(capsys.readouterr().out)
    assert [r["strain"] for r in rows] == ["C", "D", "H", "S"]
    assert all(r["net_mp_x2"] is None and r["net_mp_x4_se"] is None for r in rows)
    assert rows[0]["best_call"] == "H"


@pytest.mark.parametrize(
    "extra,words",
    [
        ([], "--seed"),  # with --seed 1
        (["--simulate"], "--simulate was given"),
        (["--ruleset", "bulgarian"], "the atlas covers the common rules, not the bulgarian"),
        (["--option", "kirtik=true"], "with kirtik=false, not kirtik=true"),
        (["--play", "random"], "the atlas's players play greedy:1,1, not random"),
        (["--position", "3"], "the atlas has no deals for this hand at position 3"),
        (["--cards8"], "the atlas holds 5-card bidding hands, not 8-card hands"),
    ],
)
def test_options_the_atlas_cannot_honour_make_hand_simulate(
    tiny_atlas, capsys, monkeypatch, extra, words
):
    """Each option the atlas path cannot honour makes ``hand`` simulate, and the path
    line says which; none is silently ignored."""
    monkeypatch.setattr(A, "HAND_DEALS", 200)
    hand = STRONG
    args = ["--play", "greedy", "--atlas", str(tiny_atlas)]
    if extra == ["--cards8"]:
        hand, extra = STRONG + " 7C 8C 9C", []
    if words == "--seed":
        extra = ["--seed", "1"]
        words = "--seed 1 was given"
    if "--position" not in extra:
        extra = [*extra, "--position", "1"]
    assert main(["hand", hand, *args, *extra, "--json"]) == 0
    rows = _no_nan(capsys.readouterr().out)
    assert {r["source"] for r in rows} == {"simulation"}
    assert words in rows[0]["reason"], rows[0]["reason"]
    assert rows[0]["n"] == 200


def test_hand_refuses_position_with_seat_or_dealer(capsys):
    assert main(["hand", STRONG, "--position", "2", "--dealer", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--position or --seat/--dealer" in err


def test_atlas_show_cards(tiny_atlas, capsys):
    """``atlas show CARDS`` answers a hand from the atlas: the table of ``hand``."""
    assert (
        main(["hand", STRONG, "--position", "2", "--play", "greedy", "--atlas", str(tiny_atlas)])
        == 0
    )
    hand = _lines(capsys)
    assert main(["atlas", "show", STRONG, "-o", str(tiny_atlas), "--position", "2"]) == 0
    show = _lines(capsys)
    assert show[:-1] == hand[:-1]  # all but the timing
    assert main(["atlas", "show", STRONG, "-o", str(tiny_atlas), "--strain", "h"]) == 0
    out = _lines(capsys)
    rows = [line for line in out if line[:3] in ("C  ", "D  ", "H  ", "S  ", "NT ", "AT ")]
    assert [r.split()[0] for r in rows] == ["H"] * 2  # every position it was built for
    for bad, words in (
        ([STRONG + " 7C 8C 9C"], "5-card bidding hands, not 8-card hands"),
        ([STRONG, "--play", "random"], "play greedy:1,1, not random"),
        ([STRONG, "--ruleset", "bulgarian"], "covers the common rules"),
        ([STRONG, "--csv", "x.csv"], "without CARDS"),
        (["--position", "1"], "for 'atlas show CARDS'"),
    ):
        assert main(["atlas", "show", *bad, "-o", str(tiny_atlas)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
    with pytest.raises(SystemExit) as stop:  # a show option: build's parser has none
        main(["atlas", "build", "--position", "1", "-o", "never.npz"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --position 1" in capsys.readouterr().err


def test_atlas_show_parquet(tiny_atlas, tmp_path, capsys):
    import pyarrow.parquet as pq

    out = tmp_path / "cells.parquet"
    assert main(["atlas", "show", "-o", str(tiny_atlas), "--parquet", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    table = pq.read_table(out)
    need = [
        "kind",
        "position",
        "hand",
        "multiplicity",
        "n",
        "p_made",
        "net_mp_x1",
        "net_mp_x1_se",
        "net_mp_x2",
        "net_mp_x4",
    ]
    assert set(need) <= set(table.column_names)
    meta = json.loads(table.schema.metadata[b"belote_sim_atlas"])
    assert meta["play"] == "greedy:1,1"
    df = table.to_pandas()
    assert set(df["kind"]) == {"suit", "NT", "AT"} and set(df["position"]) == {1, 2}
    assert (df["n"] == 400).all() and len(df) == 2 * sum(
        len(set(df.loc[df["kind"] == k, "key"])) for k in ("suit", "NT", "AT")
    )
    for r in df.itertuples():
        mask = sum(1 << c for c in parse_cards(r.hand))
        strain = {"suit": 0, "NT": 4, "AT": 5}[r.kind]  # suit classes: clubs trump
        assert int(hand_keys(np.array([mask]), strain)[0]) == r.key
        kind = {"suit": 0, "NT": 1, "AT": 2}[r.kind]
        keys, mult = hand_classes(kind)
        assert mult[np.searchsorted(keys, r.key)] == r.multiplicity
    # the cell of the strong hand with hearts trump is shown with clubs trump
    club = " ".join(sorted(STRONG.replace("H", "C").split()))
    assert set(club.split()) in [set(h.split()) for h in df.loc[df["kind"] == "suit", "hand"]]


def test_bidding_duel_honours_option_and_the_atlas_rules(tiny_atlas, capsys):
    base = ["duel", "--bid-a", "threshold", "--bid-b", "threshold:40", "--a", "greedy"]
    base += ["--deals", "400", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--option", "kirtik=true"]) == 0
    kirtik = json.loads(capsys.readouterr().out)
    assert plain["deals"] == kirtik["deals"] == 400 and plain["mean"] != kirtik["mean"]
    refused = ["duel", "--bid-a", f"atlas:{tiny_atlas}", "--bid-b", "threshold", "--a", "greedy"]
    assert main([*refused, "--deals", "10", "--option", "kirtik=true"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "covers the 'common' rules" in err
    assert main([*base, "--bid", "threshold"]) == 2
    assert "--bid-a and --bid-b only" in capsys.readouterr().err

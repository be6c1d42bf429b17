"""Bidding by a Python function (``bidding=callable``, ``--bid py:MODULE:FUNCTION``)."""

import pytest
from cli_run import one_line_error, run_cli

from belote_sim import simulate, simulate_games

# threshold's defaults and score, written here again from docs/rules.md (not imported)
SUIT, NT, AT, DOUBLE, REDOUBLE = 50, 52, 75, 60, 60
TRUMP = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
STRAINS = ["C", "D", "H", "S", "NT", "AT"]


def score(cards, strain):
    total = 0
    for card in cards:
        rank, suit = card[0], card[1]
        if strain == "NT":
            total += PLAIN[rank] + (5 if rank == "A" else 0)
        elif strain == "AT":
            total += TRUMP[rank] + (5 if rank == "J" else 0)
        elif suit == strain:
            total += TRUMP[rank] + 10
        elif rank == "A":
            total += 8
    return total


def like_threshold(view):
    """``threshold`` with its defaults, from what a bidding function is shown."""
    cards = view.cards.split()
    if view.current is not None:
        mine = score(cards, view.current)
        if view.holder == "opponent" and view.level == 0 and mine >= DOUBLE:
            return "double"
        if view.holder in ("partner", "me") and view.level == 1 and mine >= REDOUBLE:
            return "redouble"
    if view.current is None or view.holder == "opponent":
        first = 0 if view.current is None else STRAINS.index(view.current) + 1
        best, margin = None, 0
        for strain in STRAINS[first:]:
            m = score(cards, strain) - {"NT": NT, "AT": AT}.get(strain, SUIT)
            if (m >= 0 or view.must_bid) and (best is None or m > margin):
                best, margin = strain, m
        if best is not None:
            return best
    return "pass"


@pytest.mark.parametrize("ruleset", ["common", "bulgarian"])
def test_a_function_like_threshold_gives_threshold_table(ruleset):
    kw = dict(rules=ruleset, play="greedy", seed=4, threads=1)
    a = simulate(600, bidding="threshold", **kw)
    b = simulate(600, bidding=like_threshold, **kw)
    assert (a["auction"].str.contains("x")).sum() > 5
    assert a.equals(b)
    assert b.attrs["belote_sim"]["bidding"][0].endswith(":like_threshold")
    mixed = simulate(600, bidding=[like_threshold, "threshold"] * 2, **kw)
    assert a.equals(mixed)


def test_the_function_sees_the_view():
    seen = []

    def record(view):
        seen.append(view)
        return view.legal[-1] if view.round == 2 else "pass"

    df = simulate(20, rules="french", bidding=record, play="greedy", seed=1, threads=1)
    first = seen[0]
    assert first.ruleset == "french" and first.bidding == "two_round" and first.round == 1
    assert first.position == 1 and first.calls == "" and first.turned is not None
    assert len(first.cards.split()) == 5 and first.legal == ("pass", first.turned[1])
    assert all(len(v.cards.split()) == 5 for v in seen)
    assert (df["auction"].str.len() == 5).all()  # four passes, then the first of round two
    assert (df["strain"].notna()).all()


def test_an_illegal_call_is_one_clear_error():
    def always_double(view):
        return "double"

    with pytest.raises(ValueError) as info:
        simulate(5, bidding=always_double, play="greedy", seed=1, threads=1)
    message = str(info.value)
    assert "illegal call 'double'" in message and "deal 0, seat 1, auction ''" in message
    assert "always_double" in message and "legal: pass, C, D, H, S, NT, AT" in message


def test_an_exception_is_one_clear_error():
    def broken(view):
        if view.calls == "pp":
            return 1 / 0
        return "pass"

    with pytest.raises(ValueError) as info:
        simulate(5, bidding=broken, play="greedy", seed=1, threads=1)
    message = str(info.value)
    assert "raised ZeroDivisionError" in message and "deal 0, seat 3, auction 'pp'" in message


def test_games_are_refused():
    with pytest.raises(ValueError, match="not whole games"):
        simulate_games(2, bidding=like_threshold)


def test_command_line(tmp_path, monkeypatch):
    (tmp_path / "mysystem.py").write_text(
        "def bid(view):\n    return 'NT' if 'NT' in view.legal and view.calls == '' else 'pass'\n"
    )
    monkeypatch.chdir(tmp_path)
    rc, _out, err = run_cli(
        [
            "simulate",
            "--deals",
            "8",
            "--play",
            "greedy",
            "--bid",
            "py:mysystem:bid",
            "-o",
            "a.parquet",
        ]
    )
    assert rc == 0, err
    rc2, _out2, err2 = run_cli(
        [
            "simulate",
            "--deals",
            "8",
            "--play",
            "greedy",
            "--bid",
            f"py:{tmp_path}/mysystem.py:bid",
            "-o",
            "b.parquet",
        ]
    )
    assert rc2 == 0, err2
    rc, _, err = run_cli(
        ["simulate", "--deals", "8", "--bid", "py:mysystem:nothing", "-o", "c.parquet"]
    )
    one_line_error(rc, err, "mysystem has no function nothing")
    rc, _, err = run_cli(
        ["simulate", "--deals", "8", "--bid", "py:nosuchmodule:bid", "-o", "c.parquet"]
    )
    one_line_error(rc, err, "importing nosuchmodule failed")

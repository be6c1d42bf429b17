"""Bidding systems as data: rule files (TOML) read, checked and compiled for the kernels.

A rule file names, per auction situation, ordered rules ``{call, when, by}`` over the
bidding hand's features (docs/bidding_rules.md has the format and an example;
``kernels.bidding_rules`` evaluates the compiled arrays).  ``load_rule_book(path)``
reads one file into a ``RuleBook`` (a problem raises ``ValueError`` with one line
naming the file, the line where it is known, and the problem); ``book_arrays(books)``
stacks books into the kernels' arrays.  ``THRESHOLD_RULES`` is the shipped file that
bids exactly as ``threshold`` (and, in the french rounds, ``take``) with their default
parameters.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from belote_sim.input_limits import RULE_FILE_LIMIT, read_limited
from belote_sim.kernels import bidding_rules as K

__all__ = [
    "BIDDINGS",
    "CALLS",
    "FEATURES",
    "OPERATORS",
    "SITUATIONS",
    "THRESHOLD_RULES",
    "RuleBook",
    "book_arrays",
    "empty_book_arrays",
    "load_rule_book",
]

#: The shipped rule file of the ``threshold`` (auction, take-or-pass) and ``take``
#: (french) defaults.
THRESHOLD_RULES = Path(__file__).resolve().parent / "data" / "bidding" / "threshold.toml"

#: The situations of each bidding (TOML table -> situation -> ``SIT_*`` code).
SITUATIONS: dict[str, dict[str, int]] = {
    "auction": {
        "open": K.SIT_OPEN,
        "partner_bid": K.SIT_PARTNER_BID,
        "opponent_bid": K.SIT_OPPONENT_BID,
        "we_doubled": K.SIT_WE_DOUBLED,
        "they_doubled": K.SIT_THEY_DOUBLED,
        "we_redoubled": K.SIT_WE_REDOUBLED,
        "they_redoubled": K.SIT_THEY_REDOUBLED,
        "we_third": K.SIT_WE_THIRD,
        "they_third": K.SIT_THEY_THIRD,
    },
    "french": {"round1": K.SIT_ROUND1, "round2": K.SIT_ROUND2},
    "take_or_pass": {"open": K.SIT_TOP_OPEN, "taken": K.SIT_TOP_TAKEN},
}
#: Situations a file may leave out (they arise only with ``third_double``): pass.
OPTIONAL_SITUATIONS = {("auction", "we_third"), ("auction", "they_third")}
#: The bidding each TOML table is for (``Rules.bidding``).
BIDDINGS = {"auction": "auction", "french": "two_round", "take_or_pass": "take_or_pass"}
#: Situations without a contract: a pass rule there reads no strain feature.
_NO_CONTRACT = {K.SIT_OPEN, K.SIT_TOP_OPEN, K.SIT_ROUND2}

#: Feature name -> (code, needs a strain, meaning).
FEATURES: dict[str, tuple[int, bool, str]] = {
    "score": (K.F_SCORE, True, "threshold's bidding score of the strain (THRESHOLD_SCORE_FORMULA)"),
    "margin": (K.F_MARGIN, True, "score minus the strain's threshold (the [thresholds] table)"),
    "trumps": (K.F_TRUMPS, True, "cards of the strain's suit (AT: every card; NT: 0)"),
    "trump_jack": (K.F_TRUMP_JACK, True, "holds the strain's J (NT/AT: how many jacks)"),
    "trump_nine": (K.F_TRUMP_NINE, True, "holds the strain's 9 (NT/AT: how many nines)"),
    "trump_ace": (K.F_TRUMP_ACE, True, "holds the strain's A (NT/AT: how many aces)"),
    "trump_ten": (K.F_TRUMP_TEN, True, "holds the strain's 10 (NT/AT: how many tens)"),
    "side_aces": (K.F_SIDE_ACES, True, "aces outside the strain's suit (NT/AT: all aces)"),
    "is_suit": (K.F_IS_SUIT, True, "1 if the strain is a suit"),
    "is_nt": (K.F_IS_NT, True, "1 if the strain is NT"),
    "is_at": (K.F_IS_AT, True, "1 if the strain is AT"),
    "is_turned": (K.F_IS_TURNED, True, "1 if the strain is the french turned card's suit"),
    "partner_bid_it": (K.F_PARTNER_BID_IT, True, "1 if partner has bid the strain"),
    "opponents_bid_it": (K.F_OPPONENTS_BID_IT, True, "1 if an opponent has bid the strain"),
    "i_bid_it": (K.F_I_BID_IT, True, "1 if the bidder has bid the strain"),
    "is_current": (K.F_IS_CURRENT, True, "1 if the strain is the current contract's"),
    "aces": (K.F_ACES, False, "aces held"),
    "tens": (K.F_TENS, False, "tens held"),
    "jacks": (K.F_JACKS, False, "jacks held"),
    "nines": (K.F_NINES, False, "nines held"),
    "points": (K.F_POINTS, False, "plain card points held (A 11, T 10, K 4, Q 3, J 2)"),
    "longest": (K.F_LONGEST, False, "length of the longest suit"),
    "cards": (K.F_CARDS, False, "cards seen (5; 6 with the french turned card)"),
    "position": (K.F_POSITION, False, "1 = first to speak after the dealer .. 4 = dealer"),
    "n_calls": (K.F_N_CALLS, False, "calls made so far"),
    "level": (K.F_LEVEL, False, "doubling level of the current contract (0..3)"),
    "current_kind": (K.F_CURRENT_KIND, False, "current contract: none -1, suit 0, nt 1, at 2"),
    "must_bid": (K.F_MUST_BID, False, "1 if the dealer must take (dealer_must_take)"),
    "partner_bids": (K.F_PARTNER_BIDS, False, "strains partner has bid"),
    "opponent_bids": (K.F_OPPONENT_BIDS, False, "strains the opponents have bid"),
    "my_bids": (K.F_MY_BIDS, False, "strains the bidder has bid"),
    "partner_kind": (K.F_PARTNER_KIND, False, "partner's highest bid: none -1, suit 0, nt 1, at 2"),
    "opponent_kind": (
        K.F_OPPONENT_KIND,
        False,
        "the opponents' highest bid: none -1, suit 0, nt 1, at 2",
    ),
    "turned_points": (K.F_TURNED_POINTS, False, "trump points of the french turned card"),
}
#: Names a condition may compare a kind feature with.
KIND_VALUES = {"none": -1, "suit": 0, "nt": 1, "at": 2}
OPERATORS = {">=": K.OP_GE, ">": K.OP_GT, "<=": K.OP_LE, "<": K.OP_LT, "==": K.OP_EQ}
OPERATORS["!="] = K.OP_NE
#: Call name -> (action, a strain condition it adds, the situations it is legal in).
_BIDS = {code for table in ("auction", "take_or_pass") for code in SITUATIONS[table].values()}
CALLS: dict[str, tuple[int, str | None, set[int]]] = {
    "pass": (K.ACT_PASS, None, set(range(K.NUM_SITUATIONS))),
    "best": (K.ACT_BEST, None, _BIDS | {K.SIT_ROUND1, K.SIT_ROUND2}),
    "NT": (K.ACT_BEST, "is_nt == 1", _BIDS | {K.SIT_ROUND2}),
    "AT": (K.ACT_BEST, "is_at == 1", _BIDS | {K.SIT_ROUND2}),
    "take": (K.ACT_BEST, None, {K.SIT_ROUND1}),
    "double": (K.ACT_DOUBLE, None, {K.SIT_OPPONENT_BID}),
    "redouble": (K.ACT_REDOUBLE, None, {K.SIT_THEY_DOUBLED}),
    "third_double": (K.ACT_THIRD, None, {K.SIT_THEY_REDOUBLED}),
}
_THRESHOLD_KEYS = ("suit", "nt", "at")
#: ``threshold``'s default thresholds (suit, NT, AT): the ``margin`` default.
DEFAULT_THRESHOLDS = (50.0, 52.0, 75.0)
#: The most rules a rule file may hold (a real system has tens; the file's size limit
#: is ``input_limits.RULE_FILE_LIMIT``, 1 MiB)
MAX_RULES = 10_000
_CONDITION = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*(>=|<=|==|!=|>|<|=)\s*(\S+)\s*$")


@dataclass(frozen=True)
class RuleBook:
    """One compiled rule file: ``sits`` (NUM_SITUATIONS, 2) rule ranges (-1: not
    covered), ``rules`` (R, NUM_RULE_COLS), ``conds`` (C, 3), ``thresholds``
    (NUM_SITUATIONS, 3); ``biddings``: the ``Rules.bidding`` values it covers."""

    path: str
    name: str
    sits: np.ndarray
    rules: np.ndarray
    conds: np.ndarray
    thresholds: np.ndarray
    biddings: frozenset[str]


class _Problem(Exception):
    """A problem of a rule file, with the text to find its line by."""

    def __init__(self, message: str, token: str | None = None):
        super().__init__(message)
        self.token = token


def _line_of(text: str, token: str | None) -> int | None:
    if not token:
        return None
    for number, line in enumerate(text.splitlines(), 1):
        if token in line.split("#")[0]:
            return number
    return None


_CACHE: dict[tuple[str, int, int], RuleBook] = {}


def load_rule_book(path: str | os.PathLike) -> RuleBook:
    """Read and compile a rule file; ``ValueError`` with one line (the file, the line
    when known, the problem) for a file that cannot be used."""
    name = str(path)
    try:
        stat = os.stat(name)
        key = (os.path.abspath(name), stat.st_mtime_ns, stat.st_size)
        if key in _CACHE:
            return _CACHE[key]
        data = read_limited(name, RULE_FILE_LIMIT, "a rule file")
    except FileNotFoundError:
        raise ValueError(f"no rule file {name}") from None
    except IsADirectoryError:
        raise ValueError(f"{name} is a directory, not a rule file") from None
    except OSError as exc:
        raise ValueError(f"{name}: cannot read the rule file: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not a rule file (not UTF-8 text)") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column (\d+)\)", message)
        if found:
            message = message[: found.start()].strip()
            raise ValueError(
                f"{name}: line {found.group(1)}: not valid TOML: {message} "
                f"(column {found.group(2)})"
            ) from None
        raise ValueError(f"{name}: not valid TOML: {message}") from None
    try:
        book = _compile(name, doc)
    except _Problem as exc:
        line = _line_of(text, exc.token)
        where = f"line {line}: " if line else ""
        raise ValueError(f"{name}: {where}{exc}") from None
    _CACHE[key] = book
    return book


def _thresholds(value: Any, where: str, default: tuple[float, ...]) -> tuple[float, ...]:
    if not isinstance(value, dict):
        raise _Problem(f"{where} must be a table {{suit = .., nt = .., at = ..}}", where)
    unknown = set(value) - set(_THRESHOLD_KEYS)
    if unknown:
        bad = sorted(unknown)[0]
        raise _Problem(f"{where}: unknown key {bad!r} (expected suit, nt, at)", bad)
    out = list(default)
    for i, k in enumerate(_THRESHOLD_KEYS):
        if k in value:
            v = value[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
                raise _Problem(f"{where}.{k} must be a number, got {v!r}", k)
            out[i] = float(v)
    return tuple(out)


def _condition(text: Any, where: str) -> tuple[int, int, float, bool]:
    """``(feature, op, value, needs_strain)`` of one condition string."""
    if not isinstance(text, str):
        raise _Problem(f'{where}: a condition must be a string like "trumps >= 4", got {text!r}')
    m = _CONDITION.match(text)
    if not m:
        raise _Problem(
            f"{where}: cannot read the condition {text!r} (expected FEATURE OP NUMBER, "
            'e.g. "trumps >= 4")',
            text,
        )
    feat, op, value = m.groups()
    if feat not in FEATURES:
        raise _Problem(
            f"{where}: unknown feature {feat!r} in {text!r} (known: {', '.join(FEATURES)})", text
        )
    if op == "=":
        raise _Problem(f"{where}: bad operator '=' in {text!r} (use ==)", text)
    if op not in OPERATORS:  # pragma: no cover - the pattern admits only these
        raise _Problem(f"{where}: bad operator {op!r} in {text!r}", text)
    if value.lower() in KIND_VALUES:
        number = float(KIND_VALUES[value.lower()])
    else:
        try:
            number = float(value)
        except ValueError:
            raise _Problem(
                f"{where}: {value!r} in {text!r} is not a number (or none/suit/nt/at)", text
            ) from None
        if number != number or number in (float("inf"), float("-inf")):
            raise _Problem(f"{where}: {value!r} in {text!r} is not a finite number", text)
    code, needs_strain, _ = FEATURES[feat]
    return code, OPERATORS[op], number, needs_strain


def _compile(name: str, doc: dict[str, Any]) -> RuleBook:
    known = {"name", "about", "thresholds", *SITUATIONS}
    for key in doc:
        if key not in known:
            raise _Problem(
                f"unknown table or key {key!r} (expected name, about, thresholds, "
                "auction, french, take_or_pass)",
                key,
            )
    if not any(t in doc for t in SITUATIONS):
        raise _Problem("no bidding: the file needs an [auction], [french] or [take_or_pass] table")
    title = doc.get("name", Path(name).stem)
    if not isinstance(title, str):
        raise _Problem(f"name must be a string, got {title!r}", "name")
    top = _thresholds(doc.get("thresholds", {}), "thresholds", DEFAULT_THRESHOLDS)
    sits = np.full((K.NUM_SITUATIONS, 2), -1, dtype=np.int64)
    thresholds = np.zeros((K.NUM_SITUATIONS, 3), dtype=np.float64)
    rules: list[list[int]] = []
    conds: list[tuple[float, float, float]] = []
    covered = set()
    for table, situations in SITUATIONS.items():
        if table not in doc:
            continue
        section = doc[table]
        if not isinstance(section, dict):
            raise _Problem(f"{table} must be a table of situations", table)
        covered.add(BIDDINGS[table])
        local = top
        for key in section:
            if key == "thresholds":
                local = _thresholds(section[key], f"{table}.thresholds", top)
            elif key not in situations:
                raise _Problem(
                    f"unknown situation {table}.{key} (known: {', '.join(situations)})", key
                )
        for situation, code in situations.items():
            where = f"{table}.{situation}"
            thresholds[code] = local
            if situation not in section:
                if (table, situation) in OPTIONAL_SITUATIONS:
                    sits[code] = (len(rules), len(rules))
                    continue
                raise _Problem(f"missing situation {where} (give it a list of rules, [] to pass)")
            entries = section[situation]
            if not isinstance(entries, list):
                raise _Problem(
                    f"{where} must be a list of rules {{call = .., when = [..]}}", situation
                )
            start = len(rules)
            if len(rules) + len(entries) > MAX_RULES:
                raise _Problem(
                    f"more than {MAX_RULES:,} rules (the limit of a rule file)", situation
                )
            for i, entry in enumerate(entries, 1):
                rules.append(_rule(entry, f"{where} rule {i}", code, conds))
            sits[code] = (start, len(rules))
    return RuleBook(
        path=name,
        name=title,
        sits=sits,
        rules=np.array(rules, dtype=np.int64).reshape(-1, K.NUM_RULE_COLS),
        conds=np.array(conds, dtype=np.float64).reshape(-1, 3),
        thresholds=thresholds,
        biddings=frozenset(covered),
    )


def _rule(
    entry: Any, where: str, situation: int, conds: list[tuple[float, float, float]]
) -> list[int]:
    """One rule's row (its conditions appended to ``conds``)."""
    if not isinstance(entry, dict):
        raise _Problem(f"{where} must be a table {{call = .., when = [..]}}, got {entry!r}")
    unknown = set(entry) - {"call", "when", "by"}
    if unknown:
        bad = sorted(unknown)[0]
        raise _Problem(f"{where}: unknown key {bad!r} (expected call, when, by)", bad)
    if "call" not in entry:
        raise _Problem(f"{where}: no call (pass, best, NT, AT, take, double, redouble, ...)")
    call = entry["call"]
    if isinstance(call, str) and call.upper() in ("C", "D", "H", "S"):
        raise _Problem(
            f"{where}: a call names no physical suit (suit symmetry): "
            f'use call = "best" with conditions on the strain, not {call!r}',
            f'"{call}"',
        )
    if not isinstance(call, str) or call not in CALLS:
        raise _Problem(
            f"{where}: unknown call {call!r} (expected {', '.join(CALLS)})",
            f'"{call}"' if isinstance(call, str) else None,
        )
    action, extra, legal = CALLS[call]
    if situation not in legal:
        names = {code: f"{t}.{s}" for t, d in SITUATIONS.items() for s, code in d.items()}
        raise _Problem(
            f"{where}: the call {call!r} is not legal in {names[situation]}", f'"{call}"'
        )
    when = entry.get("when", [])
    if isinstance(when, str):
        when = [when]
    if not isinstance(when, list):
        raise _Problem(f"{where}: when must be a list of conditions, got {when!r}")
    if extra:
        when = [*when, extra]
    by = entry.get("by", "margin")
    if action != K.ACT_BEST and "by" in entry:
        raise _Problem(f"{where}: 'by' picks among strains: only for bids, not {call!r}", "by")
    if not isinstance(by, str) or by not in FEATURES:
        raise _Problem(
            f"{where}: unknown feature {by!r} for by (known: {', '.join(FEATURES)})", str(by)
        )
    start = len(conds)
    for text in when:
        code, op, value, needs_strain = _condition(text, where)
        if needs_strain and action != K.ACT_BEST and situation in _NO_CONTRACT:
            raise _Problem(
                f"{where}: {text!r} reads a strain, but a {call} rule here has no contract "
                "to read it from",
                text,
            )
        conds.append((float(code), float(op), value))
    return [start, len(conds), action, FEATURES[by][0]]


def book_arrays(
    books: list[RuleBook],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' rule-book arrays ``(sits (B, S, 2), rules (R, 4), conds (C, 3),
    thresholds (B, S, 3))`` of ``books`` (book ``b`` is a seat's parameter 0 = b)."""
    if not books:
        return empty_book_arrays()
    sits = np.full((len(books), K.NUM_SITUATIONS, 2), -1, dtype=np.int64)
    rules, conds = [], []
    n_rules = n_conds = 0
    for b, book in enumerate(books):
        covered = book.sits[:, 0] >= 0
        sits[b][covered] = book.sits[covered] + n_rules
        r = book.rules.copy()
        r[:, K.RULE_COND_START : K.RULE_COND_STOP + 1] += n_conds
        rules.append(r)
        conds.append(book.conds)
        n_rules += len(book.rules)
        n_conds += len(book.conds)
    rule_rows = np.concatenate(rules) if n_rules else np.zeros((1, K.NUM_RULE_COLS), np.int64)
    cond_rows = np.concatenate(conds) if n_conds else np.zeros((1, 3), np.float64)
    return (
        sits,
        np.ascontiguousarray(rule_rows, dtype=np.int64),
        np.ascontiguousarray(cond_rows, dtype=np.float64),
        np.stack([book.thresholds for book in books]),
    )


def empty_book_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tiny rule-book arrays for the kernels when no seat bids by rules."""
    return (
        np.full((1, K.NUM_SITUATIONS, 2), -1, dtype=np.int64),
        np.zeros((1, K.NUM_RULE_COLS), dtype=np.int64),
        np.zeros((1, 3), dtype=np.float64),
        np.zeros((1, K.NUM_SITUATIONS, 3), dtype=np.float64),
    )

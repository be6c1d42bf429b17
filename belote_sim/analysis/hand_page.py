"""The hand evaluator page: the atlas in a browser, offline, from ``file://``.

``write_hand_page(out_dir)`` writes ``index.html``, ``hand_page.js`` and
``hand_data.js`` into ``out_dir``: a static page where a player picks five cards
(clicks, or types ``JH 9H AH TS 7C``), the position 1-4 and the atlas (one per shipped
file, ``belote_sim/data/atlas_*.npz``, found by glob; each file's ``meta`` names its
rules and its players), and reads, per strain, the numbers of ``belote-sim hand``:
deals measured, P(made) with its Wilson 95% interval, net MP at x1, x2, x4 with their
standard errors, the class's multiplicity, the best call (``pass`` unless a strain's
net MP x1 is above 0, then the strain with the highest; within noise when that
strain's |net x1| < ``Z95`` s.e.) and the single-card swaps that raise and lower the
hand's value (its best call's net MP x1, 0 for a pass) the most.

The page computes every number in the browser from the cells' sums, exactly as
``belote_sim.atlas.table_stats`` does (the same IEEE operations in the same order, so
the same doubles; the published values, ``simulation.atlas_prior``, are rounded to
``DIGITS`` decimals on both sides, since the browser's exp may differ from numpy's in
the last bit): each atlas's entry carries its priors of P(made) (three kinds, on
``atlas_prior.GRID``).  The sums travel in ``hand_data.js`` (a ``<script>``, since
``fetch`` of ``file://`` is blocked): per atlas, the eight sums the page needs of
every cell (deals, made, and net MP and its square at x1, x2, x4), each column
predicted from the columns before it by a fixed-point linear fit and stored as the
residual (``encode_columns``), split into byte planes, deflated and base64-encoded;
the browser inflates them with ``DecompressionStream``.  ``decode_columns`` is the
Python twin of the page's decoder (the round trip is checked on every write).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from belote_sim.analysis.names import play_name
from belote_sim.kernels import atlas as KA
from belote_sim.simulation.atlas_prior import DIGITS, GRID, table_priors
from belote_sim.simulation.atlas_table import (
    DEFAULT_ATLAS,
    KINDS,
    NUM_HANDS,
    hand_classes,
    load_atlas,
)
from belote_sim.stats import Z95

__all__ = [
    "FIELDS",
    "PAGE_FILES",
    "decode_columns",
    "encode_columns",
    "page_size",
    "play_words",
    "shipped_atlases",
    "write_hand_page",
]

#: The sums the page reads, in the order of its columns: (name, ``kernels.atlas`` field).
FIELDS = (
    ("n", KA.F_N),
    ("made", KA.F_MADE),
    ("net1", KA.F_LEVEL + KA.L_NET),
    ("net1_sq", KA.F_LEVEL + KA.L_NET2),
    ("net2", KA.F_LEVEL + 6 + KA.L_NET),
    ("net2_sq", KA.F_LEVEL + 6 + KA.L_NET2),
    ("net4", KA.F_LEVEL + 12 + KA.L_NET),
    ("net4_sq", KA.F_LEVEL + 12 + KA.L_NET2),
)
#: The files ``write_hand_page`` writes.
PAGE_FILES = ("index.html", "hand_page.js", "hand_data.js")
#: Fixed-point scale of the column predictors (a power of two: exact in float64).
_SCALE = 256
#: Bound on a predictor's partial sums (exact integers in float64, with room).
_EXACT = 2.0**52
_HERE = Path(__file__).resolve().parent


def shipped_atlases() -> list[Path]:
    """The atlas files shipped with the package (``belote_sim/data/atlas_*.npz``)."""
    return sorted(DEFAULT_ATLAS.parent.glob("atlas_*.npz"))


def play_words(spec: str) -> str:
    """Who the players are, from an atlas's ``meta['play']`` (``greedy:1,1`` ->
    ``greedy (draw trumps 1, give points 1): rule-based: ...``)."""
    from belote_sim.policies import PLAY_POLICIES

    name, _, params = str(spec).partition(":")
    info = PLAY_POLICIES.get(name)
    if info is None:
        return str(spec)
    values = params.split(",") if params else []
    words = [f"{n.replace('_', ' ')} {v}" for n, v in zip(info.param_names, values)]
    shown = f"{name} ({', '.join(words)})" if words else name
    return f"{shown}: {info.doc}"


def _planes(values: np.ndarray, signed: bool = True) -> tuple[bytes, int]:
    """Little-endian byte planes of integers (two's complement for ``signed``), as
    few as hold every value; returns (bytes, planes)."""
    v = np.asarray(values, dtype=np.int64)
    lo, hi = (int(v.min()), int(v.max())) if v.size else (0, 0)
    for width in (1, 2, 3, 4):
        if signed and -(1 << (8 * width - 1)) <= lo and hi < 1 << (8 * width - 1):
            break
        if not signed and lo >= 0 and hi < 1 << (8 * width):
            break
    else:
        raise ValueError("a value of the atlas does not fit in 32 bits")
    u = (v & 0xFFFFFFFF).astype(np.uint64)
    return b"".join(((u >> (8 * k)) & 0xFF).astype(np.uint8).tobytes() for k in range(width)), width


def _unplanes(buf: bytes, offset: int, rows: int, width: int, signed: bool) -> np.ndarray:
    raw = np.frombuffer(buf, dtype=np.uint8, count=rows * width, offset=offset)
    v = np.zeros(rows, dtype=np.int64)
    for k in range(width):
        v |= raw[k * rows : (k + 1) * rows].astype(np.int64) << (8 * k)
    if signed:
        top = 1 << (8 * width - 1)
        v = np.where(v >= top, v - 2 * top, v)
    return v


def _predict(columns: np.ndarray, coef: Sequence[int]) -> np.ndarray:
    """floor(sum_k coef[k] * column k / _SCALE) over the first len(coef) columns."""
    total = np.zeros(len(columns), dtype=np.int64)
    for k, c in enumerate(coef):
        if c:
            total += int(c) * columns[:, k]
    return total // _SCALE


def _fit(columns: np.ndarray, j: int) -> list[int]:
    """Fixed-point least-squares coefficients predicting column j from columns < j
    (all zero when the fit does not shrink the residuals or is not exact in float64)."""
    if j == 0 or len(columns) < 2:
        return [0] * j
    x = columns[:, :j].astype(np.float64)
    y = columns[:, j].astype(np.float64)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    if not np.all(np.isfinite(coef)):
        return [0] * j
    scaled = [int(c) for c in np.round(coef * _SCALE)]
    bound = (np.abs(x) * np.abs(np.array(scaled, dtype=np.float64))).sum(axis=1).max()
    if bound >= _EXACT:
        return [0] * j
    residual = columns[:, j] - _predict(columns, scaled)
    if np.abs(residual).max() >= np.abs(columns[:, j]).max():
        return [0] * j
    return scaled


def encode_columns(columns: np.ndarray) -> tuple[str, list[dict[str, Any]]]:
    """(base64 of the deflated byte planes, per-column ``{"width", "coef"}``) of an
    int64 array (rows, columns): each column stored as its residual from
    ``floor(sum_k coef[k] * column k / 256)`` over the columns before it."""
    columns = np.asarray(columns, dtype=np.int64)
    if columns.size and np.abs(columns).max() >= 2**31:
        raise ValueError("an atlas sum does not fit in 32 bits")
    parts, spec = [], []
    for j in range(columns.shape[1]):
        coef = _fit(columns, j)
        data, width = _planes(columns[:, j] - _predict(columns, coef))
        parts.append(data)
        spec.append({"width": width, "coef": coef})
    packed = zlib.compress(b"".join(parts), 9)
    return base64.b64encode(packed).decode("ascii"), spec


def decode_columns(text: str, spec: list[dict[str, Any]], rows: int) -> np.ndarray:
    """The Python twin of the page's decoder: ``encode_columns``'s output back."""
    buf = zlib.decompress(base64.b64decode(text))
    out = np.zeros((rows, len(spec)), dtype=np.int64)
    offset = 0
    for j, column in enumerate(spec):
        residual = _unplanes(buf, offset, rows, column["width"], True)
        offset += rows * column["width"]
        out[:, j] = residual + _predict(out, column["coef"])
    return out


def _encode_keys(keys: np.ndarray) -> dict[str, Any]:
    data, width = _planes(np.diff(keys, prepend=0), signed=False)
    return {"data": base64.b64encode(zlib.compress(data, 9)).decode("ascii"), "width": width}


def _cell_columns(table) -> np.ndarray:
    """The page's columns of every cell: kinds suit, nt, at in turn, each class by
    class, each class position 1..4."""
    idx = [f for _, f in FIELDS]
    return np.concatenate([table.sums[k][:, :, idx].reshape(-1, len(idx)) for k in range(3)])


@functools.lru_cache(maxsize=8)
def _atlas_entry(path: str, stamp: tuple[int, int]) -> str:
    """One atlas's entry of ``hand_data.js`` (JSON text), cached per file version."""
    table = load_atlas(path)
    for kind in range(3):
        keys, mult = hand_classes(kind)
        if not (np.array_equal(table.keys[kind], keys) and np.array_equal(table.mult[kind], mult)):
            raise ValueError(f"{path}: its hand classes are not the 5-card classes")
    columns = _cell_columns(table)
    data, spec = encode_columns(columns)
    if not np.array_equal(decode_columns(data, spec, len(columns)), columns):
        raise AssertionError("the atlas's page encoding does not round-trip")
    meta = table.meta
    return json.dumps(
        {
            "file": Path(path).name,
            "meta": meta,
            "ruleset": meta.get("ruleset", "?"),
            "play": str(meta.get("play", "?")),
            "players": play_words(str(meta.get("play", "?"))),
            "players_name": play_name(str(meta.get("play", "?"))),
            "options_note": _options_note(meta),
            "rows": len(columns),
            "columns": spec,
            "data": data,
            "priors": table_priors(table).tolist(),
        }
    )


def _options_note(meta: dict[str, Any]) -> str:
    """The rule options of an atlas that differ from its preset's defaults, in words."""
    from belote_sim.rules import Rules

    try:
        defaults = json.loads(json.dumps(Rules.from_spec(meta.get("ruleset")).options()))
    except (ValueError, TypeError):
        return ""
    changed = {k: v for k, v in (meta.get("options") or {}).items() if defaults.get(k) != v}
    if not changed:
        return "the preset's default options"
    return "options " + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(changed.items()))


def _data_js(paths: Sequence[Path], default: int = 0) -> str:
    classes = {}
    for kind, name in ((0, "suit"), (1, "all")):
        keys, mult = hand_classes(kind)
        classes[name] = {"keys": _encode_keys(keys), "count": len(keys)}
        data, width = _planes(mult, signed=False)
        classes[name]["mult"] = {
            "data": base64.b64encode(zlib.compress(data, 9)).decode("ascii"),
            "width": width,
        }
    head = {
        "z95": Z95,
        "hands": NUM_HANDS,
        "kinds": list(KINDS),
        "fields": [name for name, _ in FIELDS],
        "scale": _SCALE,
        "grid": GRID.tolist(),
        "log_p": np.log(GRID).tolist(),
        "log_q": np.log1p(-GRID).tolist(),
        "digits": DIGITS,
        "classes": classes,
        "default": default,
    }
    entries = []
    for path in paths:
        stat = Path(path).stat()
        entries.append(_atlas_entry(str(Path(path).resolve()), (stat.st_mtime_ns, stat.st_size)))
    return (
        "// belote-sim hand evaluator: the hand classes and the atlases' cell sums\n"
        "// (written by belote_sim.analysis.hand_page; see its docstring for the format)\n"
        f"window.BELOTE_HAND = {json.dumps(head)};\n"
        f"window.BELOTE_HAND.atlases = [{','.join(entries)}];\n"
    )


def page_size(out_dir: str | Path) -> int:
    """Bytes of the page and its data in ``out_dir``."""
    return sum((Path(out_dir) / name).stat().st_size for name in PAGE_FILES)


def write_hand_page(
    out_dir: str | Path,
    atlases: Sequence[str | Path] | None = None,
    back_link: tuple[str, str] | None = None,
    default: str | Path | None = None,
) -> Path:
    """Write the hand evaluator (``index.html``, ``hand_page.js``, ``hand_data.js``)
    into ``out_dir``; returns the path of ``index.html``.

    ``atlases``: the atlas files it offers (default: ``shipped_atlases()``); raises
    ``ValueError`` when there is none.  ``back_link``: (href, text) of a link back to
    the page it belongs to (the report).  ``default``: the atlas file the page opens
    on (a report: the study's rules; default: the common atlas ``DEFAULT_ATLAS``, the
    CLI's default rules, where offered, else the first); a hash in the address
    (``#atlas=FILE``) still chooses another.
    """
    paths = [Path(p) for p in (shipped_atlases() if atlases is None else atlases)]
    if not paths:
        raise ValueError("no atlas to show: the package ships none and none was given")
    for p in paths:
        if not p.exists():
            raise ValueError(f"no atlas file {p}")
    resolved = [p.resolve() for p in paths]
    wanted = Path(DEFAULT_ATLAS if default is None else default).resolve()
    first = resolved.index(wanted) if wanted in resolved else 0
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "hand_data.js").write_text(_data_js(paths, first), encoding="utf-8")
    (out / "hand_page.js").write_text(
        (_HERE / "hand_page.js").read_text(encoding="utf-8"), encoding="utf-8"
    )
    page = (_HERE / "hand_page.html").read_text(encoding="utf-8")
    back = ""
    if back_link is not None:
        back = (
            f"<a href='{html.escape(back_link[0], quote=True)}'>← "
            f"{html.escape(back_link[1])}</a> · "
        )
    index = out / "index.html"
    index.write_text(page.replace("<!--BACK-->", back), encoding="utf-8")
    return index

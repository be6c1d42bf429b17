"""Shared helpers of the command line: option parsing, studies from arguments,
progress bars, help formatting, one-line errors."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

__all__ = [
    "DefaultsFormatter",
    "Progress",
    "Terminated",
    "at_least_2",
    "check_int_options",
    "check_workers",
    "csv_output",
    "json_text",
    "nullcontext",
    "one_line",
    "open_lines",
    "parse_numbers",
    "parse_option",
    "plus_minus",
    "show_compile_notices",
    "study_from_args",
    "write_csv",
]


def open_lines(name: str):
    """A JSON-lines input as bytes lines (each decoded on its own by ``map_json_lines``,
    so that a line that is not UTF-8 fails alone)."""
    if name == "-":
        return nullcontext(sys.stdin.buffer)
    return open(name, "rb")


class nullcontext:
    def __init__(self, value=None):
        self.value = value

    def __iter__(self):
        return iter(self.value)

    def __getattr__(self, name):  # readline of a stream (``replay``'s bounded lines)
        return getattr(self.value, name)

    def __enter__(self):
        return self.value

    def __exit__(self, *exc):
        return False


def parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` with value parsed as JSON when it can be (true, 3, "x")."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"--option needs name=value, got {text!r}")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        return name.strip(), value.strip()


def _parse_seat_map(items: list[str] | None, what: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for item in items or []:
        seat, sep, value = item.partition(":")
        if not sep or seat.strip() not in ("0", "1", "2", "3"):
            raise ValueError(f"--{what} needs SEAT:VALUE with seat 0..3, got {item!r}")
        out[int(seat)] = value.strip()
    return out


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be an integer, got {text.strip()!r}") from None


def _parse_constraint(text: str) -> dict[str, Any]:
    """``min_H=3,max_S=2,strength=20-60,require=JH AH,exclude=AS`` -> a constraint dict."""
    spec: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise ValueError(f"constraint {part!r}: expected key=value")
        if key.startswith(("min_", "max_")):
            spec.setdefault(key[:3], {})[key[4:].upper()] = _int(value, f"constraint {key}")
        elif key == "strength":
            low, _, high = value.partition("-")
            spec["strength"] = (
                _int(low, "constraint strength (LOW-HIGH)"),
                _int(high, "constraint strength (LOW-HIGH)"),
            )
        elif key in ("require", "exclude"):
            spec[key] = value
        else:
            raise ValueError(
                f"unknown constraint {key!r}: use min_S, max_S, strength, require, exclude"
            )
    return spec


def study_from_args(args: argparse.Namespace):
    from belote_sim.simulation.runner import make_study

    options = dict(parse_option(o) for o in args.option or [])
    for name in ("players", "variant"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    play: Any = args.play
    if args.play_seat:
        play = [args.play] * 4
        for seat, spec in _parse_seat_map(args.play_seat, "play-seat").items():
            play[seat] = spec
    bidding: Any = args.bid
    if args.bid_seat:
        bidding = [args.bid or ("take" if args.ruleset == "french" else "threshold")] * 4
        for seat, spec in _parse_seat_map(args.bid_seat, "bid-seat").items():
            bidding[seat] = spec
    constraints = {
        seat: _parse_constraint(text)
        for seat, text in _parse_seat_map(args.constraint, "constraint").items()
    }
    silent = (
        [_int(x, "--belote-silent seat") for x in args.belote_silent.split(",")]
        if args.belote_silent
        else []
    )
    return make_study(
        args.ruleset,
        bidding,
        play,
        args.seed,
        _parse_seat_map(args.predeal, "predeal"),
        constraints,
        args.dealer,
        args.chunk_size,
        options,
        silent,
    )


class Progress:
    """A tqdm progress bar with ETA on a terminal, nothing otherwise.

    ``progress(n)``: ``n`` more units are done (a chunk written).  ``progress.tick(n)``:
    ``n`` units computed ahead of that (the parts of a chunk, ``ticks`` of
    ``simulate_to_parquet``): the bar moves now, and the chunk's ``progress`` call
    later only adds what the ticks did not count.

    The bar appears with the first units done, not before: the kernels compile first
    (``simulation.compiling``, which says so in a line of its own), and a bar that
    started then would show a frozen 0% and an ETA that counts the compile."""

    def __init__(self, total: int | None, unit: str, enabled: bool):
        self.total = total
        self.unit = unit
        self.enabled = enabled
        self.bar: Any = None
        self.ticked = 0

    @property
    def ticks(self) -> Any:
        """``tick`` when the bar is shown, else None (no parts to cut chunks into)."""
        return self.tick if self.enabled else None

    def _update(self, n: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit=self.unit, unit_scale=True, file=sys.stderr)
        self.bar.update(n)

    def tick(self, n: int) -> None:
        self.ticked += n
        self._update(n)

    def __call__(self, n: int) -> None:
        counted = min(n, self.ticked)
        self.ticked -= counted
        if n > counted:
            self._update(n - counted)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def show_compile_notices() -> None:
    """Show the lines of ``simulation.compiling`` (the kernels being compiled, once)
    on standard error, as they come: standard output stays the command's result."""
    import logging

    log = logging.getLogger("belote_sim.compile")
    if not any(getattr(h, "_belote_sim", False) for h in log.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler._belote_sim = True  # type: ignore[attr-defined]
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows each option's default, unless it is None or already said."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            default is not None
            and default is not False
            and default != argparse.SUPPRESS
            and "default" not in text
            and action.option_strings
        ):
            text += " (default: %(default)s)"
        return text


def at_least_2(text: str) -> int:
    """argparse type: an integer of at least 2 (deals for a mean and its s.e.)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"needs at least 2 deals, got {value}")
    return value


def _jsonable(value: Any) -> Any:
    """``value`` with every float that is not finite (NaN, infinity) as None and numpy
    scalars as Python ones."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(value: Any) -> str:
    """JSON text of ``value`` for ``--json`` output: undefined numbers (NaN, e.g. a
    standard error of too few deals, or x2 under rules without doubling) are ``null``,
    never the ``NaN`` that is not JSON."""
    return json.dumps(_jsonable(value), allow_nan=False)


#: the range of an integer option: numpy and numba take 64-bit integers
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


#: (command, option) whose own check says more than the range: the disk space the
#: deals of ``simulate``/``main`` would need
_OWN_CHECK = {("simulate", "deals"), ("main", "deals")}


def check_int_options(args: argparse.Namespace) -> None:
    """``ValueError`` (one line naming the option) for an integer option beyond the
    64-bit range: numpy and the kernels would fail on it with a traceback."""
    for name, value in vars(args).items():
        if (getattr(args, "command", None), name) in _OWN_CHECK:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            if not INT64_MIN <= value <= INT64_MAX:
                option = "--" + name.replace("_", "-")
                raise ValueError(
                    f"{option} {value} is beyond the 64-bit integer range (at most {INT64_MAX})"
                )


def check_workers(workers: int | None) -> None:
    """``ValueError`` for a ``--workers`` count below 1 or above what a local cluster
    can hold (4 per core, at least 64): each worker is a process."""
    import os

    most = max(64, 4 * (os.cpu_count() or 1))
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if workers is not None and workers > most:
        raise ValueError(
            f"--workers must be at most {most} (local worker processes), got {workers}"
        )


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an interruption so that a run keeps what it finished."""


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def csv_output(path: str | None, what: str, overwrite: bool):
    """The ``Output`` of a CSV file (``with csv_output(...) as out``: checks and lock
    before the work), or a context of None when there is no ``path``."""
    if not path:
        return nullcontext(None)
    from belote_sim.simulation.output import Output

    return Output(path, what=what, overwrite=overwrite)


def write_csv(frame: Any, out: Any) -> None:
    """``frame`` as CSV into the ``Output`` ``out`` (compressed as its final name says,
    e.g. ``.csv.gz``), then in place."""
    from pandas.io.common import infer_compression

    frame.to_csv(out.tmp, index=False, compression=infer_compression(out.path, "infer"))
    out.commit()


def parse_numbers(text: str, option: str) -> list[float]:
    """Comma-separated numbers (``40,45,50``); a ValueError naming ``option`` and the
    part that is not a number otherwise (printed as one line by ``main``)."""
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(
                f"{option}: {part.strip()!r} is not a number (comma-separated numbers, "
                "e.g. 40,45,50)"
            ) from None
    return values


def plus_minus(value: float, se: float, width: int) -> str:
    """``-9.10 ± 0.30`` right-aligned in ``width``; ``-`` when there is no value."""
    if not math.isfinite(value):
        return f"{'-':>{width}}"
    text = f"{value:+.2f} ± {se:.2f}" if math.isfinite(se) else f"{value:+.2f}"
    return f"{text:>{width}}"

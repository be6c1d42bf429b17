"""The checksum of a single-file deals table: a SHA-256 of the whole file.

A finished table (``belote-sim simulate -o FILE``) carries the SHA-256 of its bytes in
its completion mark (``safe_io.COMPLETE_KEY``): ``{"complete": true, "rows": n, ...,
"sha256": "<64 hex digits>"}``.  The digest covers every byte of the file -- the data
pages of every column, the Parquet footer with the schema, the row-group offsets, the
provenance and the mark's other fields -- with its own 64 hex digits read as ``0``\\ s.
A flipped byte anywhere in the file therefore either makes it unreadable or fails the
check; it never reads as good data.

* ``seal_table(path)``: the writer's last step on a closed Parquet file that has a
  completion mark (``runner._ChunkFile._close`` calls it after closing the file, before
  the fsync and the rename).  It reads the file once, then rewrites the footer (a few
  KB) with the digest in the mark.  A writer that hashed the file's bytes as they were
  written (``GrowingDigest``: the row groups, while the next chunk is computed) passes
  that digest, and only the footer is read at the end.  The Parquet footer is Thrift's
  compact encoding, in which a string is its length (a varint) and its bytes, with no
  enclosing lengths: the mark's value can grow in place.
* ``table_checksum(path)``: the reader's check -- ``"verified"``, ``"none"`` (a file
  written before checksums, or a resumable partial file: nothing to check against), or
  ``ValueError`` (one line) for a file whose bytes differ from what was written.  It
  reads the file once (SHA-256 runs at about 1.5-2 GB/s with the CPU's SHA extensions;
  docs/guide/simulate.md "Checksums" gives the measured cost).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
from typing import Any

from belote_sim.simulation.manifest import reason_text
from belote_sim.simulation.safe_io import COMPLETE_KEY

__all__ = [
    "CHECKSUM_FIELD",
    "GrowingDigest",
    "UnverifiedTableWarning",
    "file_digest_range",
    "seal_table",
    "table_checksum",
    "write_games_table",
]

#: the field of the completion mark that holds the digest (64 lowercase hex digits)
CHECKSUM_FIELD = "sha256"

_MAGIC = b"PAR1"
_ZEROS = "0" * 64
_HEX = re.compile(r"^[0-9a-f]{64}$")
_BLOCK = 1 << 23  # bytes read at a time while hashing


class UnverifiedTableWarning(UserWarning):
    """A table read without a checksum to check its bytes against (one written before
    belote-sim stored one, or a dataset part read on its own without its manifest);
    the command line shows it as one line."""


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key_value(key: bytes, value: bytes) -> bytes:
    """A Parquet ``KeyValue`` as Thrift's compact protocol writes it: field 1 (key) and
    field 2 (value), each a binary (header byte 0x18: field delta 1, type 8), then the
    struct's stop byte."""
    return b"\x18" + _varint(len(key)) + key + b"\x18" + _varint(len(value)) + value + b"\x00"


def _footer(f: Any, size: int) -> tuple[int, bytes]:
    """(offset, bytes) of a Parquet file's footer (its ``FileMetaData``)."""
    if size < 12:
        raise ValueError("too short to be a Parquet file")
    f.seek(size - 8)
    tail = f.read(8)
    length = struct.unpack("<I", tail[:4])[0]
    if tail[4:] != _MAGIC or length > size - 12:
        raise ValueError("no Parquet footer at its end")
    start = size - 8 - length
    f.seek(start)
    return start, f.read(length)


def file_digest_range(f: Any, stop: int, digest: Any = None, start: int = 0) -> Any:
    """``digest`` (a new SHA-256 if None) updated with the bytes ``[start, stop)`` of
    the open binary file ``f``."""
    digest = digest or hashlib.sha256()
    buf = bytearray(min(_BLOCK, max(stop - start, 1)))
    view = memoryview(buf)
    f.seek(start)
    left = stop - start
    while left > 0:
        n = f.readinto(view[: min(len(buf), left)])
        if not n:
            raise ValueError("shorter than its footer says")
        digest.update(view[:n])
        left -= n
    return digest


class GrowingDigest:
    """The SHA-256 of the bytes of a file being written append-only (a Parquet writer
    never goes back): each ``update()`` hashes what was appended since the last one, so
    that ``seal_table`` has only the footer left to read.  Bytes already hashed must not
    change (``seal_table`` checks only that the footer starts after them).  A read that
    fails leaves it unusable (``length`` -1): the file is then hashed whole at the end."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.digest = hashlib.sha256()
        self.length = 0  # bytes hashed; -1: unusable
        self._file: Any = None

    def update(self) -> None:
        if self.length < 0:
            return
        try:
            if self._file is None:
                self._file = open(self.path, "rb")  # noqa: SIM115 -- closed by close()
            size = os.fstat(self._file.fileno()).st_size
            if size > self.length:
                file_digest_range(self._file, size, self.digest, self.length)
                self.length = size
        except (OSError, ValueError):
            self.length = -1
            self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _mark_bytes(path: str) -> bytes | None:
    import pyarrow.parquet as pq

    return (pq.read_metadata(path).metadata or {}).get(COMPLETE_KEY)


def _digest_text(digest: str) -> bytes:
    return f'"{CHECKSUM_FIELD}": "{digest}"'.encode()


def seal_table(path: str | os.PathLike, written: GrowingDigest | None = None) -> str:
    """Add the file's SHA-256 to the completion mark of the closed Parquet file
    ``path`` (module docstring); returns the digest.  ``written``: the digest of the
    file's first bytes, hashed while it was written (only the rest is read).
    ``ValueError`` if the file has no completion mark (or one already sealed)."""
    path = os.fspath(path)
    raw = _mark_bytes(path)
    mark = json.loads(raw) if raw is not None else None
    if raw is None or not isinstance(mark, dict) or CHECKSUM_FIELD in mark:
        raise ValueError(f"{path}: no completion mark to add a checksum to")
    blank_mark = json.dumps({**mark, CHECKSUM_FIELD: _ZEROS}).encode()
    with open(path, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        start, footer = _footer(f, size)
        old = _key_value(COMPLETE_KEY, raw)
        if footer.count(old) != 1 or blank_mark.count(_digest_text(_ZEROS)) != 1:
            raise ValueError(f"{path}: its footer does not hold its completion mark once")
        blank = footer.replace(old, _key_value(COMPLETE_KEY, blank_mark))
        if written is not None and 0 <= written.length <= start:
            digest = file_digest_range(f, start, written.digest.copy(), written.length)
        else:
            digest = file_digest_range(f, start)
        digest.update(blank)
        hexdigest = digest.hexdigest()
        sealed = blank_mark.replace(_digest_text(_ZEROS), _digest_text(hexdigest))
        new = footer.replace(old, _key_value(COMPLETE_KEY, sealed))
        f.seek(start)
        f.write(new + struct.pack("<I", len(new)) + _MAGIC)
        f.truncate()
    if _mark_bytes(path) != sealed:
        raise ValueError(f"{path}: the checksum could not be added to its footer")
    return hexdigest


def table_checksum(path: str | os.PathLike) -> str:
    """Check a table's checksum: ``"verified"``, or ``"none"`` when its completion mark
    has no checksum (or it has no readable mark); ``ValueError`` (one line) when the
    file's bytes are not the ones written."""
    import pyarrow as pa

    path = os.fspath(path)
    try:
        raw = _mark_bytes(path)
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{path}: not a readable Parquet file ({reason_text(exc)})") from None
    try:
        mark = json.loads(raw) if raw is not None else None
    except ValueError:
        mark = None
    if not isinstance(mark, dict) or CHECKSUM_FIELD not in mark:
        return "none"
    assert raw is not None
    expected = mark[CHECKSUM_FIELD]
    damaged = ValueError(
        f"{path}: checksum mismatch: the file was altered after it was written "
        "(a damaged disk or copy?); do not use it, simulate it again"
    )
    if not isinstance(expected, str) or not _HEX.match(expected):
        raise damaged
    text = _digest_text(expected)
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        try:
            start, footer = _footer(f, size)
        except ValueError:
            raise damaged from None
        sealed = _key_value(COMPLETE_KEY, raw)
        if footer.count(sealed) != 1 or raw.count(text) != 1:
            raise damaged
        blank_mark = raw.replace(text, _digest_text(_ZEROS))
        blank = footer.replace(sealed, _key_value(COMPLETE_KEY, blank_mark))
        digest = file_digest_range(f, start)
    digest.update(blank)
    if digest.hexdigest() != expected:
        raise damaged
    return "verified"


def write_games_table(games: Any, path: str) -> None:
    """A games table (``simulate --games -o``) as one Parquet file with a completion
    mark and its SHA-256 (``seal_table``), like a deals table: ``table_checksum(path)``
    checks it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from belote_sim.simulation.safe_io import completion_mark

    table = pa.Table.from_pandas(games, preserve_index=False)
    meta = {**(table.schema.metadata or {}), **completion_mark(len(games), 1, 1)}
    pq.write_table(table.replace_schema_metadata(meta), path)
    seal_table(path)

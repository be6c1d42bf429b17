"""Size limits of the input files belote-sim reads whole: input files are untrusted, and
``/dev/zero`` never ends.  Each reader reads at most its limit plus one byte and refuses
a longer input in one line (docs/guide/simulate.md, "Input size limits")."""

from __future__ import annotations

#: Size limits (bytes): a rule file (``--bid rules:FILE``; a real one is a few KB), a
#: dataset's manifest (about 1 KB a chunk), and one line of the records ``replay`` and
#: ``solve --records`` read.
RULE_FILE_LIMIT = 1 << 20
MANIFEST_LIMIT = 256 << 20
RECORD_LINE_LIMIT = 1 << 20


def limit_words(limit: int) -> str:
    """``1 MiB``: a size limit in words."""
    return (
        f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit:,} bytes"
    )


def read_limited(path: str, limit: int, what: str) -> bytes:
    """The bytes of the file ``path``; ``ValueError`` (one line) when it holds more than
    ``limit`` bytes (``what``: "a rule file"), found by reading at most ``limit + 1``."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(
            f"{path}: more than {limit_words(limit)}, the size limit of {what}; not read"
        )
    return data


__all__ = [
    "MANIFEST_LIMIT",
    "RECORD_LINE_LIMIT",
    "RULE_FILE_LIMIT",
    "limit_words",
    "read_limited",
]

"""Weights of the ``expert`` policy's suit network (model 3, ``kernels.suit_net``).

They are read from ``belote_sim/data/suit_net.npz`` (float32 arrays, no pickles) and
checked against ``SHA256``: the hash lives in this file so that new weights change the
kernels' sources hash (``_cache``) and every cached kernel that bakes them in is
compiled again.  Written by ``simulation.card_net.ship_suit_net``; do not edit.

Fitted on 7.88 M decisions of common and bulgarian deals played by the shipped
``expert:0`` (10% of its decisions a random legal card), 40,000 deals per ruleset for
each of seeds 41 to 46, each legal card labelled with its double-dummy value; the
network 64 / 32 / 32 units, cards played in earlier tricks read without the trick's
number, 20 passes, weight decay 0.01, the best pass on a tenth of the fitted deals:
``python analyses/card_net_experiment.py --deals 40000 --more-labels 42,43,44,45,46
--suits 64,32,32 --epochs 20 --learning-rate 2e-3 --trick-numbers 0 --baseline 0
--valid-share 0.1 --weight-decay 0.01 --ship``.  On the 301,395 held-out decisions (a
fifth of the deals of seed 41): 1.612 card points lost per decision, the shipped
feature network (model 2) 1.776.
"""

import hashlib
import io
from pathlib import Path

import numpy as np

SHA256 = "81b2cde85f98f1a828394d980d1d1be829b8150f289113de02ab4cadc058e86f"
#: The network's arrays, in ``SuitNet.params`` order.
NAMES = ("ws", "wr", "wg", "bg", "wa", "wb", "wc", "wk", "b2", "wo")
PATH = Path(__file__).resolve().parent.parent / "data" / "suit_net.npz"


def load(path: Path = PATH, sha256: str = SHA256) -> dict[str, np.ndarray]:
    """The arrays of ``path`` (float32, C order), refused when the file's SHA-256 is
    not ``sha256`` (a file changed without this module: stale cached kernels)."""
    data = Path(path).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise RuntimeError(
            f"{path}: SHA-256 {digest} is not the {sha256} its kernels were written for; "
            "write the weights with card_net.ship_suit_net"
        )
    with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
        return {k: np.ascontiguousarray(arrays[k], dtype=np.float32) for k in NAMES}


_W = load()
SN_WS, SN_WR, SN_WG, SN_BG, SN_WA = _W["ws"], _W["wr"], _W["wg"], _W["bg"], _W["wa"]
SN_WB, SN_WC, SN_WK, SN_B2, SN_WO = _W["wb"], _W["wc"], _W["wk"], _W["b2"], _W["wo"]

__all__ = [
    "NAMES",
    "PATH",
    "SHA256",
    "SN_B2",
    "SN_BG",
    "SN_WA",
    "SN_WB",
    "SN_WC",
    "SN_WG",
    "SN_WK",
    "SN_WO",
    "SN_WR",
    "SN_WS",
    "load",
]

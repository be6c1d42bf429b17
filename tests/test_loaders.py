"""Atlas files and dataset manifests are validated on load (issue 24, findings 3 and 6).

A corrupt, empty, truncated, malformed or foreign file gets one line naming the file
and the problem, never a traceback, and a malformed atlas or manifest is never used.
Hypothesis feeds both loaders random corruption, truncation and malformed content;
``rebuild-manifest`` refuses the parts of mixed studies.  Files are tiny.
"""

import json
import os
import shutil

import numpy as np
import pytest
from cli_run import one_line_error, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_sim.kernels import atlas as KA
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import (
    ATLAS_ARRAYS,
    KINDS,
    AtlasTable,
    hand_classes,
    load_atlas,
    save_atlas,
)
from belote_sim.simulation.runner import make_study

EXPLORE = int(os.environ.get("BELOTE_HYPOTHESIS_EXAMPLES", "0"))
SETTINGS = settings(
    max_examples=EXPLORE or 40,
    deadline=None,
    derandomize=not EXPLORE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
CHUNK = 200
N = 600  # 3 chunks


def one_line(exc, path):
    text = str(exc)
    assert "\n" not in text and str(path) in text, text


# --------------------------------------------------------------------------- atlas


def small_atlas():
    """A valid atlas: every class, a few cells with deals (counts within their n)."""
    rng = np.random.default_rng(3)
    keys = [hand_classes(k)[0] for k in range(3)]
    mult = [hand_classes(k)[1] for k in range(3)]
    sums = []
    for k in range(3):
        s = np.zeros((len(keys[k]), 4, KA.NUM_FIELDS), dtype=np.int64)
        rows = rng.choice(len(keys[k]), 30, replace=False)
        n = rng.integers(1, 60, size=(30, 4))
        s[rows, :, KA.F_N] = n
        for field in (KA.F_MADE, KA.F_INSIDE, KA.F_HANGING, KA.F_VALAT_BY, KA.F_VALAT_AGAINST):
            s[rows, :, field] = rng.integers(0, n + 1)
        s[rows, :, KA.F_CARD] = n * 80
        s[rows, :, KA.F_CARD2] = n * 6400
        for level in range(KA.NUM_LEVELS):
            base = KA.F_LEVEL + 6 * level
            for off in (KA.L_TAKER, KA.L_DEF, KA.L_NET):
                s[rows, :, base + off] = rng.integers(-500, 500, size=(30, 4))
                s[rows, :, base + off + 1] = rng.integers(0, 10**5, size=(30, 4))
        sums.append(s)
    deals = int(sum(s[..., KA.F_N].sum() for s in sums))
    meta = {
        "belote_sim": "test",
        "ruleset": "common",
        "options": Rules.preset("common").options(),
        "play": "greedy:1,1",
        "seed": 1,
        "deals": deals,
    }
    return AtlasTable(json.loads(json.dumps(meta)), [keys[0], keys[1], keys[1]], mult, sums)


@pytest.fixture(scope="module")
def atlas_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("atlas") / "a.npz"
    save_atlas(small_atlas(), path)
    return path


@pytest.fixture(scope="module")
def atlas_arrays(atlas_file):
    with np.load(atlas_file) as z:
        return {name: z[name] for name in z.files}


def load(path):
    load_atlas.cache_clear()
    return load_atlas(str(path))


def same_table(a, b):
    assert a.meta == b.meta
    for x, y in zip(a.keys + a.mult + a.sums, b.keys + b.mult + b.sums, strict=True):
        assert np.array_equal(x, y)


def test_a_valid_atlas_loads_whole(atlas_file):
    same_table(load(atlas_file), small_atlas())
    assert load_atlas(None).meta["deals"] > 0  # the shipped atlas passes the checks


@pytest.mark.parametrize(
    "content, words",
    [
        (b"", "an empty file"),
        (b"hello, not an atlas\n", "not a .npz file"),
        (b"PK\x03\x04" + b"\0" * 40, "corrupt, truncated or another format"),
        (b"\x93NUMPY\x01\x00", "a single NumPy array"),
    ],
)
def test_empty_and_foreign_files_are_one_line(tmp_path, content, words):
    path = tmp_path / "x.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=words) as exc:
        load(path)
    one_line(exc.value, path)


def test_truncated_other_npz_directory_and_missing(tmp_path, atlas_file):
    data = atlas_file.read_bytes()
    for cut in (10, len(data) // 3, len(data) - 30, len(data) - 1):
        path = tmp_path / f"cut{cut}.npz"
        path.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="corrupt, truncated") as exc:
            load(path)
        one_line(exc.value, path)
    np.savez(tmp_path / "other.npz", weights=np.arange(4))
    with pytest.raises(ValueError, match="no array meta"):
        load(tmp_path / "other.npz")
    with pytest.raises(ValueError, match="is a directory"):
        load(tmp_path)
    with pytest.raises(ValueError, match="no atlas file"):
        load(tmp_path / "nope.npz")


def save_arrays(path, arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _set_cell(arrays, kind, field, value, with_deals=True):
    name = f"sums_{KINDS[kind]}"
    s = arrays[name].astype(np.int64)
    n = s[..., KA.F_N]
    row, pos = np.argwhere(n > 0 if with_deals else n == 0)[0]
    s[row, pos, field] = value(s[row, pos])
    arrays[name] = s
    return arrays


#: Mutations that always make an atlas malformed: name -> (arrays, draw) -> arrays.
MALFORMED = {
    "drop an array": lambda a, d: {
        k: v for k, v in a.items() if k != d(st.sampled_from(ATLAS_ARRAYS))
    },
    "meta not JSON": lambda a, d: {
        **a,
        "meta": np.frombuffer(b"\xff" + d(st.binary(max_size=20)), np.uint8),
    },
    "meta a JSON list": lambda a, d: {**a, "meta": np.frombuffer(b"[1, 2]", np.uint8)},
    "meta 2-D": lambda a, d: {**a, "meta": a["meta"].reshape(1, -1)},
    "meta key missing": lambda a, d: _meta(a, d, delete=True),
    "meta key of a wrong type": lambda a, d: _meta(a, d, delete=False),
    "keys swapped": lambda a, d: _swap(a, d, d(st.sampled_from(["keys_suit", "keys_all"]))),
    "keys cut": lambda a, d: {**a, "keys_all": a["keys_all"][:-1]},
    "keys as floats": lambda a, d: {**a, "keys_suit": a["keys_suit"].astype(np.float64)},
    "a multiplicity changed": lambda a, d: _bump(a, d, f"mult_{d(st.sampled_from(KINDS))}"),
    "sums of another shape": lambda a, d: {**a, "sums_nt": a["sums_nt"][:, :3]},
    "sums as floats": lambda a, d: {**a, "sums_at": a["sums_at"].astype(np.float64)},
    "negative deals": lambda a, d: _set_cell(a, d(st.integers(0, 2)), KA.F_N, lambda c: -1),
    "more made than deals": lambda a, d: _set_cell(
        a, d(st.integers(0, 2)), KA.F_MADE, lambda c: c[KA.F_N] + d(st.integers(1, 9))
    ),
    "negative second moment": lambda a, d: _set_cell(
        a, d(st.integers(0, 2)), KA.F_LEVEL + KA.L_NET2, lambda c: -d(st.integers(1, 9))
    ),
    "values in a cell without deals": lambda a, d: _set_cell(
        a, d(st.integers(0, 2)), KA.F_CARD, lambda c: d(st.integers(1, 99)), with_deals=False
    ),
    "deals differ from the meta": lambda a, d: _set_cell(
        a, d(st.integers(0, 2)), KA.F_N, lambda c: c[KA.F_N] + d(st.integers(1, 9))
    ),
    "no deals at all": lambda a, d: _empty(a),
    "an object array": lambda a, d: {**a, "mult_nt": np.array([object()] * 3, dtype=object)},
}


def _meta(arrays, draw, delete):
    meta = json.loads(bytes(arrays["meta"]))
    key = draw(st.sampled_from(["ruleset", "options", "play", "deals"]))
    if delete:
        del meta[key]
    else:
        wrong = {
            "ruleset": st.one_of(st.integers(), st.none(), st.lists(st.text(max_size=3))),
            "options": st.one_of(st.integers(), st.text(max_size=5), st.none()),
            "play": st.one_of(st.integers(), st.none(), st.booleans()),
            "deals": st.one_of(st.integers(max_value=-1), st.text(max_size=4), st.floats()),
        }[key]
        meta[key] = draw(wrong)
    return {**arrays, "meta": np.frombuffer(json.dumps(meta).encode(), np.uint8)}


def _swap(arrays, draw, name):
    a = arrays[name].copy()
    i = draw(st.integers(0, len(a) - 2))
    a[i], a[i + 1] = a[i + 1], a[i]
    return {**arrays, name: a}


def _bump(arrays, draw, name):
    a = arrays[name].copy()
    a[draw(st.integers(0, len(a) - 1))] += draw(st.sampled_from([-1, 1, 7]))
    return {**arrays, name: a}


def _empty(arrays):
    out = dict(arrays)
    for name in KINDS:
        out[f"sums_{name}"] = np.zeros_like(arrays[f"sums_{name}"])
    meta = json.loads(bytes(arrays["meta"]))
    meta["deals"] = 0
    out["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    return out


@SETTINGS
@given(data=st.data())
def test_malformed_atlases_are_never_used(tmp_path, atlas_arrays, data):
    name = data.draw(st.sampled_from(sorted(MALFORMED)))
    arrays = MALFORMED[name](dict(atlas_arrays), data.draw)
    path = save_arrays(tmp_path / "m.npz", arrays)
    with pytest.raises(ValueError) as exc:
        load(path)
    one_line(exc.value, path)


corruption = st.one_of(
    st.tuples(
        st.just("flip"),
        st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)), min_size=1, max_size=4),
    ),
    st.tuples(st.just("truncate"), st.floats(0, 1)),
    st.tuples(st.just("insert"), st.tuples(st.floats(0, 1), st.binary(min_size=1, max_size=8))),
    st.tuples(st.just("delete"), st.tuples(st.floats(0, 1), st.integers(1, 64))),
)


def corrupt(data: bytes, how) -> bytes:
    kind, arg = how
    b = bytearray(data)
    at = lambda f: min(int(f * len(b)), len(b) - 1)  # noqa: E731
    if kind == "flip":
        for f, bit in arg:
            b[at(f)] ^= 1 << bit
    elif kind == "truncate":
        del b[at(arg) :]
    elif kind == "insert":
        b[at(arg[0]) : at(arg[0])] = arg[1]
    else:
        del b[at(arg[0]) : at(arg[0]) + arg[1]]
    return bytes(b)


@SETTINGS
@given(how=corruption)
def test_a_corrupt_atlas_is_refused_or_reads_unchanged(tmp_path, atlas_file, how):
    """Random flips, truncation, inserted or deleted bytes: one line naming the file, or
    (a byte the reader never uses, e.g. a zip timestamp) exactly the original atlas."""
    path = tmp_path / "c.npz"
    path.write_bytes(corrupt(atlas_file.read_bytes(), how))
    try:
        table = load(path)
    except ValueError as exc:
        one_line(exc, path)
        return
    same_table(table, small_atlas())


def test_cli_atlas_show_and_bidding_refuse_a_bad_atlas_in_one_line(tmp_path, atlas_file):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(atlas_file.read_bytes()[:-100])
    load_atlas.cache_clear()
    rc, _, err = run_cli(["atlas", "show", "-o", bad])
    one_line_error(rc, err, "bad.npz", "truncated")
    rc, _, err = run_cli(["simulate", "--deals", 5, "--bid", f"atlas:{bad}", "-o", tmp_path / "x"])
    one_line_error(rc, err, "bad.npz")
    empty = save_arrays(tmp_path / "empty.npz", _empty(np.load(atlas_file)))
    rc, _, err = run_cli(["atlas", "show", "-o", empty])
    one_line_error(rc, err, "empty.npz", "no deals")


# --------------------------------------------------------------------------- manifests


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address="127.0.0.1:0"
    ) as c:
        yield c


def _dataset(tmp_path_factory, cluster, seed):
    from belote_sim.simulation.distributed import run_study

    out = tmp_path_factory.mktemp("ds") / f"ds{seed}"
    run_study(
        make_study("common", seed=seed, chunk_size=CHUNK),
        N,
        out,
        scheduler=cluster.scheduler_address,
    )
    return out


@pytest.fixture(scope="module")
def dataset_source(tmp_path_factory, cluster):
    return _dataset(tmp_path_factory, cluster, 5)


@pytest.fixture
def dataset(tmp_path, dataset_source):
    out = tmp_path / "ds"
    shutil.copytree(dataset_source, out)
    return out


def manifest_of(out):
    return json.loads((out / "_manifest.json").read_text())


def damaged(manifest, case):
    m = json.loads(json.dumps(manifest))
    e = m["chunks"][0]
    return {
        "an empty list": [],
        "an empty object": {},
        "null": None,
        "no chunks": {k: v for k, v in m.items() if k != "chunks"},
        "no n_chunks": {k: v for k, v in m.items() if k != "n_chunks"},
        "no provenance": {k: v for k, v in m.items() if k != "provenance"},
        "chunks a number": {**m, "chunks": 5},
        "an entry a number": {**m, "chunks": [5]},
        "an entry without sha256": {**m, "chunks": [{k: v for k, v in e.items() if k != "sha256"}]},
        "a file outside the directory": {**m, "chunks": [{**e, "file": "../../x.parquet"}]},
        "a chunk listed twice": {**m, "chunks": [e, e]},
        "a chunk out of range": {**m, "chunks": [{**e, "chunk": 99}]},
        "rows that do not match": {**m, "chunks": [{**e, "rows": 7}]},
        "n_chunks that do not match": {**m, "n_chunks": 9},
        "bad aggregates": {**m, "chunks": [{**e, "aggregates": {"mp": 3}}]},
        "7 players": {**m, "provenance": {**m["provenance"], "options": {"players": 7}}},
        "complete as text": {**m, "complete": "yes"},
    }[case]


CASES = [
    "an empty list",
    "an empty object",
    "null",
    "no chunks",
    "no n_chunks",
    "no provenance",
    "chunks a number",
    "an entry a number",
    "an entry without sha256",
    "a file outside the directory",
    "a chunk listed twice",
    "a chunk out of range",
    "rows that do not match",
    "n_chunks that do not match",
    "bad aggregates",
    "7 players",
    "complete as text",
]


@pytest.mark.parametrize("case", CASES)
def test_damaged_manifests_are_one_line_errors(tmp_path, dataset, case):
    from belote_sim.simulation.distributed import run_study

    good = manifest_of(dataset)
    (dataset / "_manifest.json").write_text(json.dumps(damaged(good, case)))
    for argv in (
        ["dataset", "verify", dataset],
        ["report", dataset, "-o", tmp_path / "r"],
        ["export-replay", dataset / "part-000000.parquet", "--rows", "0:1"],
    ):
        rc, _, err = run_cli(argv)
        if argv[0] == "export-replay":  # a part alone: not checked by this manifest
            assert rc == 0 and "warning" in err and "Traceback" not in err, err
            continue
        one_line_error(rc, err, "_manifest.json", "rebuild-manifest")
    with pytest.raises(ValueError, match="rebuild-manifest"):
        run_study(make_study("common", seed=5, chunk_size=CHUNK), N, dataset, scheduler="x:1")
    # an unreadable manifest is rebuilt from the parts (no --force needed)
    rc, out, err = run_cli(["dataset", "rebuild-manifest", dataset])
    assert rc == 0 and "3 of 3 chunks" in out, out + err
    rc, out, _ = run_cli(["dataset", "verify", dataset])
    assert rc == 0, out


@pytest.mark.parametrize(
    "text",
    [b"", b"{", b"\xff\xfe\x00", b"[" * 100_000, b'{"format": "belote-sim-dataset/1"}', b"1e999"],
)
def test_unparsable_manifests_are_one_line_errors(tmp_path, dataset, text):
    (dataset / "_manifest.json").write_bytes(text)
    rc, _, err = run_cli(["dataset", "verify", dataset])
    one_line_error(rc, err, "_manifest.json")
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r"])
    one_line_error(rc, err, "_manifest.json")


json_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=5),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=5,
)


def _paths(value, prefix=()):
    """Every path into a JSON value (keys and list indices)."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _mutate(value, path, new, delete):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = dict(value)
        if delete and not rest:
            del out[head]
        else:
            out[head] = _mutate(value[head], rest, new, delete)
        return out
    out = list(value)
    if delete and not rest:
        del out[head]
    else:
        out[head] = _mutate(value[head], rest, new, delete)
    return out


@SETTINGS
@given(data=st.data())
def test_random_manifest_damage_is_refused_or_harmless(tmp_path_factory, dataset_source, data):
    """A random field of the manifest deleted or replaced by random JSON, or its text
    flipped or cut: load_manifest gives one line naming the file, or a manifest that
    the readers (dataset_status, verify_dataset) use without any other exception and
    without reading outside the directory."""
    from belote_sim.simulation.manifest import dataset_status, load_manifest, verify_dataset

    out = tmp_path_factory.mktemp("m") / "ds"
    shutil.copytree(dataset_source, out)
    good = manifest_of(out)
    if data.draw(st.booleans()):
        paths = list(_paths(good))
        path = data.draw(st.sampled_from(paths))
        delete = bool(path) and data.draw(st.booleans())
        text = json.dumps(_mutate(good, path, data.draw(json_value), delete)).encode()
    else:
        text = corrupt(json.dumps(good, indent=1).encode(), data.draw(corruption))
    (out / "_manifest.json").write_bytes(text)
    try:
        manifest = load_manifest(out)
    except ValueError as exc:
        one_line(exc, out / "_manifest.json")
        return
    try:
        status = dataset_status(out, allow_incomplete=True)
        assert all(os.path.dirname(p) == str(out) for p in status["paths"])
        verify_dataset(out)
    except ValueError as exc:
        assert "\n" not in str(exc)
    assert isinstance(manifest, dict)


def test_rebuild_manifest_refuses_parts_of_mixed_studies(tmp_path_factory, cluster, dataset):
    other = _dataset(tmp_path_factory, cluster, 6)
    for c in (1, 2):  # 2 of the 3 parts come from another study (seed 6)
        name = f"part-00000{c}.parquet"
        shutil.copy(other / name, dataset / name)
    (dataset / "_manifest.json").unlink()
    rc, _, err = run_cli(["dataset", "rebuild-manifest", dataset])
    one_line_error(rc, err, "2 different studies", "seed 6", "seed 5", "part-000001.parquet")
    assert not (dataset / "_manifest.json").exists()

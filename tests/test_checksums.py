"""A flipped byte never reads as good data (issue 24, finding 4).

Single-file tables carry the SHA-256 of the whole file in their completion mark
(``table_checksum``); ``read_deals``, ``report`` and ``export-replay`` check it.  Dataset
readers check every part's SHA-256 in the manifest by default.  ``--no-verify``
(``verify=False``) skips both.  Files written before checksums are read with a one-line
warning.  Tables are tiny: the file runs in seconds.
"""

import json
import os
import shutil
import warnings

import numpy as np
import pyarrow.parquet as pq
import pytest
from cli_run import one_line_error, run_cli

from belote_sim.simulation.deal_table import read_deals, verify_table
from belote_sim.simulation.runner import make_study, simulate_to_parquet
from belote_sim.simulation.table_checksum import (
    GrowingDigest,
    UnverifiedTableWarning,
    seal_table,
    table_checksum,
)

CHUNK = 200
N = 600  # 3 chunks


@pytest.fixture(scope="module")
def study():
    return make_study("common", seed=5, chunk_size=CHUNK)


@pytest.fixture(scope="module")
def table(tmp_path_factory, study):
    path = tmp_path_factory.mktemp("table") / "deals.parquet"
    simulate_to_parquet(str(path), N, study)
    return path


def seed_byte(path, row_group=1):
    """A byte in the middle of the values of the ``seed`` column in a row group (random
    64-bit words stored as they are, PLAIN or in a dictionary page: a flipped byte there
    changes one seed and nothing else)."""
    meta = pq.ParquetFile(path).metadata
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    col = meta.row_group(row_group).column(names.index("seed"))
    start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
    return start + col.total_compressed_size // 2


def flipped(src, dst, pos, bit=0x10):
    data = bytearray(src.read_bytes())
    data[pos] ^= bit
    dst.write_bytes(bytes(data))
    return dst


def test_a_finished_table_carries_its_checksum_and_reads_clean(table):
    mark = json.loads(pq.read_metadata(table).metadata[b"belote_sim_complete"])
    assert mark["complete"] is True and len(mark["sha256"]) == 64
    assert table_checksum(table) == "verified"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_deals(str(table))) == N


def test_the_finding_a_flipped_seed_byte_reads_as_good_data_without_the_check(tmp_path, table):
    """The finding as it was: an altered value in a PLAIN column reads fine unless the
    checksum is checked.  With it (the default) every reader refuses the file."""
    bad = flipped(table, tmp_path / "bad.parquet", seed_byte(table))
    good = read_deals(str(table))
    altered = read_deals(str(bad), verify=False)
    assert (altered["seed"] != good["seed"]).sum() == 1  # silently wrong without the check
    with pytest.raises(ValueError, match="bad.parquet: checksum mismatch"):
        read_deals(str(bad))
    rc, _, err = run_cli(["report", bad, "-o", tmp_path / "r"])
    one_line_error(rc, err, "checksum mismatch", "bad.parquet")
    assert not (tmp_path / "r").exists()
    rc, _, err = run_cli(["export-replay", bad, "--rows", "0:2"])
    one_line_error(rc, err, "checksum mismatch")
    # --no-verify skips the check (for speed, at the user's risk)
    rc, out, err = run_cli(["export-replay", bad, "--rows", "0:2", "--no-verify"])
    assert rc == 0 and len(out.splitlines()) == 2, err


def test_a_flipped_byte_anywhere_is_refused_or_reads_unchanged(tmp_path, table):
    """Every 97th byte of the file and every byte of its last 600 (the footer: schema,
    row-group offsets, provenance, completion mark): read_deals either refuses the file
    with one line naming it or reads exactly the original table (a flip in a byte the
    reader never uses); never altered rows."""
    good = read_deals(str(table))
    size = table.stat().st_size
    positions = sorted(set(range(0, size, 97)) | set(range(max(0, size - 600), size)))
    refused = 0
    for pos in positions:
        bad = flipped(table, tmp_path / "f.parquet", pos, 1 << (pos % 8))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnverifiedTableWarning)
                df = read_deals(str(bad))
        except ValueError as exc:
            assert "\n" not in str(exc) and "f.parquet" in str(exc), str(exc)
            refused += 1
            continue
        assert df.equals(good), pos
    assert refused >= len(positions) - 5


def test_seal_covers_the_footer_and_refuses_a_file_without_mark(tmp_path, table):
    copy = tmp_path / "c.parquet"
    shutil.copy(table, copy)
    with pytest.raises(ValueError, match="no completion mark"):
        seal_table(copy)  # sealed already
    # the provenance lives in the footer: a changed digit of the seed is refused
    data = copy.read_bytes()
    prov = data.rfind(b'"seed": 5')
    assert prov > 0
    copy.write_bytes(data[:prov] + b'"seed": 6' + data[prov + 9 :])
    with pytest.raises(ValueError, match="checksum mismatch"):
        table_checksum(copy)


def unsealed_twins(tmp_path, hashed):
    """Two identical Parquet files of three row groups with a completion mark, unsealed;
    the first hashed while it was written (a ``GrowingDigest`` updated after each row
    group, as the writer of ``simulate_to_parquet`` does), when ``hashed``."""
    import pyarrow as pa

    from belote_sim.simulation.safe_io import completion_mark

    paths = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    written = GrowingDigest(paths[0]) if hashed else None
    rng = np.random.default_rng(0)
    groups = [pa.table({"x": rng.integers(0, 1 << 40, 5000)}) for _ in range(3)]
    for path in paths:
        with pq.ParquetWriter(path, groups[0].schema) as writer:
            for group in groups:
                writer.write_table(group)
                if written is not None and path == paths[0]:
                    written.update()
            writer.add_key_value_metadata(completion_mark(15000, 3, 3))
    return paths, written


def test_a_digest_taken_while_writing_seals_as_a_whole_read(tmp_path):
    (hashed, plain), written = unsealed_twins(tmp_path, True)
    assert 0 < written.length < hashed.stat().st_size  # the row groups, not the footer
    digest = seal_table(hashed, written)
    written.close()
    assert digest == seal_table(plain)  # the whole file read at the end
    assert hashed.read_bytes() == plain.read_bytes()
    assert table_checksum(hashed) == "verified"


def test_a_digest_that_could_not_read_falls_back_to_the_whole_file(tmp_path):
    (hashed, plain), written = unsealed_twins(tmp_path, True)
    hashed.rename(tmp_path / "moved.parquet")
    written.close()
    written.update()  # the file is gone: unusable from now on
    assert written.length == -1
    (tmp_path / "moved.parquet").rename(hashed)
    assert seal_table(hashed, written) == seal_table(plain)
    assert table_checksum(hashed) == "verified"


def old_style(table, dst):
    """``table`` as a writer before checksums left it: the same rows, provenance and a
    completion mark without ``sha256``."""
    pf = pq.ParquetFile(table)
    file_meta = pf.metadata.metadata
    mark = json.loads(file_meta[b"belote_sim_complete"])
    del mark["sha256"]
    arrow = pf.read()
    writer = pq.ParquetWriter(dst, arrow.schema)
    writer.write_table(arrow)
    writer.add_key_value_metadata({"belote_sim_complete": json.dumps(mark)})
    writer.close()
    return dst


def test_old_files_without_a_checksum_are_read_with_a_one_line_warning(tmp_path, table):
    old = old_style(table, tmp_path / "old.parquet")
    with pytest.warns(UnverifiedTableWarning, match="old.parquet: no checksum"):
        df = read_deals(str(old))
    assert len(df) == N
    with pytest.warns(UnverifiedTableWarning):
        assert verify_table(str(old)) == "none"
    rc, _, err = run_cli(["report", old, "-o", tmp_path / "r"])
    assert rc == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("belote-sim report: warning: "), err
    assert "no checksum" in lines[0]
    rc, out, err = run_cli(["export-replay", old, "--rows", "0:1"])
    assert rc == 0 and len(out.splitlines()) == 1, err
    assert len(err.strip().splitlines()) == 2 and "warning" in err  # + the records line
    # --no-verify: no check, so no warning
    rc, _, err = run_cli(["export-replay", old, "--rows", "0:1", "--no-verify"])
    assert rc == 0 and "warning" not in err, err


# --------------------------------------------------------------------------- datasets


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address="127.0.0.1:0"
    ) as c:
        yield c


@pytest.fixture(scope="module")
def dataset_source(tmp_path_factory, cluster, study):
    from belote_sim.simulation.distributed import run_study

    out = tmp_path_factory.mktemp("ds") / "ds"
    run_study(study, N, out, scheduler=cluster.scheduler_address)
    return out


@pytest.fixture
def dataset(tmp_path, dataset_source):
    out = tmp_path / "ds"
    shutil.copytree(dataset_source, out)
    return out


def test_dataset_readers_verify_the_parts_checksums_by_default(tmp_path, dataset):
    from belote_sim.simulation.distributed import dataset_summary, read_dataset

    good = read_dataset(dataset).to_table().to_pandas()
    part = dataset / "part-000001.parquet"
    flipped(part, part, seed_byte(part, 0))
    # without the check: one seed silently altered (the finding: 11 of 12 flips)
    altered = read_dataset(dataset, verify=False).to_table().to_pandas()
    assert (altered["seed"] != good["seed"]).sum() == 1
    # with it (the default): every reader refuses, naming the part
    for read in (
        lambda: read_dataset(dataset),
        lambda: read_deals(str(dataset)),
        lambda: dataset_summary(dataset),
        lambda: read_deals(str(part)),  # a part read on its own: checked by the manifest
    ):
        with pytest.raises(ValueError, match="part-000001.parquet.*checksum mismatch"):
            read()
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r"])
    one_line_error(rc, err, "chunk 1: part-000001.parquet checksum mismatch")
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r", "--no-verify"])
    assert rc == 0, err
    # --allow-incomplete leaves the altered part out
    df = read_dataset(dataset, allow_incomplete=True).to_table().to_pandas()
    assert len(df) == N - CHUNK and not df["deal_id"].between(CHUNK, 2 * CHUNK - 1).any()
    rc, out, _ = run_cli(["dataset", "verify", dataset])
    assert rc == 1 and "chunk 1: part-000001.parquet checksum mismatch" in out


def test_every_flipped_byte_of_a_part_is_refused(tmp_path, dataset):
    from belote_sim.simulation.distributed import read_dataset

    part = dataset / "part-000002.parquet"
    original = part.read_bytes()
    rng = np.random.default_rng(0)
    for pos in rng.choice(len(original), 12, replace=False):
        flipped_bytes = bytearray(original)
        flipped_bytes[pos] ^= 0x04
        part.write_bytes(bytes(flipped_bytes))
        with pytest.raises(ValueError, match="chunk 2"):
            read_dataset(dataset)
    part.write_bytes(original)
    assert read_dataset(dataset).count_rows() == N


def test_a_part_read_alone_without_its_manifest_warns(tmp_path, dataset):
    part = tmp_path / "alone.parquet"
    shutil.copy(dataset / "part-000000.parquet", part)
    with pytest.warns(UnverifiedTableWarning, match="without a manifest"):
        assert len(read_deals(str(part))) == CHUNK
    os.unlink(part)


def test_a_games_table_is_sealed(tmp_path):
    """``simulate --games -o`` writes its table with a checksum too; a flipped byte
    in it fails the check."""
    from belote_sim.cli.main import main
    from belote_sim.simulation.table_checksum import table_checksum

    path = tmp_path / "g.parquet"
    assert main(["simulate", "--games", "20", "--play", "greedy", "-o", str(path), "-q"]) == 0
    assert table_checksum(str(path)) == "verified"
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        table_checksum(str(path))

"""Many deals: simulate studies in chunks (``runner``), the deals table and its
Parquet files (``deal_table``), replay records from a table (``export``) and runs
on a Dask cluster into a dataset directory (``distributed``)."""

import os

__all__: list[str] = []

# Idle threads of numba's OpenMP threading layer sleep at once instead of spinning for
# a few milliseconds (libgomp's default): a spinning thread takes a core from the thread
# that writes the Parquet file of ``simulate -o`` (2 cores: 2 kernel threads and the
# writer), and from any other process.  Measured on the 2-core machine: ~7% less CPU
# for ``simulate -o``, and the 2-thread kernel rates no slower (faster under load).
# libgomp reads it when numba first starts its threads, after this import; a value
# already set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

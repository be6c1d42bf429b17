"""Many deals: simulate studies in chunks (``runner``), the deals table and its
Parquet files (``deal_table``), replay records from a table (``export``) and runs
on a Dask cluster into a dataset directory (``distributed``)."""

__all__: list[str] = []

# Idle OpenMP threads sleep (OMP_WAIT_POLICY=PASSIVE): set by the package's __init__,
# which every import of a belote_sim module runs first.

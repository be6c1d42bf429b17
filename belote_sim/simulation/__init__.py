"""Many deals: simulate studies in chunks (``runner``), the deals table and its
Parquet files (``deal_table``), replay records from a table (``export``) and runs
on a Dask cluster into a dataset directory (``distributed``)."""

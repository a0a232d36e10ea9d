"""Score tables: the in-memory reader and the streaming reader family for CSV, JSONL and Parquet."""

"""Released tables: a partition of the rows, the verified release, the result and its provenance."""

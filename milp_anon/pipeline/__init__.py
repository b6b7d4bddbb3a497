"""The pipeline: one table and one request, through small stages in one direction, to a Result."""

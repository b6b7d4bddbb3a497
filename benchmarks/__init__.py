"""Benchmarks of milp-anon (not tests: they measure, they do not assert)."""

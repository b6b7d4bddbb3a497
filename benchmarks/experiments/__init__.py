"""Experiments off the shipped path: ideas tried against the package, kept with their tests and results.

Nothing in ``milp_anon`` imports these. Each module's docstring names the
result file under ``benchmarks/results/`` that holds its numbers.
"""

"""Incumbents: heuristic starts, LP rounding, large-neighbourhood search, the full-domain lattice search."""

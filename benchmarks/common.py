"""Shared helpers of the benchmark scripts."""


def fmt(v, nd=2):
    """A table cell: thousands separators, ``nd`` decimals for floats, ``–`` for missing."""
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)

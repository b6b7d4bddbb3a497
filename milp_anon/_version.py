"""The version of milp-anon (also in pyproject.toml)."""

__version__ = "0.1.0"

"""Exceptions of milp-anon.

Every error a user can cause is an :class:`InputError` with a one-line message
naming the cause; the command line prints it and exits with code 2. A
:class:`VerificationError` means a released table failed the independent
verifier: that is a bug in the toolkit, never a result.
"""


class MilpAnonError(Exception):
    """Base class of the toolkit's exceptions."""


class InputError(MilpAnonError, ValueError):
    """Bad input: a missing column, an empty cell, a bad parameter, ..."""


class ModelTooLargeError(InputError):
    """The model would not fit in the memory allowed for it."""


class VerificationError(MilpAnonError, AssertionError):
    """A solution failed the independent verifier (a bug, never an output)."""


class SolverError(MilpAnonError, RuntimeError):
    """The solver failed in a way that is not a status (e.g. not installed)."""

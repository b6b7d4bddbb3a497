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


class OptionViolation(VerificationError):
    """A table meets every criterion but not a budget or a bound on the number of groups.

    Not a bug when a heuristic made the table: it is then merely not used.
    """


class InfeasibleRequest(MilpAnonError):
    """No release meets the request, so it has no model to build or write (``reason`` says why).

    :func:`~milp_anon.api.anonymize` reports this as a result with status
    ``infeasible`` instead; it is raised only where a model is asked for.
    """

    def __init__(self, reason: str):
        super().__init__(f"infeasible request, no model: {reason}")
        self.reason = reason


class SolverError(MilpAnonError, RuntimeError):
    """The solver failed in a way that is not a status (e.g. not installed)."""

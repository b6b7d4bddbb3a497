"""The assignment model and what enters it (the mathematics: ``formulations/*.md``).

* :mod:`.assignment` — the model's columns and core rows, building, reading a solution back, release;
* :mod:`.rows` — each criterion's rows and size estimate;
* :mod:`.options` — budget, number of output groups, objectives;
* :mod:`.partial_split` — the row generation's ``R(A)`` with units split by sensitive value only inside ``A``.
"""

from milp_anon.formulations.assignment import (
           AssignmentModel,
           build,
           integer_assignment,
           read_assignment,
           release_assignment,
)
from milp_anon.formulations.rows import CriterionRows, rows_of

__all__ = ["AssignmentModel", "CriterionRows", "build", "integer_assignment", "read_assignment", "release_assignment",
           "rows_of"]

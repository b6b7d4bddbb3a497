"""Re-identification risk of a released table, read from its equivalence classes.

**Prosecutor model** (ARX's ``RiskModelSampleRisks``; El Emam, *Guide to the De-Identification of Personal
Health Information*, 2013): the attacker knows the target is in the released table, so a record whose class
(the released rows identical on every QI) has ``|E|`` rows is re-identified with probability ``1/|E|``.
Reported over the *released* records (withheld records are not in the release and carry no risk):

* ``max`` — the highest record risk, ``1 / (smallest class)``;
* ``average`` — the mean record risk, ``(1/n_r) Σ_r 1/|E(r)| = #classes / n_r``;
* ``records_above`` — how many records have a risk above ``threshold`` (ARX's default 0.2: classes of fewer
  than 5 rows), and ``records_above_share`` the same as a share of the released records;
* ``threshold`` — the threshold used.

Computed from the released table alone, never from the model. (The journalist model, against a population
table, is a separate function.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["PROSECUTOR_THRESHOLD", "class_sizes_of_rows", "prosecutor_risk"]

#: ARX's default risk threshold (a record whose class has fewer than 5 rows is above it)
PROSECUTOR_THRESHOLD = 0.2


def class_sizes_of_rows(released: pd.DataFrame, qi, withheld=None) -> np.ndarray:
    """``(n_released,)`` the size of each released record's equivalence class (withheld rows left out)."""
    frame = released if withheld is None else released[~np.asarray(withheld, dtype=bool)]
    if not len(frame):
        return np.zeros(0, dtype=np.int64)
    keys = frame[list(qi)].astype(str)
    return keys.groupby(list(qi), sort=False, dropna=False)[list(qi)[0]].transform("size").to_numpy(np.int64)


def prosecutor_risk(released: pd.DataFrame, qi, withheld=None, threshold: float = PROSECUTOR_THRESHOLD) -> dict:
    """The prosecutor risk of ``released`` (module docstring); ``withheld``: a mask of withheld rows.

    Returns ``{max, average, records_above, records_above_share, threshold}`` (``max``, ``average`` and the
    share are ``None`` when no record is released).
    """
    sizes = class_sizes_of_rows(released, qi, withheld)
    if sizes.size == 0:
        return {"max": None, "average": None, "records_above": 0, "records_above_share": None,
                "threshold": threshold}
    risk = 1.0 / sizes
    above = int((risk > threshold).sum())
    return {"max": float(risk.max()), "average": float(risk.mean()), "records_above": above,
            "records_above_share": above / sizes.size, "threshold": threshold}

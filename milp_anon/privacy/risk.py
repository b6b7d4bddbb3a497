"""Re-identification risk of a released table.

Journalist model (with a population table): an attacker who knows a target is in the population but not
whether in the release links it to a released class through its QI values; the risk of a released record is
``1 / |population records matching its class|`` (El Emam; ARX's journalist risk with a population table).
The matches are counted from the released cells by the verifier's definition
(:func:`milp_anon.privacy.verify.class_population_matches`), independently of any model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from milp_anon.privacy.verify import class_population_matches

__all__ = ["journalist_risk"]

#: ARX's default threshold of a record's risk
RISK_THRESHOLD = 0.2


# --- journalist risk (population table) ----------------------------------------------------------------------

def journalist_risk(released: pd.DataFrame, population: pd.DataFrame, qi, recoding=None,
                    threshold: float = RISK_THRESHOLD, withheld=None) -> dict:
    """``{max, average, records_above}`` of the journalist risk ``1 / pop(class)`` over the released records.

    ``population``: a DataFrame with the QI columns (e.g. ``KMap.population``). ``withheld``: a boolean mask
    of records left out (record suppression; ``None``: none; :func:`~milp_anon.privacy.verify.withheld_rows`
    finds the rows written at the root); they are not released and carry no risk. ``records_above``: records
    whose risk is above ``threshold`` (ARX's default 0.2). A class matching no population record (a table not
    drawn from this population) has risk 1."""
    qi = list(qi)
    released = released.reset_index(drop=True)
    keep = np.ones(len(released), dtype=bool) if withheld is None else ~np.asarray(withheld, dtype=bool)
    rel = released[keep].reset_index(drop=True)
    if len(rel) == 0:
        return {"max": 0.0, "average": 0.0, "records_above": 0}
    classes, matches = class_population_matches(rel, qi, population, recoding)
    sizes = np.array([len(r) for r in classes], dtype=np.int64)
    risk = np.array([1.0 / m if m > 0 else 1.0 for m in matches])
    return {"max": float(risk.max()), "average": float((risk * sizes).sum() / sizes.sum()),
            "records_above": int(sizes[risk > threshold].sum())}

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

Computed from the released table alone, never from the model.

**Journalist model** (with a population table): an attacker who knows a target is in the population but not
whether in the release links it to a released class through its QI values; the risk of a released record is
``1 / |population records matching its class|`` (El Emam; ARX's journalist risk with a population table).
The matches are counted from the released cells by the verifier's definition
(:func:`milp_anon.privacy.verify.class_population_matches`), independently of any model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from milp_anon.privacy.verify import class_population_matches

__all__ = ["PROSECUTOR_THRESHOLD", "class_sizes_of_rows", "journalist_risk", "prosecutor_risk", "risk_report"]

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



# --- journalist risk (population table) ----------------------------------------------------------------------

def journalist_risk(released: pd.DataFrame, population: pd.DataFrame, qi, recoding=None,
                    threshold: float = PROSECUTOR_THRESHOLD, withheld=None) -> dict:
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


def risk_report(released: pd.DataFrame, qi, criteria=(), recoding=None, withheld=None) -> dict:
    """REPORT.json's ``risk``: ``prosecutor`` always, and ``journalist`` when a criterion carries a population
    table (k-map, δ-presence: their ``population``)."""
    out = {"prosecutor": prosecutor_risk(released, qi, withheld)}
    population = next((c.population for c in criteria if getattr(c, "population", None) is not None), None)
    if population is not None:
        out["journalist"] = journalist_risk(released, population, qi, recoding, withheld=withheld)
    return out

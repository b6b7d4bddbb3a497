"""Runs inside the separate pycanon virtual environment (``make test`` creates it).

Reads a JSON list of jobs from argv[1]: each names a released CSV, its
delimiter, the QI columns and the sensitive column, and whether the sensitive
column is numeric (pycanon then uses ordered EMD) or text (equal distance).
Prints one JSON object per job: pycanon's k, distinct l and t.
"""

import json
import sys

import pandas as pd
from pycanon import anonymity

jobs = json.load(open(sys.argv[1]))
out = []
for job in jobs:
    df = pd.read_csv(job["csv"], sep=job["sep"], dtype=str, keep_default_na=False).reset_index(drop=True)
    s = job["sensitive"]
    if job["numeric"]:
        df[s] = df[s].astype(int)
    res = {"k": int(anonymity.k_anonymity(df, job["qi"]))}
    res["l"] = int(anonymity.l_diversity(df, job["qi"], [s]))
    res["t"] = float(anonymity.t_closeness(df, job["qi"], [s]))
    out.append(res)
print(json.dumps(out))

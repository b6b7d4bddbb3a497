"""The capped links of :mod:`benchmarks.experiments.optimality_links` cut off no optimum: the capped model's
optimum is brute force's on random small tables, dense and sparse, k up to 5."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import milp_anon as ma
from benchmarks.experiments.optimality_links import capped_highs
from milp_anon.exact import brute_force_k_anonymity
from milp_anon.formulations import build
from milp_anon.pipeline.solve import prepare
from milp_anon.release.result import Timings


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.data())
def test_capped_links_keep_the_optimum(k, m, data):
    counts = data.draw(st.lists(st.integers(1, 2 * k + 1), min_size=1, max_size=4))
    vectors = data.draw(st.lists(st.tuples(*[st.integers(0, 2)] * m), min_size=len(counts), max_size=len(counts),
                                 unique=True))
    rows = [v for v, c in zip(vectors, counts) for _ in range(c)]
    if len(rows) > 12:
        rows = rows[:12]
    arr = np.array(rows).astype(str)
    expected, _ = brute_force_k_anonymity(arr, k)
    frame = pd.DataFrame(arr, columns=[f"q{c}" for c in range(m)])
    request = ma.Request(ma.KAnonymity(k))
    instance, _, why = prepare(ma.Table.from_frame(frame, list(frame.columns)), request, Timings())
    if expected is None or why:
        assert expected is None
        return
    am = build(instance, request)
    h, _ = capped_highs(am.lm, am, k)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("mip_rel_gap", 0.0)
    h.run()
    assert round(h.getInfo().objective_function_value) == expected

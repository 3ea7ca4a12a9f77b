"""Op cases for family ring_collectives: on a ring of one trainer each op gives X (no oracle: Paddle's need a
communicator), c_embedding against Paddle 2.6.2's recorded values (tests/ops/paddle26.py); refused in one of
several trainers (tests/ops/test_ring_collectives.py)."""

import numpy as np

from op_test import OpCase
from tests.ops.paddle26 import recorded_cases

_X = np.random.default_rng(85).uniform(-1, 1, (3, 4))
_BIG = ("X", "Out")
_SMALL = ("x", "out")
_OPS = {
    **{f"c_reduce_{r}": _BIG for r in ("sum", "max", "min", "prod")},
    **{t: _BIG for t in ("c_identity", "mp_allreduce_sum", "c_concat", "c_split", "c_scatter", "alltoall", "barrier")},
    **{t: _SMALL for t in ("all_reduce", "reduce", "all_gather", "all_to_all", "reduce_scatter")},
}
_GRAD = {"c_identity", "mp_allreduce_sum", "c_concat", "c_split"}

CASES = (
    recorded_cases("ring_collectives")
    + [
        OpCase(t, {i: _X}, lambda ins, a, i=i, o=o: {o: ins[i]}, grad=(i,) if t in _GRAD else (), name=t)
        for t, (i, o) in _OPS.items()
    ]
    + [
        OpCase(t, {"X": [_X, _X[:1]]}, lambda ins, a: {"Out": ins["X"]}, num_outputs={"Out": 2}, name=t)
        for t in ("c_wait_comm", "c_wait_compute")
    ]
)

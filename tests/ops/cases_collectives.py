"""Op cases for family collectives: the ring collective ops a program may hold (pe_cli/ops/collective.py),
on a ring of one process, where each gives X as it is. (c_gen_nccl_id, c_comm_init and c_comm_init_all
write nothing: tests/fluid/test_collective_ops.py runs them in a program.)"""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(5)


def _identity(i, a):
    return {"Out": i["X"]}


CASES = [
    OpCase(op, {"X": rng.normal(size=(3, 4))}, _identity, attrs=attrs, name=f"{op}_one_process")
    for op, attrs in [
        ("c_allreduce_sum", {}),
        ("c_allreduce_max", {"ring_id": 1}),
        ("c_allreduce_min", {}),
        ("c_allreduce_prod", {"use_calc_stream": True}),
        ("c_broadcast", {"root": 0}),
        ("c_allgather", {"nranks": 1}),
        ("c_reducescatter", {"nranks": 1}),
        ("c_sync_calc_stream", {}),
        ("c_sync_comm_stream", {"ring_id": 0}),
    ]
]

# Fluid 1.8's allreduce and broadcast ops, in a program of one process: X itself
CASES += [
    OpCase("allreduce", {"X": np.arange(6.0).reshape(2, 3)}, lambda i, a: {"Out": i["X"]}, attrs={"reduce_type": 2}),
    OpCase("broadcast", {"X": np.arange(6.0).reshape(2, 3)}, lambda i, a: {"Out": i["X"]}, attrs={"root": 0}),
]

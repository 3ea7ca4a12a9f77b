"""Op cases for family dependencies: depend, share_data, share_buffer, nop, the memcpy ops and npu_identity pass X
on, transfer_dtype casts it (no oracle: Paddle's kernels copy, share or cast X, as these do)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(85)
_X = rng.uniform(-1, 1, (3, 4))

CASES = [
    OpCase("depend", {"X": _X, "Dep": [rng.uniform(size=2)]}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase("share_data", {"X": _X}, lambda i, a: {"Out": i["X"]}, grad=("X",)),
    OpCase("nop", {"X": [_X, _X[:1]]}, lambda i, a: {"Out": i["X"]}, num_outputs={"Out": 2}),
    *[
        OpCase(t, {"X": _X}, lambda i, a: {"Out": i["X"]}, attrs={"dst_place_type": p}, grad=("X",), name=t)
        for t, p in (("memcpy", 0), ("memcpy_d2h", 0), ("memcpy_h2d", 1))
    ],
    OpCase("npu_identity", {"x": _X}, lambda i, a: {"out": i["x"]}),
    OpCase(
        "share_buffer",
        {"X": [_X, _X[:2]]},
        lambda i, a: {"Out": i["X"], "XOut": i["X"]},
        num_outputs={"Out": 2, "XOut": 2},
    ),
    OpCase(
        "transfer_dtype",
        {"X": _X},
        lambda i, a: {"Out": i["X"].astype(np.float32)},
        attrs={"out_dtype": 5, "in_dtype": 6},
    ),
]

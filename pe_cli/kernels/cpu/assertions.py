"""assert's CPU out-kernel (meta rule: shapes/assertions.py): an error when Cond is false, naming the values of Data
(the first `summarize` of each)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import assertions as rules
from ..structured import adapter


def assert_out(ins, outs, attrs, meta):
    if bool(np.asarray(ins["Cond"]).reshape(-1)[0]):
        return
    n = attrs["summarize"]
    shown = []
    for i, d in enumerate(ins.get("Data") or []):
        flat = np.asarray(d).reshape(-1)
        shown.append(f"Data[{i}] {list(np.shape(d))}: {flat[: n if n >= 0 else flat.size].tolist()}")
    raise PeError("assert: Cond is false" + ("; " + "; ".join(shown) if shown else ""))


assert_out.launches = None

# the kernel by name CUDA's kernels are given (kernels/cuda/assertions.py's HOST_OPS): the adapter
globals()["assert"] = adapter(rules.assert_meta, assert_out, "assert")

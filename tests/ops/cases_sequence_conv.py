"""Op cases for sequence_conv: a numpy reference that walks each step's context window."""
import numpy as np

from op_test import OpCase
from tests.ops.cases_sequence import lod_tensor

rng = np.random.default_rng(15)


def conv_ref(i, a):
    x, offs = np.asarray(i["X"]), i["X"].lod()[-1]
    n, start = a["contextLength"], a["contextStart"]
    out = []
    for s in range(len(offs) - 1):
        for t in range(offs[s], offs[s + 1]):
            window = [x[t + start + k] if offs[s] <= t + start + k < offs[s + 1] else np.zeros(x.shape[1])
                      for k in range(n)]
            out.append(np.concatenate(window) @ i["Filter"])
    return {"Out": np.array(out)}


CASES = [
    OpCase("sequence_conv", {"X": lod_tensor([4, 1, 3], 3), "Filter": rng.normal(size=(9, 5))}, conv_ref,
           attrs={"contextLength": 3, "contextStart": -1}, grad=("X", "Filter"), name="sequence_conv"),
    OpCase("sequence_conv", {"X": lod_tensor([2, 5], 2), "Filter": rng.normal(size=(8, 3))}, conv_ref,
           attrs={"contextLength": 4, "contextStart": -2}, grad=("X", "Filter"), name="sequence_conv_len4"),
]

"""assert's kernel: an error when Cond is false, naming the values of Data (the first `summarize` of each)."""

import numpy as np

from ...base.errors import PeError


def assert_(ins, attrs):
    if bool(np.asarray(ins["Cond"]).reshape(-1)[0]):
        return {}
    n = attrs["summarize"]
    shown = []
    for i, d in enumerate(ins.get("Data") or []):
        flat = np.asarray(d).reshape(-1)
        shown.append(f"Data[{i}] {list(np.shape(d))}: {flat[: n if n >= 0 else flat.size].tolist()}")
    raise PeError("assert: Cond is false" + ("; " + "; ".join(shown) if shown else ""))


globals()["assert"] = assert_

"""CPU kernels of ops/feed_fetch.py: a feed holder is a list of values (a TensorArray, with their LoD)."""

from ...base.errors import PeError
from ...base.tensor_array import TensorArray


def feed(ins, attrs, ctx):
    holder, col = ins["X"], attrs["col"]
    if not isinstance(holder, list) or not 0 <= col < len(holder) or holder[col] is None:
        raise PeError(f"feed: the feed holder has no value at col {col}; feed the program's inputs in the run")
    lods = getattr(holder, "lods", None) or []
    lod = lods[col] if col < len(lods) else None
    if lod:
        ctx.set_lod("Out", lod)
    return {"Out": holder[col]}


def fetch(ins, attrs):
    out = TensorArray([None] * (attrs["col"] + 1))
    out[attrs["col"]] = ins["X"]
    return {"Out": out}

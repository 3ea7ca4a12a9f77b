"""CPU out-kernels of ops/feed_fetch.py (meta rules: shapes/feed_fetch.py): a feed holder is a list of values (a
TensorArray, with their LoD)."""

from ...base.tensor_array import TensorArray
from ...shapes import feed_fetch as rules
from ..structured import adapter


def feed_out(ins, outs, attrs, meta, ctx):
    """Out: the holder's value at ``col`` itself, its LoD handed back on the call's context."""
    holder, col = ins["X"], attrs["col"]
    lods = getattr(holder, "lods", None) or []
    lod = lods[col] if col < len(lods) else None
    if lod:
        ctx.set_lod("Out", lod)
    outs["Out"] = holder[col]


def fetch_out(ins, outs, attrs, meta):
    """Out: a fetch holder with X at ``col``."""
    out = TensorArray([None] * (attrs["col"] + 1))
    out[attrs["col"]] = ins["X"]
    outs["Out"] = out


feed_out.takes_context = True
feed_out.launches = fetch_out.launches = None

# the kernels by name CUDA's kernels are given (kernels/cuda/feed_fetch.py's HOST_OPS): the adapters
feed = adapter(rules.feed_meta, feed_out, "feed")
fetch = adapter(rules.fetch_meta, fetch_out, "fetch")

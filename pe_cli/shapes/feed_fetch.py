"""Meta rules (shapes/structured.py) of feed and fetch (ops/feed_fetch.py), whose out-kernels read and write the
run's holders (``Structured.python``): feed's Out is the value at ``col`` of the feed holder X (a list of values),
its shape and dtype (None where it is no tensor); fetch's Out is the fetch holder, a tensor array ((None, None):
no tensor). Both "take", ``fresh``: nothing is allocated, the out-kernel puts the value itself."""

from ..base.errors import PeError
from .structured import Meta


def feed_meta(attrs, ins, facts):
    """feed: refuses a holder with no value at ``col`` (the run did not feed it) in one line."""
    holder, col = ins["X"], attrs["col"]
    if not isinstance(holder, list) or not 0 <= col < len(holder) or holder[col] is None:
        raise PeError(f"feed: the feed holder has no value at col {col}; feed the program's inputs in the run")
    value = holder[col]
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    return Meta({"Out": (None, None) if shape is None or dtype is None else (tuple(shape), dtype)}, "take", fresh=True)


def fetch_meta(attrs, ins, facts):
    return Meta({"Out": (None, None)}, "take", fresh=True)

"""The hash layer (ops/hashing.py) with Fluid 1.8's signature."""

__all__ = ["hash"]
import numbers

from ..base.errors import PeError
from .checks import check_variable_and_dtype
from .helper import single


def hash(input, hash_size, num_hash=1, name=None):  # noqa: A001 -- Fluid's name
    """``num_hash`` XXH64 hashes (seeds 0, 1, ...) of each row of int ids ``input`` [N, k], modulo
    ``hash_size``: shape [N, num_hash, 1], of input's dtype. No gradient. (Fluid 1.8.5's layer raises a
    TypeError for every call, its check_type given dtype names for types: pe's builds the op.)"""
    check_variable_and_dtype(input, "input", ("int32", "int64"), "hash")  # Fluid's TypeError
    for what, v in (("hash_size", hash_size), ("num_hash", num_hash)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError(f"hash: {what} must be an int, got {v!r}")  # (Fluid's check_type)
        if v <= 0:
            raise PeError(f"hash: {what} must be an int > 0, got {v!r}")
    return single(
        "hash",
        input,
        {"X": [input]},
        {"num_hash": int(num_hash), "mod_by": int(hash_size)},
        name=name,
        stop_gradient=True,
    )

"""Meta rules (shapes/structured.py) of the ops that move no values of their own (ops/dependencies.py): depend,
share_data, the memcpy ops and npu_identity, whose Out is X as it is (``Meta.aliases``: nothing allocated or
computed), nop and share_buffer, whose list outputs are X's values (aliases too), and transfer_dtype, cast's rule and
out-kernel (to float16 Paddle's conversion, else numpy's into the buffer handed)."""

from ..base.dtypes import convert_dtype
from .manipulation import cast_meta
from .structured import Meta


def _spec(x):
    """A value's (shape, dtype), or (None, None) where it is no tensor (a tensor array, a row-sparse value)."""
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    return (None, None) if shape is None or dtype is None else (tuple(shape), dtype)


def _passed(out, src):
    def meta(attrs, ins, facts):
        return Meta({out: _spec(ins[src])}, "pass", aliases={out: src})

    meta.__name__ = meta.__qualname__ = f"passed_{src}"
    return meta


passed_x_meta = _passed("Out", "X")  # depend (Dep: an order, no data), share_data, memcpy, memcpy_d2h, memcpy_h2d
npu_identity_meta = _passed("out", "x")


def nop_meta(attrs, ins, facts):
    """nop: Out, where it names variables, is X's values (the list of them, as it is: ``Meta.aliases``); with
    no X, an empty list. "pass"."""
    xs = ins.get("X")
    if xs is None:
        return Meta({"Out": []}, "pass")
    return Meta({"Out": [_spec(x) for x in xs]}, "pass", aliases={"Out": "X"})


def share_buffer_meta(attrs, ins, facts):
    """share_buffer: Out[i] and XOut[i] are X[i] (the list of X's values, as it is: ``Meta.aliases``), "pass"."""
    specs = [_spec(x) for x in ins["X"]]
    return Meta({"Out": specs, "XOut": list(specs)}, "pass", aliases={"Out": "X", "XOut": "X"})


def transfer_dtype_meta(attrs, ins, facts):
    """transfer_dtype: cast's rule (shapes/manipulation.cast_meta) for ``out_dtype`` (a VarType code): Out of X's
    shape and that dtype; to float16 from another dtype Paddle's conversion ("paddle_float16", as Paddle's
    TransDataType converts: cast's), else numpy's ("astype")."""
    return cast_meta({"out_dtype": convert_dtype(attrs["out_dtype"])}, ins, facts)

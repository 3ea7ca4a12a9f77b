"""Reductions with Fluid 1.x signatures: mean (of all elements), reduce_sum/mean/max/min/prod,
reduce_all/any and cumsum."""
__all__ = ["cumsum", "mean", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_all", "reduce_any"]
from .helper import LayerHelper, _as_list, _single


def _reduce(op_type):
    def layer(input, dim=None, keep_dim=False, name=None):
        dims = [] if dim is None else _as_list(dim)
        reduce_all = not dims or len(dims) == len(input.shape or ())
        attrs = {"dim": dims or [0], "keep_dim": keep_dim, "reduce_all": reduce_all}
        return _single(op_type, input, {"X": [input]}, attrs, name=name)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = (f"Appends '{op_type}' over the dims ``dim`` (an int or a list; None: all dims, "
                     f"giving shape [1] unless keep_dim).")
    return layer


reduce_sum = _reduce("reduce_sum")
reduce_mean = _reduce("reduce_mean")
reduce_max = _reduce("reduce_max")
reduce_min = _reduce("reduce_min")


def cumsum(x, axis=None, exclusive=None, reverse=None):
    """The running sum of ``x`` along ``axis`` (None: -1, the last dim); ``exclusive`` leaves each
    element out of its own sum, ``reverse`` sums from the end."""
    attrs = {"axis": -1 if axis is None else axis, "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return _single("cumsum", x, {"X": [x]}, attrs)


reduce_prod = _reduce("reduce_prod")
reduce_all = _reduce("reduce_all")
reduce_any = _reduce("reduce_any")


def mean(x, name=None):
    helper = LayerHelper("mean", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mean", {"X": [x]}, {"Out": [out]})
    return out

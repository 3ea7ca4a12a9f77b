"""Kernels of pe_cli/ops/primitive_shaping.py (numpy): the out-kernels of shapes/primitive_shaping.py's meta rules
(fresh), each the meaning Paddle 2.6 gives the primitive when it lowers it (paddle.incubate.autograd's
prim2orig rules: reshape, broadcast_to, transpose, split, concat, sum, matmul, strided_slice, set_value on a copy,
gather, X plus a scatter of Y onto zeros, full, where, cast)."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...base.errors import PeError
from ...shapes.primitive_shaping import OPS, primitive_shaping_meta
from ..structured import adapter, fresh_kernel


def _window(op, shape, attrs):
    """The slices of slice_select_p / slice_assign_p (starts and ends within the dim, strides > 0: the region
    Paddle's InferShape sizes is the one strided_slice takes)."""
    index = [slice(None)] * len(shape)
    for a, s, e, t in zip(attrs["axis"], attrs["starts"], attrs["ends"], attrs["strides"]):
        if t <= 0 or not 0 <= s <= e <= shape[a]:
            raise PeError(
                f"{op}: axis {a} start {s}, end {e}, stride {t}: pe takes 0 <= start <= end <= {shape[a]} "
                f"(the dim) and stride > 0, where Paddle's InferShape and its lowering agree"
            )
        index[a] = slice(s, e, t)
    return tuple(index)


def _index(op, ins, attrs):
    index = ins.get("IndexTensor")
    index = np.asarray(attrs["index"] if index is None else index).reshape(-1).astype(np.int64)
    return index


def _compute(op):
    def compute(ins, attrs):
        x = np.asarray(ins["XS"][0] if op == "concat_p" else ins.get("X", 0))
        if op == "reshape_p":
            return {"Y": x.reshape(attrs["shape"])}
        if op == "broadcast_p":
            return {"Y": np.broadcast_to(x, attrs["shape"])}
        if op == "transpose_p":
            return {"Y": np.transpose(x, attrs["axis"])}
        if op == "cast_p":
            return {"Y": x.astype(convert_dtype(attrs["dtype"]))}
        if op == "fill_constant_p":
            value = np.float32(attrs["value"])  # (a FLOAT attribute: the float32 Paddle holds)
            return {"Y": np.full(attrs["shape"], value, dtype=convert_dtype(attrs["dtype"]))}
        if op == "concat_p":
            return {"Y": np.concatenate([np.asarray(v) for v in ins["XS"]], axis=attrs["axis"])}
        if op == "split_p":
            parts = list(attrs["num_or_sections"])
            cuts = parts[0] if len(parts) == 1 else np.cumsum(parts)[:-1]
            return {"YS": np.split(x, cuts, axis=attrs["axis"])}
        if op == "reduce_sum_p":
            return {"Y": x.sum(axis=tuple(attrs["axis"]), keepdims=attrs["keepdim"], dtype=x.dtype)}
        if op == "matmul_p":
            return {"Z": np.matmul(x, ins["Y"])}
        if op == "slice_select_p":
            return {"Y": x[_window(op, x.shape, attrs)]}
        if op == "slice_assign_p":
            z = x.copy()
            z[_window(op, x.shape, attrs)] = ins["Y"]
            return {"Z": z}
        if op == "gather_p":
            index, n = _index(op, ins, attrs), x.shape[attrs["axis"]]
            if index.size and (index.min() < 0 or index.max() >= n):
                raise PeError(f"{op}: the index holds {index[(index < 0) | (index >= n)][0]}, outside [0, {n})")
            return {"Y": np.take(x, index, axis=attrs["axis"])}
        if op == "scatter_add_p":
            index, z = _index(op, ins, attrs), x.copy()
            if index.size and (index.min() < 0 or index.max() >= x.shape[0]):
                raise PeError(f"{op}: the index holds a row outside [0, {x.shape[0]})")
            np.add.at(z, index, np.asarray(ins["Y"]))
            return {"Z": z}
        return {"Z": np.where(np.asarray(ins["Condition"]), x, np.asarray(ins["Y"]))}  # select_p

    compute.__name__ = compute.__qualname__ = f"_{op}"
    return compute


OUT = {op: fresh_kernel(_compute(op), f"{op[:-2]}_p_out") for op in OPS}
# the kernels by name (CUDA's HOST_OPS runs them on the host)
broadcast_p = adapter(primitive_shaping_meta("broadcast_p"), OUT["broadcast_p"], "broadcast_p")
cast_p = adapter(primitive_shaping_meta("cast_p"), OUT["cast_p"], "cast_p")
concat_p = adapter(primitive_shaping_meta("concat_p"), OUT["concat_p"], "concat_p")
fill_constant_p = adapter(primitive_shaping_meta("fill_constant_p"), OUT["fill_constant_p"], "fill_constant_p")
gather_p = adapter(primitive_shaping_meta("gather_p"), OUT["gather_p"], "gather_p")
matmul_p = adapter(primitive_shaping_meta("matmul_p"), OUT["matmul_p"], "matmul_p")
reduce_sum_p = adapter(primitive_shaping_meta("reduce_sum_p"), OUT["reduce_sum_p"], "reduce_sum_p")
reshape_p = adapter(primitive_shaping_meta("reshape_p"), OUT["reshape_p"], "reshape_p")
scatter_add_p = adapter(primitive_shaping_meta("scatter_add_p"), OUT["scatter_add_p"], "scatter_add_p")
select_p = adapter(primitive_shaping_meta("select_p"), OUT["select_p"], "select_p")
slice_assign_p = adapter(primitive_shaping_meta("slice_assign_p"), OUT["slice_assign_p"], "slice_assign_p")
slice_select_p = adapter(primitive_shaping_meta("slice_select_p"), OUT["slice_select_p"], "slice_select_p")
split_p = adapter(primitive_shaping_meta("split_p"), OUT["split_p"], "split_p")
transpose_p = adapter(primitive_shaping_meta("transpose_p"), OUT["transpose_p"], "transpose_p")

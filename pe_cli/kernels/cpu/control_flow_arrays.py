"""CPU out-kernels of the tensor-array ops (ops/control_flow_arrays.py; meta rules: shapes/control_flow.py): a
tensor array's value is a Python list of tensors (a TensorArray, with the LoD each was written with). Each puts
the values themselves, as its kernel returned them (``fresh``); lod_array_length fills its Out. The kernels by
name (kernels/cpu/control_flow.py's, which CUDA's HOST_OPS run) are the adapters."""

import numpy as np

from ...base.errors import PeError
from ...base.tensor_array import TensorArray


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def _index(i, what):
    flat = _host(i).reshape(-1)
    if flat.size != 1:
        raise PeError(f"{what}: the index must hold one value, it holds {flat.size}")
    return int(flat[0])


def create_array_out(ins, outs, attrs, meta):
    outs["Out"] = TensorArray()


def write_to_array_out(ins, outs, attrs, meta, ctx):
    old = ins.get("Out") or []  # the array's value before the write (reads_outputs)
    array = TensorArray(old, getattr(old, "lods", None))
    i = _index(ins["I"], "write_to_array")
    if i < 0:
        raise PeError(f"write_to_array: index {i} is negative")
    array.extend([None] * (i + 1 - len(array)))
    array.lods.extend([None] * (len(array) - len(array.lods)))
    array[i] = ins["X"]
    array.lods[i] = ctx.lod.get("X")
    outs["Out"] = array


def read_from_array_out(ins, outs, attrs, meta, ctx):
    array, i = ins["X"], _index(ins["I"], "read_from_array")
    if (not 0 <= i < len(array) or array[i] is None) and ins.get("X_W") is not None:
        like = ins["X_W"]  # write_to_array's gradient where the array's has no slot I: zeros
        lod = ctx.lod.get("X_W")
        if lod:
            ctx.set_lod("Out", lod)
        outs["Out"] = np.zeros(like.shape, like.dtype)
        return
    if not 0 <= i < len(array) or array[i] is None:
        raise PeError(
            f"read_from_array: index {i} is out of range of array '{(ctx.input_names or {}).get('X', ('X',))[0]}' "
            f"({len(array)} slots{'' if not 0 <= i < len(array) else ', that slot never written'})"
        )
    lods = getattr(array, "lods", None)
    lod = lods[i] if lods is not None and i < len(lods) else None
    if lod:
        ctx.set_lod("Out", lod)
    outs["Out"] = array[i]


def lod_array_length_out(ins, outs, attrs, meta):
    outs["Out"][0] = len(ins["X"])


def array_write_grad_out(ins, outs, attrs, meta):
    og, i = list(ins["Out@GRAD"]), _index(ins["I"], "write_to_array")
    gx = og[i] if i < len(og) and og[i] is not None else np.zeros_like(ins["X"])
    if i < len(og):
        og[i] = None
    outs["X@GRAD"], outs["Array@GRAD"] = gx, og


def array_read_grad_out(ins, outs, attrs, meta):
    i = _index(ins["I"], "read_from_array")
    out = [None] * len(ins["Array"])
    out[i] = ins["Out@GRAD"]
    outs["Array@GRAD"] = out


def tensor_array_to_tensor_out(ins, outs, attrs, meta):
    """Out: the items (every slot written: the meta rule's check) stacked or concatenated along ``axis``; OutIndex:
    each one's size along it."""
    xs, axis = ins["X"], attrs["axis"]
    if attrs["use_stack"]:
        outs["Out"], outs["OutIndex"] = np.stack(xs, axis=axis), np.ones(len(xs), dtype=np.int32)
        return
    outs["Out"] = np.concatenate(xs, axis=axis)
    outs["OutIndex"] = np.array([np.shape(x)[axis] for x in xs], dtype=np.int32)


def tensor_array_to_tensor_grad_out(ins, outs, attrs, meta):
    """X@GRAD: Out@GRAD cut back into the items (numpy's views of it)."""
    xs, og, axis = ins["X"], ins["Out@GRAD"], attrs["axis"]
    if attrs["use_stack"]:
        outs["X@GRAD"] = [np.take(og, i, axis=axis) for i in range(len(xs))]
        return
    cuts = np.cumsum([np.shape(x)[axis] for x in xs])[:-1]
    outs["X@GRAD"] = list(np.split(og, cuts, axis=axis))


write_to_array_out.takes_context = read_from_array_out.takes_context = True  # (the LoDs read and handed back)
for _out in (
    create_array_out,
    write_to_array_out,
    read_from_array_out,
    lod_array_length_out,
    array_write_grad_out,
    array_read_grad_out,
    tensor_array_to_tensor_out,
    tensor_array_to_tensor_grad_out,
):
    _out.launches = None

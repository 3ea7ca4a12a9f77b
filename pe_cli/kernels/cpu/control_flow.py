"""Kernels of the control-flow ops (pe_cli/ops/control_flow.py). The block ops run their block
through their context's ``block`` (a BlockRunner: ``env``, ``child``, ``run``); they compute nothing
themselves, so the CUDA module serves them too (values are read on the host only for a condition).
A tensor array's value is a Python list of tensors."""

import operator

import numpy as np

from ...base.errors import PeError
from ...base.places import CUDAPlace, cpu_places
from ...base.tensor_array import TensorArray
from .. import lod_items
from .block_runs import add, run_backward, run_kept, zeros_like  # noqa: F401 -- (add, zeros_like: the sum and

#     fill_zeros_like kernels of tensor arrays use them from here)
from .recurrent_steps import recurrent, recurrent_grad  # noqa: F401 -- the recurrent op's kernels
from ..context import NO_CONTEXT
from ...shapes.reduction import scalar_shape


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


# -- tensor arrays ------------------------------------------------------------------------------------


def _index(i, what):
    flat = _host(i).reshape(-1)
    if flat.size != 1:
        raise PeError(f"{what}: the index must hold one value, it holds {flat.size}")
    return int(flat[0])


def create_array(ins, attrs):
    return {"Out": TensorArray()}


def write_to_array(ins, attrs, ctx):
    old = ins.get("Out") or []  # the array's value before the write (reads_outputs)
    array = TensorArray(old, getattr(old, "lods", None))
    i = _index(ins["I"], "write_to_array")
    if i < 0:
        raise PeError(f"write_to_array: index {i} is negative")
    array.extend([None] * (i + 1 - len(array)))
    array.lods.extend([None] * (len(array) - len(array.lods)))
    array[i] = ins["X"]
    array.lods[i] = ctx.lod.get("X")
    return {"Out": array}


def read_from_array(ins, attrs, ctx):
    array, i = ins["X"], _index(ins["I"], "read_from_array")
    if (not 0 <= i < len(array) or array[i] is None) and ins.get("X_W") is not None:
        like = ins["X_W"]  # write_to_array's gradient where the array's has no slot I: zeros
        lod = ctx.lod.get("X_W")
        if lod:
            ctx.set_lod("Out", lod)
        return {"Out": np.zeros(like.shape, like.dtype)}
    if not 0 <= i < len(array) or array[i] is None:
        raise PeError(
            f"read_from_array: index {i} is out of range of array '{(ctx.input_names or {}).get('X', ('X',))[0]}' "
            f"({len(array)} slots{'' if not 0 <= i < len(array) else ', that slot never written'})"
        )
    lods = getattr(array, "lods", None)
    lod = lods[i] if lods is not None and i < len(lods) else None
    if lod:
        ctx.set_lod("Out", lod)
    return {"Out": array[i]}


def lod_array_length(ins, attrs):
    return {"Out": np.array([len(ins["X"])], dtype=np.int64)}


# -- ops that own a block -------------------------------------------------------------------------------


def _holds(cond, scalar=True):
    value = _host(cond)
    if not scalar:
        return value.size > 0
    if value.size != 1:
        raise PeError(f"the condition must hold one value, it holds {value.size}")
    return bool(value.reshape(-1)[0])


def while_loop(ins, attrs, ctx):
    block = ctx.block
    env = block.env(ins, ctx.lod)
    cond = block.op.input("Condition")[0]
    keep = not attrs["is_test"] and block.output_read("StepScopes")
    writes = block.op.output("Out")
    limit, iterations = attrs["max_iterations"], []
    while _holds(env[cond]):
        if len(iterations) >= limit:
            where = f" built at {block.op.source}" if block.op.source else ""
            raise PeError(
                f"while loop{where} ran {limit} iterations and its condition '{cond}' still holds; "
                f"does the loop update it? (raise the op's max_iterations if it must run longer)"
            )
        if keep:
            iterations.append(run_kept(block, env, writes))
        else:
            block.run(block.child(env))
            iterations.append(None)
    outs = {"Out": [env[n] for n in writes]}
    if keep:
        outs["StepScopes"] = iterations
    return outs


def while_grad(ins, attrs, ctx, plus=operator.add, zeros=np.zeros_like):
    block = ctx.block  # the body's grad ops; its parent block is the body
    names = block.op.input("X")
    carried, totals = run_backward(
        block, ins["StepScopes"], dict(zip(names, ins["X"])), ins.get("Out@GRAD") or [], attrs, ctx.lod, plus, zeros
    )
    writes = set(attrs["writes"])
    grads = [carried.get(n) if n in writes else totals.get(n) for n in names]
    return {"X@GRAD": [g if g is not None else zeros_like(x, zeros) for g, x in zip(grads, ins["X"])]}


def conditional_block_grad(ins, attrs, ctx, plus=operator.add, zeros=np.zeros_like):
    """As while_grad over the 0 or 1 runs of the block: when it did not run, the gradients of what
    it would have written pass to their earlier values."""
    block = ctx.block
    names = block.op.input("Input")
    carried, totals = run_backward(
        block,
        ins["Scope"],
        dict(zip(names, ins.get("Input") or [])),
        ins.get("Out@GRAD") or [],
        attrs,
        ctx.lod,
        plus,
        zeros,
    )
    writes = set(attrs["writes"])
    grads = [carried.get(n) if n in writes else totals.get(n) for n in names]
    pre = [carried.get(n) for n in attrs["seeds"] if n not in names]
    return {
        "Input@GRAD": [g if g is not None else zeros_like(x, zeros) for g, x in zip(grads, ins.get("Input") or [])],
        "PreOut@GRAD": [
            g if g is not None else zeros_like(og, zeros)
            for g, og in zip(pre, [og for n, og in zip(attrs["seeds"], ins["Out@GRAD"]) if n not in names])
        ],
    }


def array_write_grad(ins, attrs):
    og, i = list(ins["Out@GRAD"]), _index(ins["I"], "write_to_array")
    gx = og[i] if i < len(og) and og[i] is not None else np.zeros_like(ins["X"])
    if i < len(og):
        og[i] = None
    return {"X@GRAD": gx, "Array@GRAD": og}


def array_read_grad(ins, attrs):
    i = _index(ins["I"], "read_from_array")
    out = [None] * len(ins["Array"])
    out[i] = ins["Out@GRAD"]
    return {"Array@GRAD": out}


def conditional_block(ins, attrs, ctx):
    block = ctx.block
    keep = block.output_read("Scope")
    env = block.env(ins, ctx.lod)
    writes = block.op.output("Out")
    if not all(_holds(c, attrs["is_scalar_condition"]) for c in ins["Cond"]):
        outs = {"Out": [env[n] for n in writes]} if all(n in env for n in writes) else {}  # unchanged
        return dict(outs, Scope=[]) if keep else outs
    if not keep:
        block.run(block.child(env))
        return {"Out": [env[n] for n in writes]}
    run = run_kept(block, env, writes)
    return {"Out": [env[n] for n in writes], "Scope": [run]}


def pylayer(ins, attrs, ctx):
    """The forward block once, in a child scope; Out read back from it."""
    block = ctx.block
    env = block.env(ins, ctx.lod)
    block.run(block.child(env))
    outs = {"Out": block.outputs(env, "Out")}
    return dict(outs, Scope=[]) if block.op.outputs.get("Scope") else outs


def pylayer_grad(ins, attrs, ctx, zeros=np.zeros_like):
    """The backward block once, the gradients of Out under their @GRAD names; Input@GRAD what it wrote
    under the inputs' @GRAD names (zeros for an input it gave none)."""
    block = ctx.block
    env = block.env(ins, ctx.lod)
    for name, grad in zip(attrs["seeds"], ins.get("Out@GRAD") or []):
        env[name] = grad
    scope = block.run(block.child(env))
    return {
        "Input@GRAD": [
            scope.get(n) if scope.get(n) is not None else zeros_like(x, zeros)
            for n, x in zip(attrs["wanted"], ins.get("Input") or [])
        ]
    }


def _mask(ins):
    return _host(ins["Mask"]).reshape(-1).astype(bool)


def _lod(ctx, slot):
    return ctx.lod.get(slot) or []


def split_lod_tensor(ins, attrs, ctx):
    """The mask picks X's sequences of LoD level ``level`` (rows, where X has no LoD), with their LoD."""
    x, mask, lod, level = ins["X"], _mask(ins), _lod(ctx, "X"), attrs.get("level", 0)
    count = len(lod[level]) - 1 if level < len(lod) else len(x)
    if len(mask) != count:
        raise PeError(
            f"split_lod_tensor: the mask has {len(mask)} rows, X has {count} "
            f"{'sequences' if level < len(lod) else 'rows'}"
        )
    (true, t_lod), (false, f_lod) = (lod_items.gather(x, lod, level, np.flatnonzero(m)) for m in (mask, ~mask))
    ctx.set_lod("OutTrue", t_lod)
    ctx.set_lod("OutFalse", f_lod)
    return {"OutTrue": true, "OutFalse": false}


def merge_lod_tensor(ins, attrs, ctx):
    """The inverse of split_lod_tensor: each sequence (row) from InTrue where the mask holds, else
    from InFalse, in the mask's order, with their LoD."""
    mask, t, f, level = _mask(ins), ins["InTrue"], ins["InFalse"], attrs.get("level", 0)
    t_lod, f_lod = _lod(ctx, "InTrue"), _lod(ctx, "InFalse")
    counts = [len(lod[level]) - 1 if level < len(lod) else len(v) for v, lod in ((t, t_lod), (f, f_lod))]
    if counts != [int(mask.sum()), len(mask) - int(mask.sum())]:
        raise PeError(
            f"merge_lod_tensor: the mask selects {mask.sum()} and {len(mask) - mask.sum()} sequences, "
            f"the branches gave {counts[0]} and {counts[1]}"
        )
    ref = t if len(t) else f  # an empty branch's rows may have a placeholder width
    dtype, parts, subs, taken = np.result_type(t, f), [], [], [0, 0]
    for m in mask:
        value, lod, k = (t, t_lod, 0) if m else (f, f_lod, 1)
        parts.append(value[lod_items.rows_of(lod, level, [taken[k]])].astype(dtype, copy=False))
        if level < len(lod):
            subs.append(lod_items.span(lod, level, taken[k])[2])
        taken[k] += 1
    out = np.concatenate(parts) if parts else np.empty((0,) + ref.shape[1:], dtype)
    ctx.set_lod("Out", lod_items.join(subs, len(subs[0])) if subs else None)
    return {"Out": out}


def _filled(array, what):
    if any(v is None for v in array):
        raise PeError(f"{what}: slot {[v is None for v in array].index(True)} of the array was never written")
    return array


def tensor_array_to_tensor(ins, attrs):
    xs, axis = _filled(ins["X"], "tensor_array_to_tensor"), attrs["axis"]
    if attrs["use_stack"]:
        return {"Out": np.stack(xs, axis=axis), "OutIndex": np.ones(len(xs), dtype=np.int32)}
    return {"Out": np.concatenate(xs, axis=axis), "OutIndex": np.array([np.shape(x)[axis] for x in xs], dtype=np.int32)}


def tensor_array_to_tensor_grad(ins, attrs):
    xs, og, axis = ins["X"], ins["Out@GRAD"], attrs["axis"]
    if attrs["use_stack"]:
        return {"X@GRAD": [np.take(og, i, axis=axis) for i in range(len(xs))]}
    cuts = np.cumsum([np.shape(x)[axis] for x in xs])[:-1]
    return {"X@GRAD": list(np.split(og, cuts, axis=axis))}


def is_empty(ins, attrs, ctx=NO_CONTEXT):
    return {"Out": np.full(scalar_shape(ctx.zero_dim), np.size(ins["X"]) == 0)}


def get_places(ins, attrs, auto="CPU"):
    """The places of device_type (AUTO: ``auto``, the kind of device running it)."""
    count = attrs["device_count"] or None
    if (auto if attrs["device_type"] == "AUTO" else attrs["device_type"]) == "CPU":
        return {"Out": cpu_places(count)}
    return {"Out": [CUDAPlace(i) for i in range(count or 1)]}


def _selected(ins, count, op):
    """The index an int32 [1] Mask selects among ``count`` variables, checked."""
    i = int(np.asarray(ins["Mask"]).reshape(-1)[0])
    if not 0 <= i < count:
        raise PeError(f"{op}: Mask={i} selects none of the {count} variables (expected 0 <= Mask < {count})")
    return i


def select_input(ins, attrs):
    i = _selected(ins, len(ins["X"]), "select_input")
    if ins["X"][i] is None:
        raise PeError(f"select_input: X #{i}, which Mask={i} selects, has no value (its branch did not write it)")
    return {"Out": ins["X"][i]}


def select_output(ins, attrs, ctx):
    """Out[Mask] = X; the other outputs are given no value (None)."""
    count = ctx.output_counts["Out"]
    i = _selected(ins, count, "select_output")
    return {"Out": [ins["X"] if k == i else None for k in range(count)]}


def select_input_grad(ins, attrs, zeros=np.zeros_like):
    """X@GRAD[Mask] = Out@GRAD; zeros for the other inputs that have a value."""
    i = _selected(ins, len(ins["X"]), "select_input_grad")
    return {"X@GRAD": [ins["Out@GRAD"] if k == i else None if x is None else zeros(x) for k, x in enumerate(ins["X"])]}


def select_output_grad(ins, attrs):
    """X@GRAD = Out@GRAD[Mask]."""
    return {"X@GRAD": ins["Out@GRAD"][_selected(ins, len(ins["Out@GRAD"]), "select_output_grad")]}

"""CPU out-kernel of ops/printing.py (meta rule: shapes/printing.py): print writes its input to standard output as
Fluid 1.8's print op (its ``Formater``) does -- the time and message, ``The place is:``, ``Tensor[name]``, then
tab-indented ``shape: [2,3,]``, ``dtype:`` (the C++ type's name: f, d, i, l, b), ``LoD: [[ 0,2, ]]`` and
``data: 1,2,3,`` -- and passes it on unchanged (a copy into the buffer handed)."""

import sys
import time

import numpy as np

from ...shapes import printing as rules
from ..structured import allocate

# numpy dtype -> the name C++'s typeid gives the element type (gcc's, as Fluid's Linux wheels print)
_TYPEIDS = {"float32": "f", "float64": "d", "int32": "i", "int64": "l", "bool": "b"}


def _value(v):
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"  # C++ ostream's default: 6 significant digits
    return str(v)


def format_tensor(x, name, attrs, lod=None, place="CPUPlace"):
    """The text Fluid 1.8's print op writes for ``x`` (a numpy array)."""
    out = f"{int(time.time())}\t{attrs['message']}\tThe place is:{place}\n"
    if name and attrs["print_tensor_name"]:
        out += f"Tensor[{name}]\n"
    if attrs["print_tensor_shape"] and x.ndim:
        out += "\tshape: [" + "".join(f"{d}," for d in x.shape) + "]\n"
    if attrs["print_tensor_type"]:
        out += f"\tdtype: {_TYPEIDS.get(x.dtype.name, x.dtype.name)}\n"
    if attrs["print_tensor_lod"] and lod:
        out += "\tLoD: [" + "".join("[ " + "".join(f"{int(i)}," for i in level) + " ]" for level in lod) + "]\n"
    if x.dtype.name not in _TYPEIDS:
        return out + f"\tdata: unprintable type: {x.dtype.name}\n"
    n = x.size if attrs["summarize"] == -1 else min(attrs["summarize"], x.size)
    return out + "\tdata: " + "".join(f"{_value(v)}," for v in x.reshape(-1)[:n]) + "\n"


def should_print(attrs, state=None):
    """Whether this run of the op prints: its phase, and at most first_n times (counted per op, in its
    ``state``: ``Operator.run_state``; None: not counted)."""
    phase = attrs["print_phase"]
    if (attrs["is_forward"] and phase == "BACKWARD") or (not attrs["is_forward"] and phase == "FORWARD"):
        return False
    if attrs["first_n"] > 0 and state is not None:
        state["printed"] = state.get("printed", 0) + 1
        return state["printed"] <= attrs["first_n"]
    return True


def print_out(ins, outs, attrs, meta, ctx, place="CPUPlace"):
    """print's "copy": In printed where this run prints (``ctx``: its LoD, its variable's name, the op's count of
    prints), naming ``place``; Out, In's values."""
    x = np.asarray(ins["In"])
    if should_print(attrs, ctx.op_state):
        lod = ctx.lod.get("In")
        name = (ctx.input_names or {}).get("In", ("",))[0]
        sys.stdout.write(format_tensor(x, name, attrs, lod, place))
        sys.stdout.flush()
    np.copyto(outs["Out"], x)


print_out.takes_context = True
print_out.launches = None


def print(ins, attrs, ctx, place="CPUPlace"):  # noqa: A001 -- the kernel of op type 'print'
    """The kernel by name CUDA's twin runs on the host (kernels/cuda/printing.py), ``place`` the device the
    printed line names: the meta rule and out-kernel."""
    meta = rules.print_meta(attrs, ins, ctx)
    outs = allocate(meta, ins)
    print_out(ins, outs, attrs, meta, ctx, place)
    return outs

"""Tensor arrays of the control flow family (a LoDTensorArray's value is a Python list of tensors):
create_array, write_to_array, read_from_array, lod_array_length, tensor_array_to_tensor and their
gradients. Their kernels are the family's (pe_cli/kernels/<device>/control_flow.py)."""

from ..kernels.cpu import control_flow_arrays as cpu_arrays
from ..shapes import control_flow as metas
from .define import Structured, register, renamed


# -- tensor arrays (a LoDTensorArray's value is a Python list of tensors) --------------------------


def _infer_array(ctx):
    ctx.set_output("Out", None, ctx.attrs["dtype"])


register(
    "create_array",
    kernel_module="control_flow",
    inputs=[],
    outputs=["Out"],
    lod="drop",
    attrs={"dtype": "float32"},
    infer=_infer_array,
    structured=Structured(meta=metas.create_array_meta, cpu=cpu_arrays.create_array_out, python=True),
    doc="Out = an empty tensor array. pe's programs before it built Fluid's had it; Fluid's create_array "
    "layer makes the variable only (write_to_array starts an array that has no value).",
)


def _infer_array_write(ctx):
    # as Fluid at compile time: the array takes the written tensor's lod_level, read_from_array gives it back
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_array_write(g):
    # Fluid's: X's gradient is slot I of the array's (read_from_array; zeros like X where the slot has
    # none); the array before this write is the same variable (written in place) with the same gradient
    g.op("read_from_array", {"X": g.out_grad("Out"), "I": g.input("I"), "X_W": g.input("X")}, {"Out": g.in_grad("X")})
    g.pass_out_grad("Out")


def _grad_array_read(g):
    # Fluid's: the read value's gradient written at slot I of the array's (a new contribution: the
    # contributions, arrays with empty slots, are summed slot by slot)
    g.op("write_to_array", {"X": g.out_grad("Out"), "I": g.input("I")}, {"Out": g.in_grad("X")})


def _infer_array_grad(ctx):
    if ctx.has_output("X@GRAD"):
        ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X"))


register(
    "write_to_array",
    kernel_module="control_flow",
    inputs=["X", "I"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    reads_outputs=("Out",),
    infer=_infer_array_write,
    grad=_grad_array_write,
    grad_reads=("X", "I"),
    structured=Structured(meta=metas.write_to_array_meta, cpu=cpu_arrays.write_to_array_out, python=True),
    doc="Out[I] = X (and its LoD), in place: Out is the array it had (a new one when it had none), grown "
    "with empty slots as needed (Fluid's op behind layers.array_write).",
)


def _infer_array_read(ctx):
    # the array's lod_level where it has one; else the output keeps its own (a program Fluid saved
    # declares the array without one and the read's output with the level it has at run time)
    # (and its shape where the array has one: a saved array variable may carry none)
    ctx.set_output(
        "Out",
        ctx.shape("X") or ctx.output_var("Out").shape,
        ctx.dtype("X"),
        lod_level=ctx.input_var("X").lod_level or None,
    )


register(
    "read_from_array",
    kernel_module="control_flow",
    inputs=["X", "I", "X_W?"],
    outputs=["Out"],
    lod="drop",
    needs_lod=True,
    infer=_infer_array_read,
    grad=_grad_array_read,
    grad_reads=("X", "I"),
    structured=Structured(meta=metas.read_from_array_meta, cpu=cpu_arrays.read_from_array_out, python=True),
    doc="Out = X[I], with the LoD it was written with (Fluid's op behind layers.array_read); where slot I is "
    "out of range or never written: zeros shaped like X_W with its LoD when X_W is given (write_to_array's "
    "gradient), else an error naming the array and the index.",
)
# the gradients of the array ops in pe's programs before it built Fluid's (read_from_array and
# write_to_array on the gradient arrays): a training program saved then still loads
register(
    "array_write_grad",
    kernel_module="control_flow",
    inputs=["X", "I", "Out@GRAD"],
    lod="drop",
    outputs=["X@GRAD?", "Array@GRAD?"],
    infer=_infer_array_grad,
    structured=Structured(meta=metas.array_write_grad_meta, cpu=cpu_arrays.array_write_grad_out, python=True),
    doc="X@GRAD = Out@GRAD[I] (zeros when that slot has none); Array@GRAD (the array before the write) = "
    "Out@GRAD without slot I.",
)
register(
    "array_read_grad",
    kernel_module="control_flow",
    inputs=["Array", "I", "Out@GRAD"],
    lod="drop",
    outputs=["Array@GRAD"],
    structured=Structured(meta=metas.array_read_grad_meta, cpu=cpu_arrays.array_read_grad_out, python=True),
    doc="Array@GRAD: Out@GRAD at slot I, no gradient elsewhere.",
)


def _infer_array_length(ctx):
    ctx.set_output("Out", [1], "int64")


register(
    "lod_array_length",
    kernel_module="control_flow",
    inputs=["X"],
    outputs=["Out"],
    lod="drop",
    infer=_infer_array_length,
    structured=Structured(meta=metas.lod_array_length_meta, cpu=cpu_arrays.lod_array_length_out),
    doc="Out = the number of slots of the array X (int64 [1]; Fluid's op behind layers.array_length).",
)

# pe's names for them before it built Fluid's: a program saved with them loads as Fluid's ops
renamed("array_write", "write_to_array", dropped=("Array",))
renamed("array_read", "read_from_array", {"Array": "X"})
renamed("array_length", "lod_array_length", {"Array": "X"})


def _infer_array_to_tensor(ctx):
    item, axis = list(ctx.shape("X") or []), ctx.attrs["axis"]  # the array's: its items' shape
    if item and ctx.attrs["use_stack"]:
        item.insert(axis % (len(item) + 1), -1)
    elif item:
        item[axis % len(item)] = -1
    ctx.set_output("Out", item or None, ctx.dtype("X"))
    ctx.set_output("OutIndex", [-1], "int32")


def _grad_array_to_tensor(g):
    g.op(
        "tensor_array_to_tensor_grad",
        {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "tensor_array_to_tensor",
    kernel_module="control_flow",
    inputs=["X"],
    outputs=["Out", "OutIndex"],
    lod="drop",
    attrs={"axis": 0, "use_stack": False},
    infer=_infer_array_to_tensor,
    grad=_grad_array_to_tensor,
    grad_reads=("X",),
    structured=Structured(meta=metas.tensor_array_to_tensor_meta, cpu=cpu_arrays.tensor_array_to_tensor_out),
    doc="Out = the array's tensors concatenated (use_stack: stacked) along axis; OutIndex = each one's "
    "size along axis.",
)
register(
    "tensor_array_to_tensor_grad",
    kernel_module="control_flow",
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    lod="drop",
    attrs={"axis": 0, "use_stack": False},
    structured=Structured(meta=metas.tensor_array_to_tensor_grad_meta, cpu=cpu_arrays.tensor_array_to_tensor_grad_out),
    doc="X@GRAD: Out@GRAD cut back into the array's tensors.",
)

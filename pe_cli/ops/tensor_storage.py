"""Ops about where tensors are kept rather than what they hold (kernels in kernels/<device>/tensor_storage.py):
coalesce_tensor (Fluid 1.8's fuse passes put several tensors in one contiguous buffer: FusedOutput, each
tensor's slice rounded up to the place's allocation unit, 4096 bytes on the CPU and 256 on a GPU, as
Fluid's Alignment) and delete_var (Fluid erases the variables from the scope; pe frees a value once
nothing reads it, so the op has nothing to do)."""

from ..kernels.cpu import tensor_storage as cpu_storage
from ..shapes import tensor_storage as metas
from .define import Attr, Structured, dtype_or_none, register


def _infer_coalesce(ctx):
    if ctx.num_inputs("Input") != ctx.num_outputs("Output"):
        ctx.fail(f"Input has {ctx.num_inputs('Input')} tensors and Output {ctx.num_outputs('Output')}")
    if ctx.attrs["check_name"] and ctx.op.inputs["Input"] != ctx.op.outputs["Output"]:
        ctx.fail("check_name: Output must name the Input variables")
    for i in range(ctx.num_inputs("Input")):  # (views of the buffer: its dtype, as Paddle 2.6's ShareDataWith)
        ctx.set_output("Output", ctx.shape("Input", i), ctx.attrs["dtype"], i=i)
    ctx.set_output("FusedOutput", [-1], ctx.attrs["dtype"])  # its length depends on the place's alignment


register(
    "coalesce_tensor",
    kernel_module="tensor_storage",
    inputs=["Input*"],
    outputs=["Output*", "FusedOutput"],
    attrs={
        "dtype": Attr("float32", dtype_or_none, "a dtype name"),
        "copy_data": False,
        "set_constant": False,
        "constant": 0.0,
        "check_name": False,
    },
    infer=_infer_coalesce,
    lod="drop",
    structured=Structured(meta=metas.coalesce_meta, cpu=cpu_storage.coalesce_out),
    doc="FusedOutput = one buffer of dtype holding each Input (copy_data) or the value constant (set_constant) in a "
    "slice rounded up to the allocation unit; Output[i] = its slice, in Input[i]'s shape and the buffer's dtype. "
    "copy_data copies an Input's bytes unconverted (Paddle's phi::Copy): an Input of another dtype of the same "
    "size is reinterpreted, one of another size refused.",
)
register(
    "delete_var",
    kernel_module="tensor_storage",
    inputs=["X*"],
    outputs=[],
    structured=Structured(meta=metas.delete_var_meta, cpu=cpu_storage.delete_var_out),
    doc="Drops the variables X (Fluid erases them from the scope; pe frees a value once nothing reads it).",
)

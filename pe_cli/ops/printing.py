"""print (Fluid 1.8's ``layers.Print``; kernels in kernels/<device>/printing.py): Out is In, and In is
printed to standard output as the op runs, in the layout of Fluid 1.8's print op. Its gradient is a
print op too (``is_forward`` False), which prints the incoming gradient and passes it through. The
kernel names the printed variable (``ctx.input_names``, as Fluid's op reads its input's name) and counts
its prints in the op's ``run_state`` (first_n), per op as Fluid's op object counts them."""

from ..kernels.cpu import printing as cpu_printing
from ..shapes import printing as metas
from .define import Attr, Structured, register

_PHASES = ("FORWARD", "BACKWARD", "BOTH")


def _infer(ctx):
    var = ctx.input_var("In")
    ctx.set_output("Out", var.shape, var.dtype, lod_level=var.lod_level)


def _grad(g):
    g.op("print", {"In": g.out_grad("Out")}, {"Out": g.in_grad("In")}, dict(g.attrs, is_forward=False))


_ATTRS = {
    "first_n": -1,
    "message": "",
    "summarize": 20,
    "print_tensor_name": True,
    "print_tensor_type": True,
    "print_tensor_shape": True,
    "print_tensor_lod": True,
    "print_phase": Attr("BOTH", choices=_PHASES),
    "is_forward": True,
}
register(
    "print",
    kernel_module="printing",
    inputs=["In"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    needs_lod=True,
    structured=Structured(meta=metas.print_meta, cpu=cpu_printing.print_out, python=True),
    doc="Out = In; In printed (time, message, place, name, shape, dtype, LoD, the first summarize values) where "
    "print_phase names this pass (FORWARD, BACKWARD or BOTH), at most first_n times when first_n > 0.",
)

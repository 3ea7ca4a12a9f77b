"""set_value, Paddle 2.x's static slicing assignment (``x[1:3, ::2] = v`` in a static program, and what
paddle.jit.save writes for it): Out = Input with the region axes/starts/ends/steps select set to ValueTensor,
or to ``values`` (a list of numbers of ``dtype``, in ``shape``), broadcast to the region with its
decrease_axes dropped and a 1 put at each of none_axes. Starts, ends and steps clamp as Paddle's
CheckAndUpdateSliceAttrs clamps them; StartsTensorList / EndsTensorList / StepsTensorList give them at run
time. The gradient: Out@GRAD with the region zeroed to Input, the region summed to ValueTensor's shape to it."""

from ..base.dims import numel
from ..kernels.cpu import slice_assignment as cpu_slice_assignment
from ..shapes.slice_assignment import set_value_grad_meta, set_value_meta
from .define import Attr, Structured, dtype_code, grads_like, int_list, register
from .pointwise_math import QUANT

_FROM = {"StartsTensorList": "starts", "EndsTensorList": "ends", "StepsTensorList": "steps"}


def _numbers(v):
    return isinstance(v, list) and all(isinstance(x, (int, float, bool, complex)) for x in v)


_ATTRS = {
    "dtype": Attr(5, dtype_code, "a dtype (Paddle's VarType code)"),
    "axes": Attr(list, int_list, "a list of ints", long=True),
    "starts": Attr(list, int_list, "a list of ints", long=True),
    "ends": Attr(list, int_list, "a list of ints", long=True),
    "steps": Attr(list, int_list, "a list of ints", long=True),
    "decrease_axes": Attr(list, int_list, "a list of ints", long=True),
    "none_axes": Attr(list, int_list, "a list of ints", long=True),
    "values": Attr(list, _numbers, "a list of numbers"),
    "shape": Attr(list, int_list, "a list of ints", long=True),
    **QUANT,
}


def _infer(ctx):
    a, x = ctx.attrs, ctx.shape("Input")
    n = len(a["axes"])
    for name in ("starts", "ends", "steps"):
        given = ctx.num_inputs(f"{name.capitalize()}TensorList")
        if given and given != n or not given and len(a[name]) not in ((0, n) if name == "steps" else (n,)):
            ctx.fail(f"{name} has {given or len(a[name])} items for {n} axes {list(a['axes'])}")
    if any(not -len(x) <= ax < len(x) for ax in a["axes"]):
        ctx.fail(f"axes {list(a['axes'])} are not all axes of Input {list(x)}")
    if any(s == 0 for s in a["steps"]):
        ctx.fail("a step of 0 slices nothing (steps must not be 0)")
    if not ctx.has_input("ValueTensor") and len(a["values"]) != max(1, numel(a["shape"])):
        ctx.fail(f"values holds {len(a['values'])} numbers for shape {list(a['shape'])}")
    ctx.set_output("Out", x, ctx.dtype("Input"))


def _grad(g):
    outs = {"Input@GRAD": g.in_grad("Input")}
    if g.input("ValueTensor"):
        outs["ValueTensor@GRAD"] = g.in_grad("ValueTensor")
    ins = {"Out@GRAD": g.out_grad("Out"), **{s: g.input(s) for s in ("ValueTensor",) + tuple(_FROM) if g.input(s)}}
    g.op("set_value_grad", ins, outs, g.attrs)


register(
    "set_value",
    kernel_module="slice_assignment",
    structured=Structured(meta=set_value_meta, cpu=cpu_slice_assignment.SET_VALUE),
    inputs=["Input", "ValueTensor?", "StartsTensorList*?", "EndsTensorList*?", "StepsTensorList*?"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    attr_tensors=_FROM,
    grad_reads=("ValueTensor",) + tuple(_FROM),
    doc="Out = Input with Input[region] = ValueTensor (or `values` in `shape`, of `dtype`), the region "
    "axes[i] sliced starts[i]:ends[i]:steps[i]; the value broadcasts to the region with decrease_axes "
    "dropped and none_axes added.",
)
register(
    "set_value_grad",
    kernel_module="slice_assignment",
    structured=Structured(meta=set_value_grad_meta, cpu=cpu_slice_assignment.SET_VALUE_GRAD),
    inputs=["Out@GRAD", "ValueTensor?", "StartsTensorList*?", "EndsTensorList*?", "StepsTensorList*?"],
    outputs=["Input@GRAD?", "ValueTensor@GRAD?"],
    attrs=_ATTRS,
    attr_tensors=_FROM,
    infer=lambda ctx: (
        grads_like({"ValueTensor@GRAD": "ValueTensor"})(ctx) if ctx.has_input("ValueTensor") else None,
        ctx.set_output("Input@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
    ),
)

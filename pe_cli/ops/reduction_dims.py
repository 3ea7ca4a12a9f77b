"""A reduction's dims given when the op runs (Paddle 2.x's ``paddle.sum(x, axis=Tensor)``): AxisTensor, one int
tensor of the dims, or AxisTensorList, one one-value tensor per dim. They are Paddle 2.6's input slots of
reduce_amax/amin/all/any; its other reductions hold such a Variable as a VAR attribute, which pe keeps in these
slots too (framework/attribute_variables.py). The kernels read the values when the op runs
(kernels/tensor_attrs.py); the gradient op gets the same tensors."""

from ..base.dims import known_numel
from .define import fmt_shape

AXIS_TENSORS = {"AxisTensor": "dim", "AxisTensorList": "dim"}
AXIS_INPUTS = ["AxisTensor?", "AxisTensorList*?"]


def run_time_dims(ctx):
    """How many dims a `dim` given by AxisTensor / AxisTensorList names, or None where `dim` is the attribute."""
    if ctx.has_input("AxisTensorList"):
        return ctx.num_inputs("AxisTensorList")
    if not ctx.has_input("AxisTensor"):
        return None
    n = known_numel(ctx.shape("AxisTensor"))
    if n < 0:
        ctx.fail(f"AxisTensor {fmt_shape(ctx.shape('AxisTensor'))}: its size (how many dims) must be known")
    return n


def axis_inputs(g):
    """The forward op's AxisTensor / AxisTensorList, for its gradient op (which reduces over the same dims)."""
    return {slot: g.input(slot) for slot in AXIS_TENSORS if g.fwd.inputs.get(slot)}

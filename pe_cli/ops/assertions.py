"""assert (paddle.static.nn.control_flow.Assert): the run stops with an error when Cond (one bool) is false,
the error showing the first `summarize` values (-1: all) of each of Data."""

from ..base.dims import known_numel
from ..kernels.cpu import assertions as cpu_assertions
from ..shapes import assertions as metas
from .define import Attr, Structured, fmt_shape, is_int, register
from .pointwise_math import QUANT


def _infer(ctx):
    cond = ctx.shape("Cond")
    if ctx.dtype("Cond") != "bool" or known_numel(cond) not in (1, -1):
        ctx.fail(f"Cond ({ctx.dtype('Cond')} {fmt_shape(cond)}) must be one bool")


register(
    "assert",
    kernel_module="assertions",
    inputs=["Cond", "Data*?"],
    outputs=[],
    lod="drop",
    attrs={"summarize": Attr(-1, is_int, "an int (-1: every value)"), **QUANT},
    infer=_infer,
    structured=Structured(meta=metas.assert_meta, cpu=cpu_assertions.assert_out, python=True),
    doc="Stops the run with an error when Cond is false, showing the first `summarize` values of each Data.",
)

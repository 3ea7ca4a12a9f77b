"""Parameter update ops. Each writes ParamOut (the same variable as Param) and its own state."""
from .registry import register


def _infer_update(*pairs):
    def infer(ctx):
        for out_slot, in_slot in pairs:
            ctx.set_output(out_slot, ctx.shape(in_slot), ctx.dtype(in_slot))
    return infer


register("sgd", inputs=["Param", "Grad", "LearningRate"], outputs=["ParamOut"],
         infer=_infer_update(("ParamOut", "Param")), doc="ParamOut = Param - LearningRate * Grad.")

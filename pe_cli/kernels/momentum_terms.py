"""Paddle 2.x's momentum around a device's Fluid 1.8 update kernel (``update``: kernels/cuda/optimizer.py's
``momentum``; the CPU's is a structured kernel, kernels/cpu/optimizer_out.py, which takes ``grad_terms`` from
here): what Paddle's op adds to Fluid's, and its list form (``merged_over_lists``, both devices').

- ``rescale_grad`` and ``regularization_method='l2_decay'``: the gradient the update uses is
  ``Grad * rescale_grad + regularization_coeff * Param`` (Paddle's DenseMomentumFunctor; its CPU
  kernel skips rescale_grad, pe applies it on every device, as Paddle's CUDA kernel).
- ``multi_precision`` with a MasterParam: the update runs on MasterParam (MasterParamOut), and ParamOut
  is MasterParamOut cast to Param's dtype (Paddle's CUDA kernel; Paddle's CPU kernel leaves MasterParam
  alone, which for a float32 Param gives the same ParamOut). Without multi_precision a given
  MasterParam passes through unchanged.
- ``merged_momentum`` (pe_cli/ops/fused_optimizer.py): the same over lists, the i-th entries forming
  the i-th update; LearningRate one shared or one per parameter; ``regularization_method`` and
  ``regularization_coeff`` lists of one entry per parameter (or empty: no regularization).

The terms are this device's scale / elementwise_add / cast kernels, so an update without them is
Fluid's to the bit.
"""

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from ..shapes.fused_optimizer import merged_entries
from .context import NO_CONTEXT, call


def paddle_momentum(update, scale, add, cast):
    """(momentum, merged_momentum) kernels of one device from its ``update`` (Fluid's momentum) and
    its ``scale``, ``elementwise_add`` and ``cast`` kernels."""

    def momentum(ins, attrs, ctx=NO_CONTEXT):
        master = ins.get("MasterParam")
        on_master = master is not None and bool(attrs.get("multi_precision", False))
        param = master if on_master else ins["Param"]
        core = {
            "Param": param,
            "Grad": grad_terms(ins, attrs, param, scale, add),
            "Velocity": ins["Velocity"],
            "LearningRate": ins["LearningRate"],
        }
        if on_master:  # the executor's leave to write over Param does not cover MasterParam
            ctx = NO_CONTEXT
        outs = call(update, core, attrs, ctx)  # (the leave to update in place, where the update takes it)
        if on_master:
            p_dtype = ins["Param"].dtype
            p_out = outs["ParamOut"]
            return {
                "ParamOut": p_out if p_out.dtype == p_dtype else cast({"X": p_out}, {"out_dtype": p_dtype})["Out"],
                "VelocityOut": outs["VelocityOut"],
                "MasterParamOut": p_out,
            }
        if master is not None:
            outs = dict(outs, MasterParamOut=master)
        return outs

    return momentum, merged_over_lists(momentum)


def grad_terms(ins, attrs, param, scale, add):
    """The gradient the update uses: Grad * rescale_grad + regularization_coeff * Param (l2_decay) by the
    device's ``scale`` and ``elementwise_add`` kernels; Grad itself without those terms."""
    g, rescale = ins["Grad"], float(attrs.get("rescale_grad", 1.0))
    l2 = attrs.get("regularization_method", "") == "l2_decay"
    if rescale == 1.0 and not l2:
        return g
    if isinstance(g, SelectedRows):
        raise PeError(
            "momentum: rescale_grad and l2_decay of a row-sparse Grad are not supported by pe; "
            "use a dense gradient (is_sparse=False)"
        )
    if rescale != 1.0:
        g = scale({"X": g}, {"scale": rescale, "bias": 0.0, "bias_after_scale": True})["Out"]
    if l2:
        decay = scale(
            {"X": param},
            {"scale": float(attrs.get("regularization_coeff", 0.0)), "bias": 0.0, "bias_after_scale": True},
        )["Out"]
        g = add({"X": g, "Y": decay}, {"axis": -1})["Out"]
    return g


def merged_over_lists(momentum):
    """merged_momentum's kernel: ``momentum`` (paddle_momentum's) on the i-th entries of the lists, for each i."""

    def merged_momentum(ins, attrs, ctx=NO_CONTEXT):
        outs = {}
        for one_ins, one_attrs in merged_entries(ins, attrs):
            for slot, value in momentum(one_ins, one_attrs, ctx).items():
                outs.setdefault(slot, []).append(value)
        return outs

    return merged_momentum

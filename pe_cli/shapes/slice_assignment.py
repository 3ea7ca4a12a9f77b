"""The meta rules of set_value and set_value_grad (ops/slice_assignment.py). The region the attributes select
(their starts, ends and steps may come from tensors at run time) and its checks are the out-kernels' (kernels/cpu/
slice_assignment.py); the outputs' shapes are not theirs to decide: set_value's Out is Input's shape and dtype,
"region" (Input copied into it, the region set to the value); set_value_grad's Input@GRAD is Out@GRAD's shape and
dtype and ValueTensor@GRAD (where ValueTensor is given) ValueTensor's, "numpy" (fresh: the arrays numpy made)."""

import numpy as np

from .structured import Meta


def _spec(value):
    return tuple(value.shape), np.dtype(value.dtype)


def set_value_meta(attrs, ins, facts):
    """set_value's Out: Input's shape and dtype, "region"."""
    return Meta({"Out": _spec(ins["Input"])}, "region")


def set_value_grad_meta(attrs, ins, facts):
    """set_value_grad's Input@GRAD (Out@GRAD's shape and dtype) and ValueTensor@GRAD (ValueTensor's, where given)."""
    outputs = {"Input@GRAD": _spec(ins["Out@GRAD"])}
    if ins.get("ValueTensor") is not None:
        outputs["ValueTensor@GRAD"] = _spec(ins["ValueTensor"])
    return Meta(outputs, "numpy", fresh=True)

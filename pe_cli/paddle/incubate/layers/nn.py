"""``paddle.incubate.layers.nn``: Paddle 2.6's incubate layers. Those Fluid 1.8 had in
``fluid.contrib.layers`` are the same functions (pe_cli/fluid/contrib/layers/nn.py); ``batch_fc`` is
a batched matmul plus a bias and an activation, and ``pow2_decay_with_linear_warmup`` is a learning
rate built from the step counter with elementwise ops (Paddle's formula, below). The layers of
Paddle's fused or BoxPS/GPUPS ops pe lacks are one-line refusals."""

from ....base.errors import unsupported
from ....fluid.contrib.layers.nn import (
    fused_embedding_seq_pool,
    multiclass_nms2,
    partial_concat,  # noqa: F401
    partial_sum,
    search_pyramid_hash,
    shuffle_batch,
    tdm_child,
    tdm_sampler,
)
from ....fluid.contrib.layers.nn import rank_attention as _rank_attention
from ....framework import default_main_program, unique_name
from ....layers.creation import assign, create_global_var
from ....layers.helper import LayerHelper
from ....layers.learning_rate_scheduler import autoincreased_step_counter
from .... import layers as L
from ... import tensor_math as TM
from ...tensor_create import full_like
from ...tensor_manip import unsqueeze
from ...tensor_search import where

__all__ = [
    "fused_embedding_seq_pool",
    "fused_seqpool_cvm",
    "multiclass_nms2",
    "search_pyramid_hash",
    "shuffle_batch",
    "partial_concat",
    "partial_sum",
    "tdm_child",
    "tdm_sampler",
    "rank_attention",
    "batch_fc",
    "bilateral_slice",
    "correlation",
    "fused_bn_add_act",
    "pow2_decay_with_linear_warmup",
]

_NO_OP = "pe has no {} op (Paddle's fused/GPU-only kernel)"
fused_seqpool_cvm = unsupported("paddle.incubate.layers.fused_seqpool_cvm", _NO_OP.format("fused_seqpool_cvm"))
bilateral_slice = unsupported("paddle.incubate.layers.bilateral_slice", _NO_OP.format("bilateral_slice"))
correlation = unsupported("paddle.incubate.layers.correlation", _NO_OP.format("correlation"))
fused_bn_add_act = unsupported("paddle.incubate.layers.fused_bn_add_act", _NO_OP.format("fused_bn_add_activation"))
_pull_box_sparse = unsupported("paddle.incubate.layers._pull_box_sparse", "BoxPS is not in pe")
_pull_box_extended_sparse = unsupported("paddle.incubate.layers._pull_box_extended_sparse", "BoxPS is not in pe")
_pull_gpups_sparse = unsupported("paddle.incubate.layers._pull_gpups_sparse", "GPUPS is not in pe")


def rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank=3, max_size=0):
    """Fluid's rank_attention; ``max_size`` (the size of Paddle's GPU buffer) changes nothing."""
    return _rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank)


def batch_fc(input, param_size, param_attr, bias_size, bias_attr, act=None):
    """Out[s] = act(Input[s] @ W[s] + Bias[s]) for each slot s: Input [S, B, in], W ``param_size``
    [S, in, out], Bias ``bias_size`` [S, out] (Paddle's batch_fc)."""
    shape = list(input.shape)
    if len(shape) != 3 or len(param_size) != 3 or len(bias_size) != 2:
        raise ValueError(
            f"batch_fc: input must be [S, B, in], param_size [S, in, out] and bias_size [S, out]; "
            f"got {shape}, {list(param_size)}, {list(bias_size)}"
        )
    if (
        shape[0] != param_size[0]
        or shape[2] != param_size[1]
        or param_size[2] != bias_size[1]
        or shape[0] != bias_size[0]
    ):
        raise AssertionError(
            f"batch_fc: shapes disagree: input {shape}, param_size {list(param_size)}, bias_size {list(bias_size)}"
        )
    if input.dtype not in ("float32", "float64"):
        raise TypeError(f"batch_fc: input must be float32 or float64, got {input.dtype}")
    helper = LayerHelper("batch_fc", act=act)
    w = helper.create_parameter(param_attr, list(param_size), input.dtype)
    b = helper.create_parameter(bias_attr, list(bias_size), input.dtype)
    pre_act = TM.add(TM.matmul(input, w), unsqueeze(b, [1]))
    return helper.append_activation(pre_act, act)


def pow2_decay_with_linear_warmup(warmup_steps, total_steps, base_lr, end_lr, dtype="float32", name=None):
    """A persistable [1] learning rate advanced at every run of the main program, step k = 1, 2, ...:
    ``base_lr * k / warmup_steps`` while k <= warmup_steps, then
    ``(base_lr - end_lr) * (1 - (k - warmup_steps) / (total_steps - warmup_steps))^2 + end_lr`` while
    k < total_steps, then ``end_lr`` (Paddle's pow2_decay_with_linear_warmup kernel, in float64)."""
    if warmup_steps > total_steps:
        raise AssertionError("warmup_steps cannot be larger than total_steps")
    w, t, base, end = int(warmup_steps), int(total_steps), float(base_lr), float(end_lr)
    program = default_main_program()
    with program._lr_schedule_guard():
        lr = create_global_var(
            [1], base / w, dtype, persistable=True, name=name or unique_name.generate("pow2_decay_with_linear_warmup")
        )
        step = autoincreased_step_counter(unique_name.generate("@pow2_decay_step@"), begin=1)
        k = L.cast(step, "float64")
        warm = L.scale(k, base / w)
        factor = L.scale(k, -1.0 / max(t - w, 1), bias=1.0 + w / max(t - w, 1))
        decay = L.scale(TM.multiply(factor, factor), base - end, bias=end)
        value = where(
            L.less_equal(k, full_like(k, w)), warm, where(L.less_than(k, full_like(k, t)), decay, full_like(k, end))
        )
        assign(L.cast(value, dtype), lr)
    return lr

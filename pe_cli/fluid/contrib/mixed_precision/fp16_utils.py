"""``paddle.fluid.contrib.mixed_precision.fp16_utils``: the pieces of Fluid's float16 training.
``update_loss_scaling`` appends the dynamic loss-scaling update (after ``incr_every_n_steps`` finite
steps in a row the scaling grows by ``incr_ratio`` while it stays finite; after
``decr_every_n_nan_or_inf`` non-finite steps it shrinks by ``decr_ratio``, not below 1), and the
op-finding helpers work on any program. ``rewrite_program`` (float16 casts around the white-list
ops) needs float16 kernels, which pe does not have (it trains in float32: ``decorate``), and says so;
``update_role_var_grad`` then has no cast to look through and leaves the program as it is."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

from ... import core  # noqa: F401
from .... import layers
from ...unsupported import refuse


def find_true_prev_op(ops, cur_op, var_name):
    """The op before ``cur_op`` that writes ``var_name`` (None; a ValueError when two do)."""
    found = []
    for op in ops:
        if op == cur_op:
            break
        found += [op for slot in op.output_names for name in op.output(slot) if name == var_name]
    if len(found) > 1:
        raise ValueError(f"There must be only one previous op that outputs {var_name} variable")
    return found[0] if found else None


def find_true_post_op(ops, cur_op, var_name):
    """The ops after ``cur_op`` that read ``var_name`` (None when none does)."""
    start = next((i for i, op in enumerate(ops) if op == cur_op), len(ops) - 1)
    found = [op for op in ops[start + 1 :] for slot in op.input_names for name in op.input(slot) if name == var_name]
    return found or None


def find_op_index(block_desc, cur_op_desc):
    """The position of ``cur_op_desc`` in ``block_desc`` (-1 when it is not there)."""
    return next((i for i in range(block_desc.op_size()) if block_desc.op(i) == cur_op_desc), -1)


def update_role_var_grad(main_prog, params_grads):
    """Fluid points the op_role_var of each gradient past the float16 casts rewrite_program added;
    a pe program has none (it runs in float32), so there is nothing to update."""
    return None


def _good_step(prev_loss_scaling, num_good_steps, num_bad_steps, incr_every_n_steps, incr_ratio, zero):
    with layers.Switch() as switch:
        with switch.case(layers.less_than(incr_every_n_steps, num_good_steps + 1)):
            grown = prev_loss_scaling * incr_ratio
            with layers.Switch() as keep:
                with keep.case(layers.isfinite(grown)):
                    layers.assign(grown, prev_loss_scaling)
            layers.assign(zero, num_good_steps)
            layers.assign(zero, num_bad_steps)
        with switch.default():
            layers.increment(num_good_steps)
            layers.assign(zero, num_bad_steps)


def _bad_step(prev_loss_scaling, num_good_steps, num_bad_steps, decr_every_n_nan_or_inf, decr_ratio, zero):
    with layers.Switch() as switch:
        with switch.case(layers.less_than(decr_every_n_nan_or_inf, num_bad_steps + 1)):
            shrunk = prev_loss_scaling * decr_ratio
            one = layers.fill_constant(shape=[1], dtype="float32", value=1.0)
            with layers.Switch() as floor:
                with floor.case(layers.less_than(shrunk, one)):
                    layers.assign(one, prev_loss_scaling)
                with floor.default():
                    layers.assign(shrunk, prev_loss_scaling)
            layers.assign(zero, num_good_steps)
            layers.assign(zero, num_bad_steps)
        with switch.default():
            layers.assign(zero, num_good_steps)
            layers.increment(num_bad_steps)


def update_loss_scaling(
    is_overall_finite,
    prev_loss_scaling,
    num_good_steps,
    num_bad_steps,
    incr_every_n_steps,
    decr_every_n_nan_or_inf,
    incr_ratio,
    decr_ratio,
):
    """Appends the update of the loss scaling and the good/bad step counters (int32 [1] variables)."""
    zero = layers.fill_constant(shape=[1], dtype="int32", value=0)
    with layers.Switch() as switch:
        with switch.case(is_overall_finite):
            _good_step(prev_loss_scaling, num_good_steps, num_bad_steps, incr_every_n_steps, incr_ratio, zero)
        with switch.default():
            _bad_step(prev_loss_scaling, num_good_steps, num_bad_steps, decr_every_n_nan_or_inf, decr_ratio, zero)


refuse(
    globals(),
    "paddle.fluid.contrib.mixed_precision.fp16_utils",
    ["rewrite_program"],
    "float16 casts need float16 kernels, which pe does not have: it trains in float32 (mixed_precision.decorate)",
)

"""Fluid 1.8's ``contrib.layers.metric_op``: ctr_metric_bundle."""

from .... import layers
from ....layers.helper import LayerHelper
from ....training.initializer import ConstantInitializer

__all__ = ["ctr_metric_bundle"]


def _accumulate(batch_value, total):
    layers.assign(layers.elementwise_add(batch_value, total), output=total)


def ctr_metric_bundle(input, label):
    """Running sums over the batches a program runs, for CTR metrics (MAE, RMSE, predicted and
    actual CTR): (local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num),
    persistable float32 [1] variables holding sum((input - label)^2), sum(|input - label|),
    sum(input), sum(sigmoid(input)), sum(label) and the number of instances."""
    assert input.shape == label.shape
    helper = LayerHelper("ctr_metric_bundle")
    totals = []
    for _ in range(6):
        var = helper.create_global_variable(persistable=True, dtype="float32", shape=[1], stop_gradient=True)
        helper.set_variable_initializer(var, ConstantInitializer(0.0))
        totals.append(var)
    local_abserr, local_sqrerr, local_prob, local_q, local_pos_num, local_ins_num = totals
    diff = layers.elementwise_sub(input, label)
    _accumulate(layers.reshape(layers.reduce_sum(layers.square(diff)), [1]), local_sqrerr)
    abserr = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    helper.append_op("l1_norm", {"X": [diff]}, {"Out": [abserr]})  # Fluid's op: sum(|diff|), [1]
    _accumulate(abserr, local_abserr)
    _accumulate(layers.reshape(layers.reduce_sum(input), [1]), local_prob)
    _accumulate(layers.reshape(layers.reduce_sum(layers.sigmoid(input)), [1]), local_q)
    _accumulate(layers.reshape(layers.reduce_sum(label), [1]), local_pos_num)
    ones = layers.fill_constant_batch_size_like(label, [-1, 1], "float32", 1.0)
    _accumulate(layers.reshape(layers.reduce_sum(ones), [1]), local_ins_num)
    return local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num

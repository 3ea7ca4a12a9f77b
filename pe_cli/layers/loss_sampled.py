"""Loss layers over a sample of the classes, of Fluid 1.8's ``fluid.layers``, with its signatures:
hsigmoid (hierarchical_sigmoid) and sampled_softmax_with_cross_entropy (sample_logits, then
softmax_with_cross_entropy); and nce (noise-contrastive estimation)."""

__all__ = ["hsigmoid", "sampled_softmax_with_cross_entropy", "nce"]
import numpy as np

from ..base.errors import ArgumentValueError, PeError
from ..training.initializer import NumpyArrayInitializer
from ..training.param_attr import ParamAttr
from .helper import LayerHelper
from .checks import FLOAT32_64, check_variable_and_dtype


def hsigmoid(
    input,
    label,
    num_classes,
    param_attr=None,
    bias_attr=None,
    name=None,
    path_table=None,
    path_code=None,
    is_custom=False,
    is_sparse=False,
):
    """Hierarchical sigmoid: the loss of ``label`` along its path of binary classifiers, in the
    default complete tree over ``num_classes`` (weights [num_classes - 1, D]) or, with ``is_custom``,
    the tree of ``path_table`` / ``path_code`` (weights [num_classes, D]); shape [N, 1].
    ``is_sparse`` is accepted; W's gradient stays dense in pe."""
    check_variable_and_dtype(input, "input", FLOAT32_64, "hsigmoid")
    check_variable_and_dtype(label, "label", ("int64",), "hsigmoid")
    helper = LayerHelper("hierarchical_sigmoid", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    if not is_custom:
        if num_classes is None or num_classes < 2:
            raise PeError("hsigmoid: num_classes must be at least 2 with the default tree")
        if path_table is not None or path_code is not None:
            raise PeError("hsigmoid: path_table and path_code need is_custom=True")
    elif path_table is None or path_code is None or num_classes is None:
        raise PeError("hsigmoid: a custom tree needs path_table, path_code and num_classes")
    dim = (input.shape or (0, 0))[-1]
    rows = num_classes if is_custom else num_classes - 1
    weights = helper.create_parameter(param_attr, [rows, dim], input.dtype)
    inputs = {"X": [input], "W": [weights], "Label": [label]}
    if is_custom:
        inputs.update(PathTable=[path_table], PathCode=[path_code])
    if bias_attr is not False:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [rows, 1], input.dtype, is_bias=True)]
    out = helper.create_variable_for_type_inference(input.dtype)
    pre_out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "hierarchical_sigmoid",
        inputs,
        {"Out": [out], "PreOut": [pre_out], "W_Out": [weights]},
        {"num_classes": num_classes, "is_sparse": is_sparse, "remote_prefetch": False},
    )
    return out


def _check_sampling(num_true, use_customized_samples, customized_samples, customized_probabilities):
    """sampled_softmax_with_cross_entropy's refusals: num_true other than 1, customized samples half given."""
    if num_true != 1:
        raise PeError(
            f"sampled_softmax_with_cross_entropy: num_true={num_true}; only 1 is supported (Fluid's "
            f"one_hot step takes one label per row)"
        )
    if use_customized_samples and (customized_samples is None or customized_probabilities is None):
        raise PeError(
            "sampled_softmax_with_cross_entropy: use_customized_samples needs customized_samples and "
            "customized_probabilities"
        )


def sampled_softmax_with_cross_entropy(
    logits,
    label,
    num_samples,
    num_true=1,
    remove_accidental_hits=True,
    use_customized_samples=False,
    customized_samples=None,
    customized_probabilities=None,
    seed=0,
):
    """Softmax cross-entropy over each row's label and ``num_samples`` sampled negative classes
    (log-uniform, shared by the batch; or ``customized_samples`` with their probabilities), the
    logits corrected by -log(probability): Fluid's sample_logits, one_hot, softmax_with_cross_entropy
    (soft labels), divided by num_true. As Fluid's one_hot step, num_true must be 1."""
    _check_sampling(num_true, use_customized_samples, customized_samples, customized_probabilities)
    helper = LayerHelper("sample_logits", logits=logits)
    dtype = logits.dtype
    outs = {
        "Samples": customized_samples
        if use_customized_samples
        else helper.create_variable_for_type_inference("int64", stop_gradient=True),
        "Probabilities": customized_probabilities
        if use_customized_samples
        else helper.create_variable_for_type_inference(dtype, stop_gradient=True),
        "SampledLogits": helper.create_variable_for_type_inference(dtype),
        "SampledLabels": helper.create_variable_for_type_inference("int64", stop_gradient=True),
    }
    inputs = {"Logits": [logits], "Labels": [label]}
    if use_customized_samples:
        inputs.update(CustomizedSamples=[customized_samples], CustomizedProbabilities=[customized_probabilities])
    helper.append_op(
        "sample_logits",
        inputs,
        {k: [v] for k, v in outs.items()},
        {
            "use_customized_samples": use_customized_samples,
            "uniq": True,
            "remove_accidental_hits": remove_accidental_hits,
            "num_samples": num_samples,
            "seed": seed,
        },
    )
    soft = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(
        "one_hot", {"X": [outs["SampledLabels"]]}, {"Out": [soft]}, {"depth": num_samples + num_true, "dtype": dtype}
    )
    softmax = helper.create_variable_for_type_inference(dtype)
    loss = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "softmax_with_cross_entropy",
        {"Logits": [outs["SampledLogits"]], "Label": [soft]},
        {"Softmax": [softmax], "Loss": [loss]},
        {"soft_label": True, "ignore_index": -100, "numeric_stable_mode": False},
    )
    return loss / num_true


def _alias_table(dist):
    """Walker's alias table of a distribution over len(dist) classes (as Fluid's nce builds it): per class
    the probability of keeping it, and the class taken instead (-1: none)."""
    n = len(dist)
    keep, alias = [0.0] * n, [0] * n
    bigs, littles = [], []
    for i, p in enumerate(dist):
        scaled = float(p) * n
        if scaled > 1.0:
            bigs.append((i, scaled))
        elif scaled < 1.0:
            littles.append((i, scaled))
        else:
            keep[i], alias[i] = scaled, -1
    while bigs and littles:
        (big, big_p), (little, little_p) = bigs.pop(0), littles.pop(0)
        keep[little], alias[little] = little_p, big
        left = big_p + little_p - 1
        if left > 1.0:
            bigs.append((big, left))
        elif left < 1.0:
            littles.append((big, left))
        else:
            keep[big], alias[big] = left, -1
    for rest in (bigs, littles):
        if rest:
            keep[rest[0][0]], alias[rest[0][0]] = 1.0, -1
    return keep, alias


def _constant(helper, array):
    param = helper.create_parameter(
        ParamAttr(), list(array.shape), array.dtype.name, default_initializer=NumpyArrayInitializer(array)
    )
    param.stop_gradient = True
    return param


def nce(
    input,
    label,
    num_total_classes,
    sample_weight=None,
    param_attr=None,
    bias_attr=None,
    num_neg_samples=None,
    name=None,
    sampler="uniform",
    custom_dist=None,
    seed=0,
    is_sparse=False,
):
    """Noise-contrastive estimation: the loss of each row's true classes against ``num_neg_samples``
    (default 10) classes drawn for it by ``sampler`` ('uniform', 'log_uniform' or 'custom_dist' with
    ``custom_dist``, num_total_classes probabilities), divided by num_neg_samples + 1 as Fluid's.
    Weight is [num_total_classes, D], Bias [num_total_classes, 1] (none with bias_attr=False).
    ``is_sparse`` is accepted; the gradients stay dense in pe."""
    check_variable_and_dtype(input, "input", FLOAT32_64, "nce")
    check_variable_and_dtype(label, "label", ("int64",), "nce")
    helper = LayerHelper("nce", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    weight = helper.create_parameter(param_attr, [num_total_classes, input.shape[1]], input.dtype)
    bias = (
        None
        if bias_attr is False
        else helper.create_parameter(bias_attr, [num_total_classes, 1], input.dtype, is_bias=True)
    )
    return append_nce(
        helper,
        input,
        label,
        weight,
        bias,
        num_total_classes,
        sample_weight,
        num_neg_samples,
        sampler,
        custom_dist,
        seed,
        is_sparse,
    )


def append_nce(
    helper,
    input,
    label,
    weight,
    bias,
    num_total_classes,
    sample_weight=None,
    num_neg_samples=None,
    sampler="uniform",
    custom_dist=None,
    seed=0,
    is_sparse=False,
):
    """Appends the nce op of ``input`` and ``label`` with parameters ``weight`` and ``bias`` (None: none):
    the cost divided by num_neg_samples + 1 (layers.nce's and fluid.dygraph.NCE's)."""
    inputs = {"Input": [input], "Label": [label], "Weight": [weight]}
    if bias is not None:
        inputs["Bias"] = [bias]
    if sample_weight is not None:
        inputs["SampleWeight"] = [sample_weight]
    samplers = {"uniform": 0, "log_uniform": 1, "custom_dist": 2}
    if sampler not in samplers:
        raise ArgumentValueError(
            f"nce: sampler={sampler!r} is not supported; use 'uniform', 'log_uniform' or 'custom_dist'"
        )
    if sampler == "custom_dist":
        if custom_dist is None or len(custom_dist) != num_total_classes:
            raise ArgumentValueError(
                f"nce: sampler 'custom_dist' needs custom_dist, {num_total_classes} probabilities (one per class)"
            )
        keep, alias = _alias_table(custom_dist)
        inputs.update(
            CustomDistProbs=[_constant(helper, np.asarray(custom_dist, dtype=np.float32))],
            CustomDistAlias=[_constant(helper, np.asarray(alias, dtype=np.int32))],
            CustomDistAliasProbs=[_constant(helper, np.asarray(keep, dtype=np.float32))],
        )
    num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
    outs = {
        "Cost": helper.create_variable_for_type_inference(input.dtype),
        "SampleLogits": helper.create_variable_for_type_inference(input.dtype),
        "SampleLabels": helper.create_variable_for_type_inference(label.dtype, stop_gradient=True),
    }
    helper.append_op(
        "nce",
        inputs,
        {k: [v] for k, v in outs.items()},
        {
            "num_total_classes": int(num_total_classes),
            "num_neg_samples": num_neg_samples,
            "seed": seed,
            "sampler": samplers[sampler],
            "is_sparse": is_sparse,
            "remote_prefetch": is_sparse,
        },
    )
    return outs["Cost"] / (num_neg_samples + 1)

"""More losses of Fluid 1.8's ``fluid.layers``, with its signatures: l2_normalize, label_smooth,
smooth_l1, kldiv_loss, margin_rank_loss, rank_loss, bpr_loss, teacher_student_sigmoid_loss, hsigmoid, center_loss,
sampled_softmax_with_cross_entropy."""
__all__ = ["l2_normalize", "label_smooth", "smooth_l1", "kldiv_loss", "margin_rank_loss", "rank_loss", "bpr_loss",
           "teacher_student_sigmoid_loss", "hsigmoid", "center_loss", "sampled_softmax_with_cross_entropy"]
from ..errors import PeError
from ..framework import unique_name
from ..framework.variable import Variable
from ..training.initializer import ConstantInitializer
from .helper import LayerHelper


def _outputs(helper, dtype, n, stop_gradient=False):
    return [helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient) for _ in range(n)]


def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """x / sqrt(sum(x^2 along axis) + epsilon) (a 1-D x along its only dim)."""
    if len(x.shape or ()) == 1:
        axis = 0
    helper = LayerHelper("l2_normalize", x=x, name=name)
    out, norm = _outputs(helper, x.dtype, 2)
    helper.append_op("norm", {"X": [x]}, {"Out": [out], "Norm": [norm]},
                     {"axis": 1 if axis is None else axis, "epsilon": epsilon})
    return out


def label_smooth(label, prior_dist=None, epsilon=0.1, dtype="float32", name=None):
    """(1 - epsilon) * label + epsilon * prior_dist (uniform 1 / classes without it), for one-hot
    labels."""
    if not 0 <= epsilon <= 1:
        raise PeError(f"label_smooth: epsilon={epsilon} must lie in [0, 1]")
    helper = LayerHelper("label_smooth", label=label, name=name)
    out = helper.create_variable_for_type_inference(label.dtype)
    inputs = {"X": [label]}
    if prior_dist is not None:
        inputs["PriorDist"] = [prior_dist]
    helper.append_op("label_smooth", inputs, {"Out": [out]}, {"epsilon": float(epsilon)})
    return out


def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """Per sample (first dim), the sum of the smooth L1 loss of (x - y) * inside_weight, weighted by
    outside_weight: shape [N, 1]. sigma (default 1) sets where it turns from quadratic to linear."""
    helper = LayerHelper("smooth_l1_loss", x=x)
    diff, loss = _outputs(helper, x.dtype, 2)
    inputs = {"X": [x], "Y": [y]}
    if inside_weight is not None:
        inputs["InsideWeight"] = [inside_weight]
    if outside_weight is not None:
        inputs["OutsideWeight"] = [outside_weight]
    helper.append_op("smooth_l1_loss", inputs, {"Diff": [diff], "Out": [loss]},
                     {"sigma": 1.0 if sigma is None else float(sigma)})
    return loss


def kldiv_loss(x, target, reduction="mean", name=None):
    """The Kullback-Leibler divergence of ``target`` from exp(x) (x holds log-probabilities), reduced
    by ``reduction``: 'none', 'batchmean', 'mean' or 'sum'."""
    helper = LayerHelper("kldiv_loss", x=x, name=name)
    loss = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("kldiv_loss", {"X": [x], "Target": [target]}, {"Loss": [loss]}, {"reduction": reduction})
    return loss


def margin_rank_loss(label, left, right, margin=0.1, name=None):
    """max(0, -label * (left - right) + margin) per pair; label is 1 (left should rank higher) or -1."""
    helper = LayerHelper("margin_rank_loss", left=left, name=name)
    out, act = _outputs(helper, left.dtype, 2)
    helper.append_op("margin_rank_loss", {"X1": [left], "X2": [right], "Label": [label]},
                     {"Out": [out], "Activated": [act]}, {"margin": float(margin)})
    return out


def rank_loss(label, left, right, name=None):
    """RankNet's loss: log(1 + exp(left - right)) - label * (left - right), shapes [N, 1]."""
    helper = LayerHelper("rank_loss", left=left, name=name)
    out = helper.create_variable_for_type_inference(left.dtype)
    helper.append_op("rank_loss", {"Label": [label], "Left": [left], "Right": [right]}, {"Out": [out]})
    return out


def bpr_loss(input, label, name=None):
    """Bayesian personalized ranking: per row of item scores ``input`` and its positive item
    ``label`` (int64 [N, 1]), the mean over the other items of log(1 + exp(score - positive's))."""
    helper = LayerHelper("bpr_loss", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("bpr_loss", {"X": [input], "Label": [label]}, {"Y": [out]})
    return out


def teacher_student_sigmoid_loss(input, label, soft_max_up_bound=15.0, soft_max_lower_bound=-15.0):
    """Sigmoid cross-entropy of logits ``input`` [N, 1] with a click and an optional teacher value
    coded in ``label`` [N, 1]: -2 / -1 (no teacher, click 0 / 1), q / 1 + q (teacher q, click 0 / 1).
    The gradient is 0 where the logit lies outside (soft_max_lower_bound, soft_max_up_bound)."""
    helper = LayerHelper("teacher_student_sigmoid_loss", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("teacher_student_sigmoid_loss", {"X": [input], "Label": [label]}, {"Y": [out]},
                     {"soft_max_up_bound": float(soft_max_up_bound),
                      "soft_max_lower_bound": float(soft_max_lower_bound)})
    return out


def hsigmoid(input, label, num_classes, param_attr=None, bias_attr=None, name=None, path_table=None,
             path_code=None, is_custom=False, is_sparse=False):
    """Hierarchical sigmoid: the loss of ``label`` along its path of binary classifiers, in the
    default complete tree over ``num_classes`` (weights [num_classes - 1, D]) or, with ``is_custom``,
    the tree of ``path_table`` / ``path_code`` (weights [num_classes, D]); shape [N, 1].
    ``is_sparse`` is accepted; W's gradient stays dense in pe."""
    helper = LayerHelper("hierarchical_sigmoid", input=input, param_attr=param_attr, bias_attr=bias_attr,
                         name=name)
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
    helper.append_op("hierarchical_sigmoid", inputs, {"Out": [out], "PreOut": [pre_out], "W_Out": [weights]},
                     {"num_classes": num_classes, "is_sparse": is_sparse, "remote_prefetch": False})
    return out


def center_loss(input, label, num_classes, alpha, param_attr, update_center=True):
    """Half the squared distance of each row of ``input`` [N, D] from its class's center ([N, 1]);
    the centers ([num_classes, D], a parameter made with ``param_attr``) move towards their rows by
    ``alpha`` (a number or a float32 [1] Variable) on each run when ``update_center``; no gradient
    reaches them."""
    helper = LayerHelper("center_loss", input=input)
    dim = (input.shape or (0, 0))[-1]
    centers = helper.create_parameter(param_attr, [num_classes, dim], input.dtype)
    centers.stop_gradient = True
    if isinstance(alpha, Variable):
        rate = alpha
    else:
        block = helper.main_program.global_block()
        name = "centerloss_alpha" if not block.has_var("centerloss_alpha") else unique_name.generate("centerloss_alpha")
        rate = helper.create_global_variable(name=name, shape=[1], dtype=input.dtype, persistable=True,
                                             stop_gradient=True)
        helper.set_variable_initializer(rate, ConstantInitializer(float(alpha)))
    diff = helper.create_variable_for_type_inference(input.dtype)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("center_loss", {"X": [input], "Label": [label], "Centers": [centers], "CenterUpdateRate": [rate]},
                     {"SampleCenterDiff": [diff], "Loss": [loss], "CentersOut": [centers]},
                     {"cluster_num": num_classes, "need_update": bool(update_center)})
    return loss


def sampled_softmax_with_cross_entropy(logits, label, num_samples, num_true=1, remove_accidental_hits=True,
                                       use_customized_samples=False, customized_samples=None,
                                       customized_probabilities=None, seed=0):
    """Softmax cross-entropy over each row's label and ``num_samples`` sampled negative classes
    (log-uniform, shared by the batch; or ``customized_samples`` with their probabilities), the
    logits corrected by -log(probability): Fluid's sample_logits, one_hot, softmax_with_cross_entropy
    (soft labels), divided by num_true. As Fluid's one_hot step, num_true must be 1."""
    if num_true != 1:
        raise PeError(f"sampled_softmax_with_cross_entropy: num_true={num_true}; only 1 is supported (Fluid's "
                      f"one_hot step takes one label per row)")
    if use_customized_samples and (customized_samples is None or customized_probabilities is None):
        raise PeError("sampled_softmax_with_cross_entropy: use_customized_samples needs customized_samples and "
                      "customized_probabilities")
    helper = LayerHelper("sample_logits", logits=logits)
    dtype = logits.dtype
    outs = {"Samples": customized_samples if use_customized_samples else
            helper.create_variable_for_type_inference("int64", stop_gradient=True),
            "Probabilities": customized_probabilities if use_customized_samples else
            helper.create_variable_for_type_inference(dtype, stop_gradient=True),
            "SampledLogits": helper.create_variable_for_type_inference(dtype),
            "SampledLabels": helper.create_variable_for_type_inference("int64", stop_gradient=True)}
    inputs = {"Logits": [logits], "Labels": [label]}
    if use_customized_samples:
        inputs.update(CustomizedSamples=[customized_samples], CustomizedProbabilities=[customized_probabilities])
    helper.append_op("sample_logits", inputs, {k: [v] for k, v in outs.items()},
                     {"use_customized_samples": use_customized_samples, "uniq": True,
                      "remove_accidental_hits": remove_accidental_hits, "num_samples": num_samples, "seed": seed})
    soft = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("one_hot", {"X": [outs["SampledLabels"]]}, {"Out": [soft]},
                     {"depth": num_samples + num_true, "dtype": dtype})
    softmax = helper.create_variable_for_type_inference(dtype)
    loss = helper.create_variable_for_type_inference(dtype)
    helper.append_op("softmax_with_cross_entropy", {"Logits": [outs["SampledLogits"]], "Label": [soft]},
                     {"Softmax": [softmax], "Loss": [loss]},
                     {"soft_label": True, "ignore_index": -100, "numeric_stable_mode": False})
    return loss / num_true

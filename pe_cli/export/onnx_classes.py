"""A classifier's outputs in an exported ONNX graph, as ``pe predict`` writes them (run/predict.py):
after the output layer's values, ``prob`` (a Softmax over axis 1, or the values themselves where the
layer is a softmax: Inference.rows_are_probabilities), ``class`` (the first ArgMax of ``prob``) and,
where the run has the label's class names, ``class_name`` (an ai.onnx.ml LabelEncoder id -> name).
Of a model with several outputs, each classifier's are prefixed by its output's name (species_prob)."""

from ..base.errors import PeError
from .onnx_vocabularies import ML_DOMAIN

PROB, CLASS, CLASS_NAME = "prob", "class", "class_name"
_FLOAT, _INT64, _STRING = 1, 7, 8  # onnx.TensorProto codes


def class_names(inference):
    """The label's class names (a label preprocessing's classes, a category's vocabulary), or None."""
    prep = inference.preprocessing
    return prep.class_names(inference.labels[0]) if prep is not None and inference.labels else None


def class_outputs(graph, inference, prefix=""):
    """Appends the classifier's nodes; returns [(output name, elem type, dims)] (none for a regression).
    ``inference`` is an Inference or, of a model with several outputs, a HeadView (run/inference.py);
    ``prefix`` goes before each output's name (``species_`` of the output species: species_prob)."""
    if inference.kind != "classification":
        return []
    prob, klass, class_name = (prefix + name for name in (PROB, CLASS, CLASS_NAME))
    for name in (prob, klass, class_name):
        if graph.block.has_var(name):
            raise PeError(
                f"cannot export to ONNX: the model has a variable named '{name}', the name of a "
                f"classifier's output in the graph (docs/ONNX.md); rename its layer"
            )
    values = inference.target.name
    dims = ["N"] + [d for d in graph.shape(values)[1:]]
    if inference.rows_are_probabilities:
        graph.node("Identity", [values], [prob])
    else:
        graph.node("Softmax", [values], [prob], axis=1)
    graph.node("ArgMax", [prob], [klass], axis=1, keepdims=0)
    outputs = [(prob, _FLOAT, dims), (klass, _INT64, ["N"])]
    names = class_names(inference)
    if names is not None:
        graph.node(
            "LabelEncoder",
            [klass],
            [class_name],
            domain=ML_DOMAIN,
            keys_int64s=list(range(len(names))),
            values_strings=[str(n) for n in names],
            default_string="",
        )
        outputs.append((class_name, _STRING, ["N"]))
    return outputs

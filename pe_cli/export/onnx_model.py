"""The inference program as an ONNX model, built with the ``onnx`` package's helper API (an
optional extra: ``pip install 'pe-cli[onnx]'``). Feeds become graph inputs with a symbolic batch
dimension (a sequence feed of ids: padded plus ``NAME_lengths``, export/onnx_sequence.py; a category
or text feed: its strings, export/onnx_vocabularies.py), parameters initializers, the output layer
the first graph output (a classifier's ``prob``, ``class`` and ``class_name`` after it:
export/onnx_classes.py; a model with several output features: each one's outputs in turn, named
after it, _head_outputs); each op goes through its converter in onnx_ops.CONVERTERS or
onnx_sequence.SEQUENCE_CONVERTERS (onnx_padding.py: between sequences and dense batches;
docs/ONNX.md lists them)."""

import numpy as np

from ..base.atomic_file import atomic_write, write_file
from ..base.errors import PeError
from ..base.output_rule import check_side_file
from .onnx_classes import class_outputs
from .onnx_ops import CONVERTERS
from .onnx_preprocessing import files_beside, preprocessing_nodes, unscale
from .onnx_sequence import SEQUENCE_CONVERTERS, convert_op, output_dims, padded_inputs
from .onnx_vocabularies import ML_DOMAIN, MS_DOMAIN

OPSET = 17
IR_VERSION = 8  # the oldest IR of opset 17: the widest range of runtimes reads it
_DTYPES = {"float32": 1, "int32": 6, "int64": 7, "float64": 11, "string": 8}  # onnx.TensorProto codes
_DOMAINS = {ML_DOMAIN: 3, MS_DOMAIN: 1}  # ai.onnx.ml 3 goes with opset 17; onnxruntime's contrib ops


def missing_onnx_message():
    return "pe export --onnx needs the onnx package: pip install 'pe-cli[onnx]' (or pip install onnx)"


def _import_onnx():
    try:
        import onnx  # the optional extra: only `pe export --onnx` loads it
        from onnx import helper, numpy_helper
    except ImportError:
        raise PeError(missing_onnx_message()) from None
    return onnx, helper, numpy_helper


class _Graph:
    """What converters append to: nodes, constants, and the shapes pe inferred."""

    def __init__(self, block, helper, numpy_helper):
        self.block, self.helper, self.numpy_helper = block, helper, numpy_helper
        self.nodes, self.initializers = [], []
        self._count = 0
        self.op = None
        self.sequences = {}  # padded sequence variable -> its lengths (export/onnx_sequence.py)
        self.domains = set()  # the operator sets beside ONNX's own that the nodes use

    def node(self, op_type, inputs, outputs, **attrs):
        if attrs.get("domain"):
            self.domains.add(attrs["domain"])
        self.nodes.append(self.helper.make_node(op_type, inputs, outputs, name=self.temp(op_type), **attrs))

    def temp(self, base):
        self._count += 1
        return f"{base}.onnx_{self._count}"

    def constant(self, array):
        name = self.temp("const")
        self.initializers.append(self.numpy_helper.from_array(np.asarray(array), name))
        return name

    def shape(self, name):
        return list(self.block.var(name).shape)

    def rank(self, name):
        return len(self.shape(name))

    def reshape(self, name, shape, out=None):
        out = out or self.temp(name)
        self.node("Reshape", [name, self.constant(np.array(shape, dtype=np.int64))], [out])
        return out

    def flatten(self, name, axis):
        out = self.temp(name)
        self.node("Flatten", [name], [out], axis=axis)
        return out

    def refuse(self, op, why):
        raise PeError(f"cannot export {op.describe()} to ONNX: {why}")


def exportable_ops():
    """Every op type pe exports to ONNX (docs/ONNX.md lists them; a test keeps the two equal)."""
    return sorted(set(CONVERTERS) | set(SEQUENCE_CONVERTERS))


def onnx_model(inference):
    """The ONNX ModelProto of an Inference (pe_cli.run.inference)."""
    return _build(inference)[0]


def _build(inference):
    """(the ModelProto, feeds whose preprocessing is in the graph, steps left outside it)."""
    onnx, helper, numpy_helper = _import_onnx()
    block = inference.program.global_block()
    for op in block.ops:
        if op.type not in CONVERTERS and op.type not in SEQUENCE_CONVERTERS:
            raise PeError(
                f"cannot export to ONNX: {op.describe()} has no ONNX mapping "
                f"(ops that export: {', '.join(exportable_ops())}; docs/ONNX.md)"
            )
    graph = _Graph(block, helper, numpy_helper)
    inputs = padded_inputs(graph, inference.inputs)
    # parameters and batch_norm's moving statistics (which its op also names as outputs)
    params = sorted(
        {n for op in block.ops for n in op.input_arg_names if block.var(n).persistable and n not in inference.inputs}
    )
    for name in params:
        graph.initializers.append(numpy_helper.from_array(inference.value(name), name))
    for op in block.ops:
        convert_op(graph, op)
    # the raw columns in (onnx_preprocessing.py), a classifier's probabilities and classes out (onnx_classes.py)
    inputs, inside, outside = preprocessing_nodes(graph, inference, inputs)
    outputs = []
    for head in inference.heads or [inference]:
        got = _head_outputs(graph, head, inside, several=bool(inference.heads))
        outputs += [o for o in got if o[0] not in [name for name, _, _ in outputs]]  # a layer two heads share: once
    named = [name for name, elem, _ in outputs if elem == _DTYPES["string"]]  # the class names
    if named:
        inside.append(f"the class names (output{'s' if len(named) > 1 else ''} {', '.join(named)})")
    g = helper.make_graph(
        graph.nodes,
        "+".join(h.output for h in inference.heads or [inference]),
        [helper.make_tensor_value_info(n, _DTYPES.get(t, 1), dims) for n, dims, t in inputs],
        [helper.make_tensor_value_info(*output) for output in outputs],
        graph.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)] + [helper.make_opsetid(d, _DOMAINS[d]) for d in sorted(graph.domains)]
    model = helper.make_model(g, producer_name="pe", opset_imports=opsets)
    model.ir_version = IR_VERSION
    raw = [f for f in inside if f in inference.inputs]
    if raw:
        model.doc_string = f"inputs {', '.join(raw)} take raw values: their preprocessing is in the graph"
    onnx.checker.check_model(model)
    return model, inside, outside


def _head_outputs(graph, head, inside, several):
    """The nodes after one output (an Inference, or a HeadView of a model with several); returns its
    graph outputs [(name, elem type, dims)]: its values (a regression's in its target's units, appended
    to ``inside``), then a classifier's probabilities and classes (onnx_classes.py). Of several
    outputs, a regression's values are named after its output feature (its label: body_mass_g) and a
    classifier's class outputs are prefixed by it (species_prob)."""
    target, label = head.target, head.labels[0] if head.labels else None
    name = label if several and head.kind == "regression" else target.name
    if name != target.name and any(name in op.output_arg_names for op in graph.block.ops):
        raise PeError(
            f"cannot export to ONNX: the model has a variable named '{name}', the name of output "
            f"'{head.output}' in the graph (docs/ONNX.md); rename its layer"
        )
    if head.units:
        unscale(graph, target.name, head.units, out=None if name == target.name else name)
        inside.append(f"the output in {label}'s units")
    elif name != target.name:
        graph.node("Identity", [target.name], [name])
    outputs = [(name, _DTYPES.get(str(target.dtype), 1), output_dims(graph, target))]
    return outputs + class_outputs(graph, head, f"{label}_" if several else "")


def export_onnx(inference, path, option="pe export --onnx"):
    """Writes the ONNX model to ``path`` (atomically) and, when the run has preprocessing, the
    files beside it (onnx_preprocessing.py; each checked first: never a file already there with other
    bytes, pe_cli/base/output_rule.py); returns (input names, output names, feeds preprocessed
    in the graph, steps left outside it). A sequence feed that takes ids is two inputs, ``NAME``
    padded and ``NAME_lengths`` (export/onnx_sequence.py); a text feed one, its strings."""
    model, inside, outside = _build(inference)
    beside = files_beside(inference, path, inside, outside)
    for side, text in beside.items():
        check_side_file(side, text, option, path)
    write_file(path, lambda f: f.write(model.SerializeToString()))
    for side, text in beside.items():
        atomic_write(side, text)
    return [i.name for i in model.graph.input], [o.name for o in model.graph.output], inside, outside

"""Inference models that PaddlePaddle Fluid saved (``save_inference_model``: ``__model__`` a protobuf
ProgramDesc, the parameters in Fluid's LoDTensor files), loaded into a pe Program.

The ``feed`` and ``fetch`` ops Fluid adds give the feed names (by their ``col``) and the fetch
targets; they and their holder variables are left out, as Fluid's loader leaves them to the
executor. An attribute that pe's op does not declare is dropped when it only steers a backend pe
does not have (MKL-DNN, cuDNN, int8 quantization scales, device placement, the op's call stack);
any other is refused with the op named, since running without it could give other numbers.
Parameters are the persistable variables: one file each (named as the variable) or, with
``params_filename``, one file of all of them end to end in the order of their sorted names (Fluid's
``save_combine``).
"""
import os

from ..dtypes import VarType
from ..errors import PeError
from ..framework import Program
from ..framework.program import Block
from ..ops import registry
from .fluid_proto import DTYPES, messages, parse_program_desc, read_lod_tensors

_HOLDERS = {9, 10}                    # VarType FEED_MINIBATCH, FETCH_LIST
_VAR_TYPES = {8: VarType.SELECTED_ROWS}    # VarType SELECTED_ROWS; pe's other variables need no type
# attributes that only steer backends, placement or debugging (never the numbers on a CPU or GPU)
_BACKEND_ATTRS = {"op_callstack", "op_role", "op_role_var", "op_namescope", "op_device", "use_mkldnn",
                  "use_cudnn", "mkldnn_data_type", "use_quantizer", "x_data_format", "y_data_format",
                  "Scale_x", "Scale_y", "Scale_out", "scale_x", "scale_y", "scale_out", "force_fp32_output",
                  "workspace_size_MB", "exhaustive_search", "with_quant_attr", "is_test"}
# attributes a later Fluid added whose value here means "as before": no layout, no cast, and (by op)
# softplus's log(1 + exp(x)) with beta 1, which above threshold 20 is x to float precision anyway
_NEUTRAL = {"data_format": ("AnyLayout",), "in_dtype": (-1,), "out_dtype": (-1,),
            ("softplus", "beta"): (1.0,), ("softplus", "threshold"): (20.0,)}
_DTYPE_ATTRS = ("dtype", "in_dtype", "out_dtype")


def looks_like_program_desc(data):
    """True for a protobuf ProgramDesc (its first field is ``blocks``), False for pe's JSON."""
    return data[:1] == b"\x0a"


def _attr_value(attr, program, where):
    kind = messages()["OpDesc"].DESCRIPTOR.fields_by_name["attrs"].message_type.fields_by_name["type"] \
        .enum_type.values_by_number[attr.type].name
    value = {"INT": lambda: attr.i, "FLOAT": lambda: attr.f, "STRING": lambda: attr.s,
             "INTS": lambda: list(attr.ints), "FLOATS": lambda: list(attr.floats),
             "STRINGS": lambda: list(attr.strings), "BOOLEAN": lambda: attr.b, "BOOLEANS": lambda: list(attr.bools),
             "BLOCK": lambda: attr.block_idx, "LONG": lambda: attr.l, "BLOCKS": lambda: list(attr.blocks_idx),
             "LONGS": lambda: list(attr.longs)}[kind]()
    if kind in ("BLOCK", "BLOCKS"):
        for idx in value if kind == "BLOCKS" else [value]:
            if not 0 < idx < len(program.blocks):
                raise PeError(f"{where}: attribute '{attr.name}' names block {idx}, which the model does not have")
    return value


def _op_attrs(op, program, where):
    declared = registry.get(op.type).attrs
    attrs = {}
    for attr in op.attrs:
        value = _attr_value(attr, program, where)
        if attr.name not in declared:
            if attr.name in _BACKEND_ATTRS or value in _NEUTRAL.get(attr.name, _NEUTRAL.get((op.type, attr.name), ())):
                continue
            raise PeError(f"{where}: attribute {attr.name}={value!r}, which pe's {op.type} does not implement; "
                          f"pe cannot run this model the way Fluid would")
        if attr.name in _DTYPE_ATTRS and isinstance(value, int) and isinstance(declared[attr.name].default, (str, type(None))):
            if value not in DTYPES:      # Fluid stores a dtype as its VarType code; pe by name
                raise PeError(f"{where}: attribute {attr.name}={value} is not a data type pe has")
            value = DTYPES[value]
        attrs[attr.name] = value
    return attrs


def _declare_vars(block, desc_block, feeds):
    for v in desc_block.vars:
        kind = v.type.type
        if kind in _HOLDERS:
            continue
        tensor = v.type.lod_tensor if v.type.HasField("lod_tensor") else v.type.tensor_array
        dtype = DTYPES.get(tensor.tensor.data_type, "float32")
        block.create_var(name=v.name, shape=list(tensor.tensor.dims), dtype=dtype, lod_level=tensor.lod_level,
                         persistable=bool(v.persistable) and kind == 7, is_data=v.name in feeds,
                         need_check_feed=bool(v.need_check_feed), stop_gradient=True,
                         type=_VAR_TYPES.get(kind))


def program_from_desc(desc, where):
    """(Program, feed names in ``col`` order, fetch names in ``col`` order) of a ProgramDesc."""
    program = Program()
    feeds, fetches = {}, {}
    for op in desc.blocks[0].ops:
        col = next((a.i for a in op.attrs if a.name == "col"), 0)
        if op.type == "feed":
            feeds[col] = op.outputs[0].arguments[0]
        elif op.type == "fetch":
            fetches[col] = op.inputs[0].arguments[0]
    for i, b in enumerate(desc.blocks):
        if b.idx != i:
            raise PeError(f"{where}: block {b.idx} is stored at position {i}")
        if i:
            program.blocks.append(Block(program, i, b.parent_idx))
        _declare_vars(program.blocks[i], b, set(feeds.values()))
    for i in reversed(range(len(desc.blocks))):        # nested blocks first: their ops' variables exist
        block = program.blocks[i]
        for n, op in enumerate(desc.blocks[i].ops):
            if op.type in ("feed", "fetch"):
                continue
            at = f"{where}: block {i} op {n} ({op.type})"
            if op.type not in registry.all_op_types():
                raise PeError(f"{at}: pe has no op '{op.type}', so it cannot run this Fluid model")
            slots = lambda vs: {v.parameter: list(v.arguments) for v in vs if v.arguments}  # noqa: E731
            attrs = _op_attrs(op, program, at)
            try:
                block.append_op(op.type, slots(op.inputs), slots(op.outputs), attrs)
            except PeError as e:
                raise PeError(f"{at}: {e}") from None
    program._is_test = True
    return program, [feeds[c] for c in sorted(feeds)], [fetches[c] for c in sorted(fetches)]


def read_fluid_params(dirname, names, params_filename, where_model):
    """{name: array} of the persistable variables ``names`` from Fluid's files in ``dirname``."""
    if params_filename is not None:
        path = os.path.join(dirname, params_filename)
        if not os.path.isfile(path):
            raise PeError(f"{where_model}: its parameters file '{path}' does not exist")
        with open(path, "rb") as f:
            tensors = read_lod_tensors(f.read(), path, count=len(names))
        return {n: a for n, (a, _) in zip(sorted(names), tensors)}
    arrays = {}
    for name in names:
        path = os.path.join(dirname, name)
        if not os.path.isfile(path):
            raise PeError(f"{where_model}: the parameter file '{path}' is missing")
        with open(path, "rb") as f:
            arrays[name] = read_lod_tensors(f.read(), path, count=1)[0][0]
    return arrays


def load_program_desc(path, data):
    return program_from_desc(parse_program_desc(data, path), path)

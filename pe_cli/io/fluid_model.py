"""Inference models that PaddlePaddle Fluid saved (``save_inference_model``: ``__model__`` a protobuf
ProgramDesc, the parameters in Fluid's LoDTensor files), loaded into a pe Program.

The ``feed`` and ``fetch`` ops Fluid adds give the feed names (by their ``col``) and the fetch
targets; they and their holder variables are left out, as Fluid's loader leaves them to the
executor. An attribute that pe's op does not declare is dropped when it only steers a backend pe
does not have (MKL-DNN, cuDNN, int8 quantization scales, device placement, the op's call stack);
any other is refused with the op named, since running without it could give other numbers.
Parameters are the persistable variables, which ``load_vars`` reads from Fluid's files (one each,
named as the variable, or ``params_filename`` holding them all by sorted name: pe_cli/io/checkpoint.py).
"""
import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError
from ..base.limits import check_blocks, check_dims
from ..framework import Program
from ..framework.program import Block
from ..ops import registry
from .fluid_proto import DTYPE_CODES, DTYPES, messages, parse_program_desc

_HOLDERS = {9, 10}                    # VarType FEED_MINIBATCH, FETCH_LIST
_VAR_TYPES = {8: VarType.SELECTED_ROWS}    # VarType SELECTED_ROWS; pe's other variables need no type
# attributes that only steer backends, placement or debugging (never the numbers on a CPU or GPU)
_BACKEND_ATTRS = {"op_callstack", "op_role", "op_role_var", "op_namescope", "op_device", "use_mkldnn",
                  "use_cudnn", "mkldnn_data_type", "use_quantizer", "x_data_format", "y_data_format",
                  "Scale_x", "Scale_y", "Scale_out", "scale_x", "scale_y", "scale_out", "force_fp32_output",
                  "workspace_size_MB", "exhaustive_search", "with_quant_attr", "is_test"}
# attributes a later Fluid added whose value here means "as before" (no layout, no cast)
_NEUTRAL = {"data_format": ("AnyLayout",), "in_dtype": (-1,), "out_dtype": (-1,)}
_DTYPE_ATTRS = ("dtype", "in_dtype", "out_dtype")


def looks_like_program_desc(data):
    """True for a protobuf ProgramDesc (its first field is ``blocks``), False for pe's JSON."""
    return data[:1] == b"\x0a"


# OpDesc.Attr's value field by AttrType (framework.proto): INT FLOAT STRING INTS FLOATS STRINGS
# BOOLEAN BOOLEANS BLOCK LONG BLOCKS LONGS
_ATTR_FIELDS = ("i", "f", "s", "ints", "floats", "strings", "b", "bools", "block_idx", "l", "blocks_idx", "longs")
_BLOCK_KINDS = (8, 10)


def _attr_value(attr, program, where, block_idx):
    if not 0 <= attr.type < len(_ATTR_FIELDS):
        raise PeError(f"{where}: attribute '{attr.name}' has type {attr.type}, which Fluid 1.x does not define")
    value = getattr(attr, _ATTR_FIELDS[attr.type])
    if not isinstance(value, (int, float, str, bool)):
        value = list(value)                  # a repeated field
    if attr.type in _BLOCK_KINDS:
        for idx in value if isinstance(value, list) else [value]:
            if not 0 < idx < len(program.blocks):
                raise PeError(f"{where}: attribute '{attr.name}' names block {idx}, which the model does not have")
            if idx <= block_idx:
                raise PeError(f"{where}: attribute '{attr.name}' names block {idx}, which is not a later block than "
                              f"the op's own ({block_idx}): the op would run itself; the model file is damaged")
    return value


def _op_attrs(op, program, where, block_idx):
    declared = registry.get(op.type).attrs
    attrs = {}
    for attr in op.attrs:
        value = _attr_value(attr, program, where, block_idx)
        if attr.name not in declared:
            if attr.name in _BACKEND_ATTRS or value in _NEUTRAL.get(attr.name, ()):
                continue
            raise PeError(f"{where}: attribute {attr.name}={value!r}, which pe's {op.type} does not implement; "
                          f"pe cannot run this model the way Fluid would")
        if attr.name in _DTYPE_ATTRS and isinstance(value, int) and isinstance(declared[attr.name].default, (str, type(None))):
            if value not in DTYPES:      # Fluid stores a dtype as its VarType code; pe by name
                raise PeError(f"{where}: attribute {attr.name}={value} is not a data type pe has")
            value = DTYPES[value]
        attrs[attr.name] = value
    return attrs


def _declare_vars(block, desc_block, feeds, where):
    for v in desc_block.vars:
        kind = v.type.type
        if kind in _HOLDERS:
            continue
        if kind == 8:                        # SELECTED_ROWS: a TensorDesc, no LoD
            tensor, lod_level = v.type.selected_rows, 0
        else:
            holder = v.type.lod_tensor if v.type.HasField("lod_tensor") else v.type.tensor_array
            tensor, lod_level = holder.tensor, holder.lod_level
        persistable = bool(v.persistable) and kind == 7
        shape = [int(d) for d in tensor.dims]
        if persistable or v.name in feeds:
            check_dims(shape, f"{where}: block {block.idx} variable '{v.name}'", known=persistable)
        block.create_var(name=v.name, shape=shape, dtype=DTYPES.get(tensor.data_type, "float32"),
                         lod_level=lod_level,
                         persistable=persistable, is_data=v.name in feeds,
                         need_check_feed=bool(v.need_check_feed), stop_gradient=True,
                         type=_VAR_TYPES.get(kind))


def _slots(desc_vars):
    """An OpDesc's inputs or outputs as pe's {slot: [names]}; a slot with no argument is left out."""
    return {v.parameter: list(v.arguments) for v in desc_vars if v.arguments}


def program_from_desc(desc, where):
    """(Program, feed names in ``col`` order, fetch names in ``col`` order) of a ProgramDesc."""
    check_blocks([b.parent_idx for b in desc.blocks], [len(b.ops) for b in desc.blocks], where)
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
        _declare_vars(program.blocks[i], b, set(feeds.values()), where)
    for i in reversed(range(len(desc.blocks))):        # nested blocks first: their ops' variables exist
        block = program.blocks[i]
        for n, op in enumerate(desc.blocks[i].ops):
            if op.type in ("feed", "fetch"):
                continue
            at = f"{where}: block {i} op {n} ({op.type})"
            if op.type not in registry.all_op_types():
                raise PeError(f"{at}: pe has no op '{op.type}', so it cannot run this Fluid model")
            attrs = _op_attrs(op, program, at, i)
            try:
                block.append_op(op.type, _slots(op.inputs), _slots(op.outputs), attrs)
            except PeError as e:
                raise PeError(f"{at}: {e}") from None
    program._is_test = True
    return program, [feeds[c] for c in sorted(feeds)], [fetches[c] for c in sorted(fetches)]


def load_program_desc(path, data):
    return program_from_desc(parse_program_desc(data, path), path)


# ---- writing: a pe Program as Fluid's ProgramDesc, so PaddlePaddle loads what pe saves ----------

_INT32 = range(-2 ** 31, 2 ** 31)
_BLOCK_ATTRS = {"sub_block": 8, "sub_blocks": 10}    # AttrType BLOCK, BLOCKS


def _attr_kind(value, default):
    """(AttrType, value) of one attribute, its type taken from the declared default where it has one
    (a float attribute given as 2 is stored as FLOAT, as Fluid's Python sets it), else from ``value``;
    None when Fluid's attribute types cannot hold it."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return 6, value
    if isinstance(value, int):
        if isinstance(default, float) and not isinstance(default, bool):
            return 1, float(value)
        return (0 if value in _INT32 else 9), value
    if isinstance(value, float):
        return 1, value
    if isinstance(value, str):
        return 2, value
    if isinstance(value, (list, tuple, np.ndarray)):
        items = [v.item() if isinstance(v, np.generic) else v for v in value]
        hint = default[0] if isinstance(default, (list, tuple)) and default else None
        if all(isinstance(v, bool) for v in items) and items:
            return 7, items
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items) and not isinstance(hint, float):
            return (3 if all(v in _INT32 for v in items) else 11), items      # [] is INTS, as Fluid stores it
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            return 4, [float(v) for v in items]
        if all(isinstance(v, str) for v in items):
            return 5, items
    return None


def _op_desc(desc, op, where):
    desc.type = op.type
    for slots, out in ((op.inputs, desc.inputs), (op.outputs, desc.outputs)):
        for slot, names in slots.items():
            out.add(parameter=slot, arguments=list(names))
    defaults = registry.get(op.type).default_attrs() if op.type in registry.all_op_types() else {}
    for name in sorted(op.attrs):
        value = op.attrs[name]
        if name.startswith("_") or (value is None and defaults.get(name) is None):
            continue           # pe's run-time handles, and unset optional attributes
        attr = desc.attrs.add(name=name)
        if name in _BLOCK_ATTRS:
            attr.type = _BLOCK_ATTRS[name]
            if attr.type == 8:
                attr.block_idx = int(value)
            else:
                attr.blocks_idx.extend(int(v) for v in value)
            continue
        if name in _DTYPE_ATTRS and isinstance(value, str) and value in DTYPE_CODES:
            value = DTYPE_CODES[value]            # Fluid stores a dtype as its VarType code
        kind = _attr_kind(value, defaults.get(name))
        if kind is None:
            raise PeError(f"{where}: op {op.type} attribute {name}={value!r} has no Fluid attribute type, "
                          f"so the model cannot be saved in Fluid's format")
        attr.type, value = kind
        field = getattr(attr, _ATTR_FIELDS[attr.type])
        if isinstance(value, list):
            field.extend(value)
        else:
            setattr(attr, _ATTR_FIELDS[attr.type], value)


def _var_desc(desc, var, feeds):
    desc.name, desc.persistable = var.name, bool(var.persistable)
    desc.need_check_feed = bool(var.need_check_feed)     # as Fluid: fluid.data's feeds, not layers.data's
    sparse = var.type == VarType.SELECTED_ROWS
    desc.type.type = 8 if sparse else 7
    tensor = desc.type.selected_rows if sparse else desc.type.lod_tensor.tensor
    tensor.data_type = DTYPE_CODES.get(var.dtype or "float32", DTYPE_CODES["float32"])
    tensor.dims.extend(int(d) for d in var.shape or ())
    if not sparse:
        desc.type.lod_tensor.lod_level = int(var.lod_level or 0)


def _holder(desc, name, kind):
    desc.name, desc.persistable = name, True
    desc.type.type = kind


def program_to_desc(program, ops, var_names, feeds, fetches, where):
    """The bytes of a Fluid ProgramDesc holding ``ops`` and ``var_names`` of ``program``'s global
    block, every sub-block whole, and Fluid's ``feed``/``fetch`` ops and holder variables (feeds
    prepended one by one, so the last is first; fetches appended in order), as Fluid 1.x's
    ``save_inference_model`` writes ``__model__``."""
    desc = messages()["ProgramDesc"]()
    desc.version.version = 0
    for block in program.blocks:
        b = desc.blocks.add(idx=block.idx, parent_idx=block.parent_idx)
        glob = block.idx == 0
        if glob:
            _holder(b.vars.add(), "feed", 9)
            _holder(b.vars.add(), "fetch", 10)
            for col in reversed(range(len(feeds))):
                b.ops.add(type="feed", inputs=[dict(parameter="X", arguments=["feed"])],
                          outputs=[dict(parameter="Out", arguments=[feeds[col]])],
                          attrs=[dict(name="col", type=0, i=col)])
        for name in (var_names if glob else block.vars):
            _var_desc(b.vars.add(), block.var(name), feeds)
        for n, op in enumerate(ops if glob else block.ops):
            _op_desc(b.ops.add(), op, f"{where}: block {block.idx} op {n}")
        if glob:
            for col, name in enumerate(fetches):
                b.ops.add(type="fetch", inputs=[dict(parameter="X", arguments=[name])],
                          outputs=[dict(parameter="Out", arguments=["fetch"])],
                          attrs=[dict(name="col", type=0, i=col)])
    return desc.SerializeToString()

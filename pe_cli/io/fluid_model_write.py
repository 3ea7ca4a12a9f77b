"""A pe Program as Fluid's ProgramDesc (``__model__``, ``.pdmodel``), so PaddlePaddle loads what pe
saves; fluid_model.py reads them."""
import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError
from ..ops import registry
from .fluid_model import _ATTR_FIELDS, _DTYPE_ATTRS
from .fluid_proto import DTYPE_CODES, messages

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

"""A pe Program as Fluid's ProgramDesc (``__model__``, ``.pdmodel``), so PaddlePaddle loads what pe
saves; fluid_model.py reads them."""

import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError
from ..base.fluid_proto import ATTR_FIELDS as _ATTR_FIELDS, DTYPE_ATTRS as _DTYPE_ATTRS, DTYPE_CODES, messages
from ..ops import registry
from ..ops.proto_slots import NOT_IN_FLUID18, NOT_IN_PADDLE26
from ..ops.paddle26_kinds import FLOAT64_VALUES, KINDS as _PADDLE26_KINDS, RENAMED as _PADDLE26_RENAMED
from ..ops.op_versions import VERSIONS as _PADDLE26_VERSIONS
from .fluid_model_read import EMPTY

_INT32 = range(-(2**31), 2**31)
_BLOCK_ATTRS = {"sub_block": 8, "global_block": 8, "sub_blocks": 10}  # AttrType BLOCK, BLOCKS


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
            return (3 if all(v in _INT32 for v in items) else 11), items  # [] is INTS, as Fluid stores it
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            return 4, [float(v) for v in items]
        if all(isinstance(v, str) for v in items):
            return 5, items
    return None


# What Fluid 1.8's OpProtoAndCheckerMaker gives every op (defaults here; an op's own value wins):
# its role (OpRole: 0 forward, 1 backward, 2 optimize, 16 lr_sched, |256 the loss), the variables it
# optimizes, its name scope, the Python call stack that built it (pe writes none) and its device.
_COMMON = ("op_role", "op_role_var", "op_namescope", "op_callstack", "op_device")
# Fluid 1.8.5's attribute types that a value does not show (an empty list, ints for floats, an int that
# is int64), by attribute name: the names of one type in every op proto that declares them, and of a
# type other than INT(S), FLOAT, STRING, BOOLEAN (read from Fluid 1.8.5's protos). Fluid reads an
# attribute by its declared type: an empty INTS list where it declares STRINGS is refused when the op
# is made. (Where a name's type differs between ops, axis, shape, dims, sections, ignore_index, value,
# Fluid converts INT(S) to LONG(S), which is what the value gives.)
_FLUID_KINDS = dict.fromkeys(
    "InputNames backward_skip_vars endpoints epmap ex_states functor_list grad_to_block_id op_callstack "
    "op_role_var prefetch_var_name_to_block_id recv_varnames remote_varnames send_varnames skip_eager_deletion_vars "
    "slice_shapes slice_varnames sparse_grad_to_param states table_names varnames".split(),
    5,
)  # STRINGS
_FLUID_KINDS.update(
    dict.fromkeys(
        "Scale_weights anchor_sizes aspect_ratios bbox_reg_weights fixed_ratios fixed_sizes "
        "fp32_values max_sizes min_sizes scale_y stride variance variances".split(),
        4,
    )
)  # FLOATS
_FLUID_KINDS.update(
    dict.fromkeys(
        "blocksize end_op_index max_average_window min_average_window "
        "min_row_size_to_use_multithread mod_by num_columns num_rows out_val_if_empty "
        "padding_idx seek start_op_index".split(),
        9,
    )
)  # LONG
_FLUID_KINDS.update(dict.fromkeys("height_sections int64_values shifts".split(), 11))  # LONGS


def _fluid_kind(name, value):
    """(AttrType, value) of the attributes _FLUID_KINDS names, when ``value`` is of that shape; else None."""
    kind = _FLUID_KINDS.get(name)
    items = list(value) if isinstance(value, (list, tuple)) else None
    if kind in (4, 5, 11) and items is not None:
        if kind == 5 and all(isinstance(v, str) for v in items):
            return 5, items
        if kind in (4, 11) and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in items):
            return kind, [float(v) for v in items] if kind == 4 else [int(v) for v in items]
    if kind == 9 and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return 9, int(value)
    return None


def _common_attrs(op):
    attrs = op.attrs if op is not None else {}
    return {
        "op_role": int(attrs.get("op_role", getattr(op, "role", 0))),
        "op_role_var": list(attrs.get("op_role_var") or []),
        "op_namescope": attrs.get("op_namescope") or "/",
        "op_callstack": [],
        "op_device": attrs.get("op_device") or "",
    }


def _paddle26_kind(key, value):
    """(AttrType, value) of attribute ``key`` (``op.attr``) as Paddle 2.6.2 declares it (paddle26_kinds.py),
    when ``value`` is of that shape (ints for FLOATS, an int for LONG...); else None."""
    kind = _PADDLE26_KINDS.get(key)
    if isinstance(value, np.generic):
        value = value.item()
    number = (int, float, np.number)
    if kind in (0, 9) and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return kind, int(value)
    if kind in (1, 15) and isinstance(value, number) and not isinstance(value, bool):
        return kind, float(value)
    if kind in (3, 4, 5, 7, 11, 12) and isinstance(value, (list, tuple, np.ndarray)):
        items = [v.item() if isinstance(v, np.generic) else v for v in value]
        if kind == 5 and all(isinstance(v, str) for v in items):
            return 5, items
        if kind == 7 and all(isinstance(v, bool) for v in items):
            return 7, items
        if all(isinstance(v, number) and not isinstance(v, bool) for v in items):
            if kind in (4, 12):
                return kind, [float(v) for v in items]
            if kind in (3, 11) and all(float(v).is_integer() for v in items):
                return kind, [int(v) for v in items]
    return None


def _set_attr(desc, name, value, default, where, kind=None):
    attr = desc.attrs.add(name=name)
    if name in _BLOCK_ATTRS:
        attr.type = _BLOCK_ATTRS[name]
        if attr.type == 8:
            attr.block_idx = int(value)
        else:
            attr.blocks_idx.extend(int(v) for v in value)
        return
    if name in _DTYPE_ATTRS and isinstance(value, str) and value in DTYPE_CODES:
        value = DTYPE_CODES[value]  # Fluid stores a dtype as its VarType code
    kind = kind or _fluid_kind(name, value) or _attr_kind(value, default)
    if kind is None:
        raise PeError(
            f"{where}: attribute {name}={value!r} has no Fluid attribute type, so the model cannot be "
            f"saved in Fluid's format"
        )
    attr.type, value = kind
    field = getattr(attr, _ATTR_FIELDS[attr.type])
    if isinstance(value, list):
        field.extend(value)
    else:
        setattr(attr, _ATTR_FIELDS[attr.type], value)


def _paddle2_defaults(opdef, given):
    """The attributes Paddle 2.x added to an op (declared ``fill=False``: a pe op not given one holds none)
    at their defaults, as Paddle 2.6.2 writes every attribute it declares (one it declares without a
    default it cannot load without)."""
    out = {}
    for name, spec in opdef.attrs.items():
        if not spec.fill and not spec.alias_of and name not in given:
            default = spec.default() if callable(spec.default) else spec.default
            if default is not None:
                out[name] = default
    return out


def _op_desc(desc, op_type, inputs, outputs, attrs, op, where, paddle2=False):
    """One OpDesc: its slots, every attribute it has a value for (the declared defaults included:
    pe's op holds them all) and Fluid's common ones; in a program that follows Paddle 2.x (``paddle2``),
    under Paddle 2.6.2's names and types (paddle26_kinds.py), which Paddle 2.6.2 reads."""
    desc.type = op_type
    opdef = registry.get(op_type) if registry.registered(op_type) else None
    lacks = (NOT_IN_PADDLE26 if paddle2 else NOT_IN_FLUID18).get(op_type, ())  # (pe's slots: written when used)
    declared = {slot.name: [] for slot in (opdef.inputs if opdef is not None else ()) if slot.name not in lacks}
    given = {slot: names for slot, names in inputs.items() if names or slot not in lacks}
    for slots, out in ((dict(declared, **given), desc.inputs), (outputs, desc.outputs)):
        for slot in sorted(slots):  # every declared input, given or not, by slot name (Fluid's map)
            out.add(parameter=slot, arguments=list(slots[slot]))
    defaults = opdef.default_attrs() if opdef is not None else {}
    values = dict(attrs)
    values.update((k, v) for k, v in _common_attrs(op).items() if k not in attrs or attrs[k] is None)
    if paddle2 and opdef is not None:
        values.update(_paddle2_defaults(opdef, values))
    fp32, fp64 = FLOAT64_VALUES.get(op_type, (None, None)) if paddle2 else (None, None)
    if fp32 and values.get("dtype") == "float64" and values.get(fp32):
        # float64 values as Paddle 2.6.2 writes them (FLOAT64S), not rounded to FLOATS' float32
        values[fp64], values[fp32] = values[fp32], []
    written = set()
    for name in sorted(values):
        value = values[name]
        if name.startswith("_") or (value is None and defaults.get(name) is None):
            continue  # pe's run-time handles, and unset optional attributes
        saved, kind = name, None
        if paddle2:
            saved = _PADDLE26_RENAMED.get(f"{op_type}.{name}", name)
            kind = _paddle26_kind(f"{op_type}.{saved}", value)
        if saved in written:
            continue  # (Paddle 2.x's name given beside Fluid's: one value, under the name Paddle reads)
        written.add(saved)
        _set_attr(desc, saved, value, defaults.get(name), f"{where}: op {op_type}", kind)


# pe's variable kinds as Fluid's VarType.Type
_KINDS = {
    VarType.LOD_TENSOR: 7,
    VarType.SELECTED_ROWS: 8,
    VarType.FEED_MINIBATCH: 9,
    VarType.FETCH_LIST: 10,
    VarType.STEP_SCOPES: 11,
    VarType.LOD_RANK_TABLE: 12,
    VarType.LOD_TENSOR_ARRAY: 13,
    VarType.PLACE_LIST: 14,
    VarType.READER: 15,
    VarType.RAW: 17,
}


def _var_desc(desc, var):
    """A VarDesc as Fluid's Python writes it: ``persistable`` always, ``need_check_feed`` where it is
    set, a tensor's ``lod_level`` except on persistables (parameters and optimizer state are made
    without one)."""
    desc.name, desc.persistable = var.name, bool(var.persistable)
    if getattr(var, "need_check_feed", False):  # fluid.data's variables (layers.data's are not)
        desc.need_check_feed = True
    kind = _KINDS.get(var.type, 7)
    desc.type.type = kind
    if kind == 8:
        tensor = desc.type.selected_rows
    elif kind in (7, 13):
        holder = desc.type.lod_tensor if kind == 7 else desc.type.tensor_array
        tensor = holder.tensor
        if not var.persistable or var.lod_level:
            holder.lod_level = int(var.lod_level or 0)
    else:
        return  # holders, step scopes, rank tables, readers: their kind alone
    tensor.data_type = DTYPE_CODES.get(var.dtype or "float32", DTYPE_CODES["float32"])
    tensor.dims.extend(int(d) for d in var.shape or ())


def _holder(desc, name, kind):
    desc.name, desc.persistable = name, True
    desc.type.type = kind


# Fluid 1.8.5's program version (paddle/fluid/framework/version.h: 1.8.5 -> 1008005) and the op
# compatibility table it writes beside it (op_compatible_info.cc: the ops changed since 1.6.0, by name,
# each op:CompatibleInfo type: 1 DEFINITELY_NOT, 2 POSSIBLE, 3 BUG_FIX; read from what Fluid 1.8.5 writes)
PROGRAM_VERSION = 1008005
_COMPATIBLE_SINCE_1_6 = (
    "bilinear_interp:2 center_loss:1 chunk_eval:2 coalesce_tensor:1 conditional_block:2 "
    "conditional_block_infer:2 conv2d:2 conv2d_transpose:2 conv3d:2 conv3d_transpose:2 crf_decoding:2 "
    "crop_tensor:1 ctc_align:2 data_norm:2 deformable_conv:1 deformable_conv_v1:1 depthwise_conv2d:2 "
    "depthwise_conv2d_transpose:2 dpsgd:1 edit_distance:2 expand:2 eye:1 fc:2 fill_any_like:1 "
    "filter_by_instag:1 fused_embedding_seq_pool:2 gather_nd:1 group_norm:2 hard_swish:1 hash:2 "
    "instance_norm:1 layer_norm:3 leaky_relu:2 linear_chain_crf:2 lod_reset:2 lookup_table_v2:1 "
    "match_matrix_tensor:1 matmul:2 mul:2 multiclass_nms2:1 nearest_interp:2 one_hot:2 one_hot_v2:1 "
    "pow:2 prior_box:2 prroi_pool:1 pull_box_sparse:1 reshape2:2 scatter_nd_add:1 sequence_pad:1 "
    "sequence_topk_avg_pooling:1 sequence_unpad:1 shard_index:1 size:1 slice:2 strided_slice:1 "
    "trilinear_interp:1 unfold:1 uniform_random:2 uniform_random_batch_size_like:2 unique:1 "
    "unique_with_counts:1 var_conv_2d:1 warpctc:2 "
).split()


# Paddle 2.6.2's program version (2.6.2 -> 2006002): what pe writes for a program whose ops compute as
# Paddle 2.x's (Program._follows_paddle2: built after paddle.enable_static(), or loaded from a model Paddle
# 2.x saved), so that a model read back, by pe or by Paddle, keeps those meanings (fluid_model_read's
# saved_by_paddle2); a Fluid 1.8 program keeps Fluid 1.8.5's version and table
PADDLE2_VERSION = 2006002


def _versioned(desc, program):
    """Fluid's ``_set_version`` and ``save_op_compatible_info``: the version and the table, by op name;
    Paddle 2.6.2's version and op_version_map (every op type's version, as it writes them) for a program
    that follows Paddle 2.x, with the versions of the model it was read from, if any, so that its ops keep
    their meanings."""
    if getattr(program, "_follows_paddle2", False):
        desc.version.version = PADDLE2_VERSION
        versions = dict(_PADDLE26_VERSIONS)
        loaded = getattr(program, "_op_versions", None)
        if loaded:  # a loaded model keeps its map: an op type it lacks was read as version 0, and stays 0
            versions = {op_name: loaded.get(op_name, 0) for op_name in versions}  # (not for_pybind_test__)
        for op_name, version in sorted(versions.items()):
            desc.op_version_map.pair.add(op_name=op_name).op_version.version = version
        return
    table = desc.op_compatible_map
    for entry in _COMPATIBLE_SINCE_1_6:
        op_name, kind = entry.split(":")
        pair = table.pair.add(op_name=op_name)
        pair.compatible_info.version, pair.compatible_info.type = "1.6.0", int(kind)
    table.default_required_version = "1.5.0"
    desc.version.version = PROGRAM_VERSION


def _sub_blocks(op):
    """The indices of the blocks ``op`` owns (its sub_block / sub_blocks attribute)."""
    out = []
    for name in _BLOCK_ATTRS:
        value = op.attrs.get(name)
        if hasattr(value, "ops"):
            raise PeError(
                f"{op.describe()}: its {name} is a block of another program (as Fluid's dygraph gives "
                f"run_program), which a model file cannot name; save that program instead"
            )
        if value is not None:
            out += [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]
    return out


def _kept_blocks(program, ops):
    """{old block index: new index} of the global block and the blocks the kept ``ops`` own, depth
    first in the order the ops name them (as Fluid's prune numbers the blocks it keeps), with the
    old index of each new block's parent."""
    order, parents = [0], {0: -1}

    def visit(block_ops, parent):
        for op in block_ops:
            for idx in _sub_blocks(op):
                if idx not in parents:
                    order.append(idx)
                    parents[idx] = parent
                    visit(program.block(idx).ops, idx)

    visit(ops, 0)
    return {old: new for new, old in enumerate(order)}, parents


def _renumbered(attrs, blocks):
    out = dict(attrs)
    for name in _BLOCK_ATTRS:
        value = out.get(name)
        if value is not None:
            out[name] = [blocks[int(v)] for v in value] if isinstance(value, (list, tuple)) else blocks[int(value)]
    return out


def program_to_desc(program, ops, var_names, feeds, fetches, where):
    """The bytes of a Fluid ProgramDesc holding ``ops`` and ``var_names`` of ``program``'s global
    block, the blocks those ops own (each whole; numbered as Fluid's prune numbers them), and Fluid's
    ``feed``/``fetch`` ops and holder variables (feeds prepended one by one, so the last is first;
    fetches appended in order; none with ``fetches`` None), as Fluid 1.x's ``save_inference_model``
    writes ``__model__``."""
    desc = messages()["ProgramDesc"]()
    paddle2 = bool(getattr(program, "_follows_paddle2", False))
    blocks, parents = _kept_blocks(program, ops)
    for old in sorted(blocks, key=blocks.get):
        block, glob = program.block(old), old == 0
        b = desc.blocks.add(idx=blocks[old], parent_idx=blocks.get(parents[old], -1))
        if glob and feeds:
            _holder(b.vars.add(), "feed", 9)
            for col in reversed(range(len(feeds))):
                _op_desc(b.ops.add(), "feed", {"X": ["feed"]}, {"Out": [feeds[col]]}, {"col": col}, None, where)
        for name in var_names if glob else block.vars:
            _var_desc(b.vars.add(), block.var(name))
        for n, op in enumerate(ops if glob else block.ops):
            _op_desc(
                b.ops.add(),
                op.type,
                op.inputs,
                op.outputs,
                _renumbered(op.attrs, blocks),
                op,
                f"{where}: block {old} op {n}",
                paddle2,
            )
        if glob and fetches is not None:
            _holder(b.vars.add(), "fetch", 10)
            for col, name in enumerate(fetches):
                _op_desc(b.ops.add(), "fetch", {"X": [name]}, {"Out": ["fetch"]}, {"col": col}, None, where)
    _versioned(desc, program)
    return desc.SerializeToString()


def whole_program_desc(program, where):
    """The bytes of ``program`` whole as Fluid's ProgramDesc: every block's variables and ops (what
    ``fluid.save`` writes to ``.pdmodel`` and ``save_inference_model(export_for_deployment=False)``)."""
    desc = messages()["ProgramDesc"]()
    paddle2 = bool(getattr(program, "_follows_paddle2", False))
    for block in program.blocks:
        b = desc.blocks.add(idx=block.idx, parent_idx=block.parent_idx)
        for name in block.vars:
            if name != EMPTY:  # (Fluid's "no variable", which has no VarDesc)
                _var_desc(b.vars.add(), block.var(name))
        for n, op in enumerate(block.ops):
            at = f"{where}: block {block.idx} op {n}"
            _op_desc(b.ops.add(), op.type, op.inputs, op.outputs, op.attrs, op, at, paddle2)
    _versioned(desc, program)
    return desc.SerializeToString()

"""A ProgramDesc Fluid wrote (protobuf: pe_cli/base/fluid_proto.py) into a pe Program, two ways:

- as a model to run (``loaded=True``: ``load_inference_model``, pe_cli/io/fluid_model.py): the ``feed`` and
  ``fetch`` ops Fluid adds give the feed names (by their ``col``) and the fetch targets; they and their
  holder variables are left out, as Fluid's loader leaves them to the executor; every variable stops the
  gradient and the program is a test program;
- as the program itself (``loaded=False``: ``Program.parse_from_string``, Fluid's): every op, feed and
  fetch included, and every variable, as Fluid's ``_sync_with_cpp`` makes them.

Either way, an attribute that pe's op does not declare is dropped: silently when it only steers a backend
pe does not have (MKL-DNN, cuDNN, int8 quantization scales, device placement, the op's call stack), with a
warning otherwise, as Fluid 1.8.5 ignores an attribute its op does not have (a later Paddle's save may hold
one); the quantization notes Fluid's slim passes put on ops are kept on them."""
import warnings
from numbers import Real

import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError
from ..base.fluid_proto import ATTR_FIELDS as _ATTR_FIELDS, DTYPE_ATTRS as _DTYPE_ATTRS, DTYPES
from ..base.limits import check_blocks, check_bytes, check_dims
from ..base.shapes import numel
from ..base.lod_tensor_file import data_type_code
from ..ops import registry

# Fluid's kEmptyVarName: the place of a gradient no one wants in a grad op's list of outputs
EMPTY = "@EMPTY@"
_HOLDERS = {9, 10}                    # VarType FEED_MINIBATCH, FETCH_LIST
# Fluid's VarType.Type -> pe's variable kinds (7, LOD_TENSOR, is pe's default)
_VAR_TYPES = {8: VarType.SELECTED_ROWS, 9: VarType.FEED_MINIBATCH, 10: VarType.FETCH_LIST, 11: VarType.STEP_SCOPES,
              12: VarType.LOD_RANK_TABLE, 13: VarType.LOD_TENSOR_ARRAY, 14: VarType.PLACE_LIST, 15: VarType.READER,
              17: VarType.RAW}
# attributes that only steer backends, placement or debugging (never the numbers on a CPU or GPU)
_BACKEND_ATTRS = {"op_callstack", "op_role", "op_role_var", "op_namescope", "op_device", "use_mkldnn",
                  "use_cudnn", "mkldnn_data_type", "use_quantizer", "x_data_format", "y_data_format",
                  "Scale_x", "Scale_y", "Scale_out", "scale_x", "scale_y", "scale_out", "force_fp32_output",
                  "workspace_size_MB", "exhaustive_search", "with_quant_attr", "is_test"}
# what Fluid's slim quantization passes note on the ops they quantize (for int8 engines; pe computes
# with the fake quantize ops the program holds): these names, and any with a dot (``<input>.min``);
# the op keeps them, as Fluid's does, so a model saved again still has them
_QUANT_INFO_ATTRS = {"quantization_type", "skip_quant", "activation_bits", "out_threshold", "out_min", "out_max",
                     "quantize_weight_bits"}
# attributes a later Fluid added whose value here means "as before" (no layout, no cast)
_NEUTRAL = {"data_format": ("AnyLayout",), "in_dtype": (-1,), "out_dtype": (-1,)}


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


def _quant_info(name):
    return name in _QUANT_INFO_ATTRS or "." in name or name.endswith("_quant_scale")


def _op_attrs(op, program, where, block_idx, loaded):
    """(the attributes pe's op declares, the quantization notes it keeps besides); Fluid's common ones (its
    role, name scope...) kept in a program read as itself."""
    declared = registry.get(op.type).attrs
    attrs, notes = {}, {}
    for attr in op.attrs:
        value = _attr_value(attr, program, where, block_idx)
        if attr.name not in declared:
            if not loaded and attr.name in registry.COMMON_ATTRS and attr.name != "op_callstack":
                attrs[attr.name] = value
                continue
            if _quant_info(attr.name):
                notes[attr.name] = value
            elif attr.name not in _BACKEND_ATTRS and value not in _NEUTRAL.get(attr.name, ()):
                warnings.warn(f"{where}: attribute {attr.name}={value!r} is not one of {op.type}'s in Fluid 1.8.5; "
                              f"ignored, as Fluid 1.8.5 ignores it (a model a later Paddle saved may mean more by it)",
                              stacklevel=2)
            continue
        if attr.name in _DTYPE_ATTRS and isinstance(value, int) and isinstance(declared[attr.name].default, (str, type(None))):
            if value not in DTYPES:      # Fluid stores a dtype as its VarType code; pe by name
                raise PeError(f"{where}: attribute {attr.name}={value} is not a data type pe has")
            value = DTYPES[value]
        _check_kind(attr.name, value, declared[attr.name].default, where)
        attrs[attr.name] = value
    return attrs, notes


def _kind(value):
    if isinstance(value, (list, tuple)):
        return "a list of text" if value and isinstance(value[0], str) else "a list"
    return "text" if isinstance(value, str) else "a number" if isinstance(value, Real) else None


def _check_kind(name, value, default, where):
    """An attribute stored as another kind of value than the op takes (text or a list where it takes a
    number, a number where it takes a list, text in a list of numbers) is a damaged model file: one line
    here, not a failure inside a kernel. Empty lists match any list."""
    want, got = _kind(default), _kind(value)
    if want is None or want == got or (want.startswith("a list") and got.startswith("a list")
                                       and not (default and value)):
        return
    raise PeError(f"{where}: attribute '{name}' holds {got} ({str(value)[:60]}), where the op takes "
                  f"{want} (like {default!r}), so the model file is damaged")


def _declare_vars(block, desc_block, feeds, where, loaded):
    seen = set()
    for v in desc_block.vars:
        at = f"{where}: block {block.idx} variable '{v.name}'"
        if v.name in seen:
            raise PeError(f"{at} is declared twice; a block declares each variable once, so the model file is "
                          f"damaged")
        seen.add(v.name)
        kind = v.type.type
        if kind in _HOLDERS:
            if not loaded:
                block.create_var(name=v.name, persistable=bool(v.persistable), type=_VAR_TYPES[kind])
            continue
        if kind == 8:                        # SELECTED_ROWS: a TensorDesc, no LoD
            tensor, lod_level = v.type.selected_rows, 0
        else:
            holder = v.type.lod_tensor if v.type.HasField("lod_tensor") else v.type.tensor_array
            tensor, lod_level = holder.tensor, holder.lod_level
        dtype = _dtype(tensor, at)
        persistable = bool(v.persistable) and kind == 7
        shape = [int(d) for d in tensor.dims]
        if persistable or v.name in feeds:
            check_dims(shape, at, known=persistable, itemsize=np.dtype(dtype).itemsize)
        block.create_var(name=v.name, shape=shape, dtype=dtype,
                         lod_level=lod_level, persistable=persistable if loaded else bool(v.persistable),
                         is_data=v.name in feeds, need_check_feed=bool(v.need_check_feed), stop_gradient=loaded,
                         type=_VAR_TYPES.get(kind))


def _dtype(tensor, where):
    """The dtype name of a variable's TensorDesc; a number Fluid's VarType does not define (99, which
    protobuf would read as bool) is refused by that number. A type pe has no array for (BF16, SIZE_T,
    or none written) reads as float32, as before."""
    code = data_type_code(tensor)
    if code is not None and not tensor.HasField("data_type"):
        known = ", ".join(f"{k} {v}" for k, v in sorted(DTYPES.items()))
        raise PeError(f"{where}: data type {code} is not one of Fluid's ({known}), so the model file is damaged")
    return DTYPES.get(code, "float32")


def _slots(desc_vars):
    """An OpDesc's inputs or outputs as pe's {slot: [names]}; a slot with no argument is left out."""
    return {v.parameter: list(v.arguments) for v in desc_vars if v.arguments}


def _feeds_and_fetches(desc, where):
    """({col: feed name}, {col: fetch name}) of block 0's feed and fetch ops; each kind's columns are
    0..n-1, each once (what save_inference_model writes)."""
    found = {"feed": {}, "fetch": {}}
    counts = {kind: sum(op.type == kind for op in desc.blocks[0].ops) for kind in found}
    for n, op in enumerate(desc.blocks[0].ops):
        if op.type not in found:
            continue
        at = f"{where}: block 0 op {n} ({op.type})"
        attr = next((a for a in op.attrs if a.name == "col"), None)
        if attr is not None and attr.type != 0:            # AttrType INT: a FLOAT's .i read 0
            raise PeError(f"{at}: attribute 'col' is of attribute type {attr.type}, not INT (0), so the model "
                          f"file is damaged")
        col = attr.i if attr is not None else 0
        args = (op.outputs if op.type == "feed" else op.inputs)
        if not args or not args[0].arguments:
            raise PeError(f"{at} names no variable, so the model file is damaged")
        count = counts[op.type]
        if not 0 <= col < count or col in found[op.type]:
            raise PeError(f"{at}: column {col} {'is taken twice' if col in found[op.type] else 'is out of range'}; "
                          f"the {count} {op.type} ops' columns are 0..{count - 1}, so the model file is damaged")
        found[op.type][col] = args[0].arguments[0]
    return found["feed"], found["fetch"]


def _check_text(desc, where):
    """Every name and text of ``desc`` is UTF-8: protobuf hands invalid bytes back as ``bytes``, which
    failed deep inside (a TypeError, a UnicodeDecodeError); one line naming the place instead."""
    def text(value, what):
        if isinstance(value, bytes):
            raise PeError(f"{where}: {what} {value[:60]!r} is not UTF-8 text, so the model file is damaged")
    for b in desc.blocks:
        for v in b.vars:
            text(v.name, f"block {b.idx}: a variable name")
        for n, op in enumerate(b.ops):
            at = f"block {b.idx} op {n}"
            text(op.type, f"{at}: the op type")
            for slot in list(op.inputs) + list(op.outputs):
                text(slot.parameter, f"{at}: a slot name")
                for arg in slot.arguments:
                    text(arg, f"{at}: slot {slot.parameter!r}: a variable name")
            for attr in op.attrs:
                text(attr.name, f"{at}: an attribute name")
                for s in [attr.s] + list(attr.strings):
                    text(s, f"{at}: attribute {attr.name!r}: its text")


def _check_sizes(program, where):
    """Every variable's known dims (as declared, or as an op's shape attribute made them: a
    fill_constant of [2^32, 2^32]) hold no more than pe's data limit, their product in Python's ints."""
    for block in program.blocks:
        for name, var in block.vars.items():
            dims = [d for d in (var.shape or ()) if isinstance(d, int) and d >= 0]
            if len(dims) > 1 or dims and dims[0] > 1 << 20:
                try:
                    itemsize = np.dtype(var.dtype).itemsize
                except TypeError:
                    itemsize = 1
                check_bytes(numel(dims) * itemsize, f"{where}: block {block.idx} variable '{name}': an array of "
                                                    f"dims {list(var.shape)}")


def read_program_desc(program, desc, where, loaded=True):
    """Fills the new, empty ``program`` with the ProgramDesc ``desc`` (its blocks, variables, ops); returns
    (feed names in ``col`` order, fetch names in ``col`` order). ``loaded``: as a model to run (above)."""
    check_blocks([b.parent_idx for b in desc.blocks], [len(b.ops) for b in desc.blocks], where,
                 sum(len(b.vars) for b in desc.blocks))
    _check_text(desc, where)
    feeds, fetches = _feeds_and_fetches(desc, where)
    for i, b in enumerate(desc.blocks):
        if b.idx != i:
            raise PeError(f"{where}: block {b.idx} is stored at position {i}")
        if i:
            program._create_block(b.parent_idx)
        _declare_vars(program.blocks[i], b, set(feeds.values()) if loaded else set(), where, loaded)
    program.current_block_idx = 0
    for i in reversed(range(len(desc.blocks))):        # nested blocks first: their ops' variables exist
        block = program.blocks[i]
        for n, op in enumerate(desc.blocks[i].ops):
            if loaded and op.type in ("feed", "fetch"):
                continue
            at = f"{where}: block {i} op {n} ({op.type})"
            if op.type not in registry.all_op_types():
                raise PeError(f"{at}: pe has no op '{op.type}', so it cannot run this Fluid model")
            attrs, notes = _op_attrs(op, program, at, i, loaded)
            if any(EMPTY in v.arguments for v in list(op.inputs) + list(op.outputs)) and not block.has_var(EMPTY):
                block.create_var(name=EMPTY)      # (Fluid's "no variable" in a list: a scratch pe's kernels write)
            try:
                block.append_op(op.type, _slots(op.inputs), _slots(op.outputs), attrs).attrs.update(notes)
            except PeError as e:
                raise PeError(f"{at}: {e}") from None
    _check_sizes(program, where)
    if loaded:
        program._is_test = True
    return [feeds[c] for c in sorted(feeds)], [fetches[c] for c in sorted(fetches)]

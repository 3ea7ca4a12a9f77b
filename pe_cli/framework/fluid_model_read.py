"""A ProgramDesc Fluid wrote (protobuf: pe_cli/base/fluid_proto.py) into a pe Program, two ways:

- as a model to run (``loaded=True``: ``load_inference_model``, pe_cli/io/fluid_model.py): the ``feed`` and
  ``fetch`` ops Fluid adds give the feed names (by their ``col``) and the fetch targets; they and their
  holder variables are left out, as Fluid's loader leaves them to the executor; every variable stops the
  gradient and the program is a test program;
- as the program itself (``loaded=False``: ``Program.parse_from_string``, Fluid's): every op, feed and
  fetch included, and every variable, as Fluid's ``_sync_with_cpp`` makes them.

Either way, no attribute is ignored (docs/COMPAT.md, "Every attribute"): one the op does not declare
(neither Fluid 1.8.5 nor Paddle 2.6.2 has it) is refused in one line naming the file, block, op,
attribute and value (registry.refuse_undeclared), but for what only steers a backend pe does not have
(MKL-DNN, cuDNN, device placement, the op's call stack), which is dropped, and the quantization notes
Fluid's slim passes put on ops, which are kept on them; one pe declares but does not compute with is
refused when its value is not Paddle's default (registry.refuse_unsupported); an attribute of a type
framework.proto does not define, or given by a variable (Paddle 2.x's VAR / VARS), is refused too."""

from numbers import Real

import numpy as np

from ..base.dtypes import VarType
from ..base.errors import PeError, UnknownOpError
from ..base.fluid_proto import (
    ATTR_FIELDS as _ATTR_FIELDS,
    ATTR_TYPE_NAMES,
    DTYPE_ATTRS as _DTYPE_ATTRS,
    DTYPES,
    unknown_enum,
)
from ..base.limits import check_blocks, check_bytes, check_dims
from ..base.dims import numel
from ..base.lod_tensor_file import data_type_code
from ..ops import registry

# Fluid's kEmptyVarName: the place of a gradient no one wants in a grad op's list of outputs
EMPTY = "@EMPTY@"
_HOLDERS = {9, 10}  # VarType FEED_MINIBATCH, FETCH_LIST
# Fluid's VarType.Type -> pe's variable kinds (7, LOD_TENSOR, is pe's default)
_VAR_TYPES = {
    8: VarType.SELECTED_ROWS,
    9: VarType.FEED_MINIBATCH,
    10: VarType.FETCH_LIST,
    11: VarType.STEP_SCOPES,
    12: VarType.LOD_RANK_TABLE,
    13: VarType.LOD_TENSOR_ARRAY,
    14: VarType.PLACE_LIST,
    15: VarType.READER,
    17: VarType.RAW,
}
_BLOCK_KINDS = (8, 10)
# the variable types Paddle 2.x added (framework.proto's VarType.Type), which pe has no values for
_PADDLE2_VAR_TYPES = {
    25: "Paddle 2.x's STRING",
    26: "Paddle 2.x's STRINGS",
    27: "Paddle 2.x's VOCAB",
    28: "Paddle 2.x's FEED_LIST",
    29: "Paddle 2.x's PSTRING",
    30: "Paddle 2.x's SPARSE_COO",
    31: "Paddle 2.x's SPARSE_CSR",
}


_VAR_KINDS = (13, 14)  # Paddle 2.x's VAR, VARS: an attribute a variable gives
_SCALAR_KINDS = (16, 17)


# framework.proto's Scalar.Type (Paddle 2.6.2): the kinds a Scalar attribute holds, and the field each is in
_SCALAR_TYPES = {
    1: ("BOOLEAN", bool, "b"),
    2: ("LONG", int, "i"),
    3: ("FLOAT64", float, "r"),
    4: ("COMPLEX128", None, "c"),
}


def _scalar(s, where, name, present=True):
    """A Paddle 2.x Scalar message's value (BOOLEAN, LONG, FLOAT64, COMPLEX128, every kind framework.proto
    of Paddle 2.6.2 defines). A Scalar without a type (protobuf keeps a type number the schema lacks as an
    unknown field, and the enum then reads as BOOLEAN: 0), or an attribute with no Scalar at all, is
    refused naming the number, never read as False."""
    if not present or not s.HasField("type") or s.type not in _SCALAR_TYPES:
        number = unknown_enum(s, 1) if present else None
        kinds = ", ".join(f"{k} {v[0]}" for k, v in _SCALAR_TYPES.items())
        what = (
            "no Scalar value"
            if not present
            else "a Scalar of no type"
            if number is None
            else f"a Scalar of type {number}"
        )
        raise PeError(
            f"{where}: attribute '{name}' holds {what}, which framework.proto (Paddle 2.6.2: {kinds}) does "
            f"not define, so pe cannot read its value"
        )
    kind, convert, field = _SCALAR_TYPES[s.type]
    if convert is None:
        return complex(s.c.r, s.c.i)
    return convert(getattr(s, field))


def _attr_value(attr, program, where, block_idx):
    if not attr.HasField("type") or not 0 <= attr.type < len(_ATTR_FIELDS):
        try:  # (protobuf keeps a type number framework.proto lacks as an unknown field: no type at all)
            number = attr.type if attr.HasField("type") else unknown_enum(attr, 2)
            registry.refuse_undeclared(None, attr.name, None, kind="unknown" if number is None else number)
        except PeError as e:
            raise PeError(f"{where}: {e}") from None
    if attr.type in _VAR_KINDS:
        names = [attr.var_name] if attr.type == 13 else list(attr.vars_name)
        raise PeError(
            f"{where}: attribute '{attr.name}' is given by the variable(s) {names} (framework.proto's "
            f"{ATTR_TYPE_NAMES[attr.type]}), which pe does not implement: pe takes it only as a value"
        )
    value = getattr(attr, _ATTR_FIELDS[attr.type])
    if attr.type in _SCALAR_KINDS:
        value = (
            _scalar(value, where, attr.name, attr.HasField("scalar"))
            if attr.type == 16
            else [_scalar(s, where, attr.name) for s in value]
        )
    elif not isinstance(value, (int, float, str, bool)):
        value = list(value)  # a repeated field
    if attr.type in _BLOCK_KINDS:
        for idx in value if isinstance(value, list) else [value]:
            if not 0 < idx < len(program.blocks):
                raise PeError(f"{where}: attribute '{attr.name}' names block {idx}, which the model does not have")
            if idx <= block_idx:
                raise PeError(
                    f"{where}: attribute '{attr.name}' names block {idx}, which is not a later block than "
                    f"the op's own ({block_idx}): the op would run itself; the model file is damaged"
                )
    return value


def _placed(error, where):
    """``error`` (a PeError) with the file, block and op in front, of its own class where it can be."""
    try:
        return type(error)(f"{where}: {error}")
    except TypeError:
        return PeError(f"{where}: {error}")


def _op_attrs(op, program, where, block_idx, loaded):
    """(the attributes pe's op declares, the quantization notes it keeps besides); Fluid's common ones (its
    role, name scope...) kept in a program read as itself. An attribute the op does not declare is
    refused in one line (registry.refuse_undeclared), but for the notes any op may carry."""
    declared = registry.get(op.type).attrs
    attrs, notes = {}, {}
    for attr in op.attrs:
        value = _attr_value(attr, program, where, block_idx)
        if attr.name not in declared:
            if not loaded and attr.name in registry.COMMON_ATTRS and attr.name != "op_callstack":
                attrs[attr.name] = value
                continue
            try:
                kind = registry.refuse_undeclared(op.type, attr.name, value)
            except PeError as e:
                raise _placed(e, where) from None
            if kind == "quant":
                notes[attr.name] = value
            continue
        if (
            attr.name in _DTYPE_ATTRS
            and isinstance(value, int)
            and isinstance(declared[attr.name].default, (str, type(None)))
        ):
            if value not in DTYPES:  # Fluid stores a dtype as its VarType code; pe by name
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
    if (
        want is None
        or want == got
        or (want.startswith("a list") and got.startswith("a list") and not (default and value))
    ):
        return
    raise PeError(
        f"{where}: attribute '{name}' holds {got} ({str(value)[:60]}), where the op takes "
        f"{want} (like {default!r}), so the model file is damaged"
    )


def _declare_vars(block, desc_block, feeds, where, loaded):
    seen = set()
    for v in desc_block.vars:
        at = f"{where}: block {block.idx} variable '{v.name}'"
        if v.name in seen:
            raise PeError(f"{at} is declared twice; a block declares each variable once, so the model file is damaged")
        seen.add(v.name)
        kind = v.type.type
        if not v.type.HasField("type") or kind not in _VAR_TYPES and kind != 7:
            what = (
                _PADDLE2_VAR_TYPES.get(kind, "one pe does not have")
                if v.type.HasField("type")
                else "a number framework.proto does not define"
            )
            raise PeError(
                f"{at} is of variable type {kind if v.type.HasField('type') else '?'} ({what}), so pe "
                f"cannot run this model"
            )
        if kind in _HOLDERS:
            if not loaded:
                block.create_var(name=v.name, persistable=bool(v.persistable), type=_VAR_TYPES[kind])
            continue
        if kind == 8:  # SELECTED_ROWS: a TensorDesc, no LoD
            tensor, lod_level = v.type.selected_rows, 0
        else:
            holder = v.type.lod_tensor if v.type.HasField("lod_tensor") else v.type.tensor_array
            tensor, lod_level = holder.tensor, holder.lod_level
        dtype = _dtype(tensor, at)
        persistable = bool(v.persistable) and kind == 7
        shape = [int(d) for d in tensor.dims]
        if persistable or v.name in feeds:
            check_dims(shape, at, known=persistable, itemsize=np.dtype(dtype).itemsize)
        block.create_var(
            name=v.name,
            shape=shape,
            dtype=dtype,
            lod_level=lod_level,
            persistable=persistable if loaded else bool(v.persistable),
            is_data=v.name in feeds,
            need_check_feed=bool(v.need_check_feed),
            stop_gradient=loaded,
            type=_VAR_TYPES.get(kind),
        )


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
        if attr is not None and attr.type != 0:  # AttrType INT: a FLOAT's .i read 0
            raise PeError(
                f"{at}: attribute 'col' is of attribute type {attr.type}, not INT (0), so the model file is damaged"
            )
        col = attr.i if attr is not None else 0
        args = op.outputs if op.type == "feed" else op.inputs
        if not args or not args[0].arguments:
            raise PeError(f"{at} names no variable, so the model file is damaged")
        count = counts[op.type]
        if not 0 <= col < count or col in found[op.type]:
            raise PeError(
                f"{at}: column {col} {'is taken twice' if col in found[op.type] else 'is out of range'}; "
                f"the {count} {op.type} ops' columns are 0..{count - 1}, so the model file is damaged"
            )
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
                check_bytes(
                    numel(dims) * itemsize,
                    f"{where}: block {block.idx} variable '{name}': an array of dims {list(var.shape)}",
                )


# the ProgramDesc version Paddle 2.0 writes first (paddle/fluid/framework/version.h: MAJOR * 1e6 + MINOR * 1e3
# + PATCH; Fluid 1.8.5 writes 1008005, and so does pe, Paddle 2.6.2 2006002)
PADDLE2_PROGRAM_VERSION = 2000000


def saved_by_paddle2(desc):
    """Whether Paddle 2.x saved the ProgramDesc: its version is 2.0's or later, or it holds an
    op_version_map (which Fluid 1.8 did not write)."""
    return desc.version.version >= PADDLE2_PROGRAM_VERSION or len(desc.op_version_map.pair) > 0


def _op_versions(desc, where):
    """The ProgramDesc's op_version_map as {op type: version} (None when it has none), each op type the
    program holds checked against the version pe implements (registry.op_version: Paddle 2.6.2's): a later
    one is refused in one line naming the op, as pe would run it with an older meaning than its writer's.
    The map of Paddle lists every op type it has versions of; those the program does not hold are not
    read."""
    versions = {pair.op_name: pair.op_version.version for pair in desc.op_version_map.pair}
    for i, b in enumerate(desc.blocks):
        for n, op in enumerate(b.ops if versions else ()):
            have = versions.get(op.type, 0)
            if have > registry.op_version(op.type) and registry.registered(op.type):
                raise PeError(
                    f"{where}: block {i} op {n} ({op.type}): the program's op_version_map gives {op.type} "
                    f"version {have}, newer than the version pe implements ({registry.op_version(op.type)}, "
                    f"Paddle 2.6.2's); pe refuses it rather than run the op with an older meaning"
                )
    return versions or None


def read_program_desc(program, desc, where, loaded=True):
    """Fills the new, empty ``program`` with the ProgramDesc ``desc`` (its blocks, variables, ops); returns
    (feed names in ``col`` order, fetch names in ``col`` order). ``loaded``: as a model to run (above)."""
    check_blocks(
        [b.parent_idx for b in desc.blocks],
        [len(b.ops) for b in desc.blocks],
        where,
        sum(len(b.vars) for b in desc.blocks),
    )
    _check_text(desc, where)
    if saved_by_paddle2(desc):
        program._follows_paddle2 = True  # its ops compute as Paddle 2.x's (program_release.mark_paddle2)
        program._op_versions = _op_versions(desc, where)
    feeds, fetches = _feeds_and_fetches(desc, where)
    for i, b in enumerate(desc.blocks):
        if b.idx != i:
            raise PeError(f"{where}: block {b.idx} is stored at position {i}")
        if i:
            program._create_block(b.parent_idx)
        _declare_vars(program.blocks[i], b, set(feeds.values()) if loaded else set(), where, loaded)
    program.current_block_idx = 0
    for i in reversed(range(len(desc.blocks))):  # nested blocks first: their ops' variables exist
        block = program.blocks[i]
        for n, op in enumerate(desc.blocks[i].ops):
            if loaded and op.type in ("feed", "fetch"):
                continue
            at = f"{where}: block {i} op {n} ({op.type})"
            if not registry.registered(op.type):
                raise UnknownOpError(f"{at}: pe has no op '{op.type}', so it cannot run this model")
            attrs, notes = _op_attrs(op, program, at, i, loaded)
            if any(EMPTY in v.arguments for v in list(op.inputs) + list(op.outputs)) and not block.has_var(EMPTY):
                block.create_var(name=EMPTY)  # (Fluid's "no variable" in a list: a scratch pe's kernels write)
            try:
                block.append_op(op.type, _slots(op.inputs), _slots(op.outputs), attrs).attrs.update(notes)
            except PeError as e:
                raise _placed(e, at) from None
    _check_sizes(program, where)
    if loaded:
        program._is_test = True
    return [feeds[c] for c in sorted(feeds)], [fetches[c] for c in sorted(fetches)]

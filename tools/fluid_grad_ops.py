"""Records, with the Fluid 1.8.5 oracle, the grad ops Fluid's own gradient maker makes for each forward op
type it registers (``core.get_grad_op_desc``): each grad op's type, its input and output slots with what
each holds, and its attributes (name and type). tests/ops/test_fluid_grad_ops.py makes pe's grad ops of
the same forward ops and compares: a training program pe saves holds them, and Fluid runs it with its own
grad kernels, which read Fluid's slots and attributes.

    .venv/bin/python tools/fluid_grad_ops.py layouts /tmp/layouts.json     # pe: the op cases' layouts
    /work/fluid185/bin/python tools/fluid_grad_ops.py /tmp/layouts.json    # Fluid: their grad ops

A forward op is made as an op case of tests/ops gives it (the case giving the most slots of each op
type: its slots, with as many variables, and its attributes, the others at Fluid's defaults), since a
gradient maker looks at which slots are given and at attributes (sequence_pool's MaxIndex for MAX); an op
type without a case has every slot given one variable. What a slot holds is written by the forward slot
it names: ``in.X`` (the forward input slot X), ``out.Out``, ``in.X@GRAD`` (its gradient). An op type whose
attribute holds a block (while, conditional_block, recurrent) is left out: its grad op depends on its
block (tests/io/test_fluid_saved_models.py compares those in whole training programs)."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "fluid-1.8.5-grad-ops.json")

# values for the attributes an op requires (no default), by attribute name, else by type
REQUIRED = {"in_dtype": 5, "out_dtype": 5, "dtype": 5, "functor_list": ["elementwise_add", "relu"]}
BY_TYPE = {
    "INT": 1,
    "LONG": 1,
    "FLOAT": 1.0,
    "STRING": "",
    "BOOLEAN": False,
    "INTS": [1],
    "LONGS": [1],
    "FLOATS": [1.0],
    "STRINGS": [],
    "BOOLEANS": [False],
}
_DTYPES = {
    "bool": 0,
    "int16": 1,
    "int32": 2,
    "int64": 3,
    "float16": 4,
    "float32": 5,
    "float64": 6,
    "uint8": 20,
    "int8": 21,
}


# -- pe's side: the layouts of the op cases ----------------------------------------------------------


def case_layouts(out):
    """{op type: {inputs: {slot: n}, outputs: {slot: n}, attrs: {name: value}}} of the fullest op case of
    each op type Fluid 1.8.5 registers (tests/data/fluid-1.8.5-ops.json), its attributes as Fluid holds them."""
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    from tests.ops.test_fluid_grad_ops import fullest_cases, forward_op

    manifest = json.load(open(os.path.join(ROOT, "tests", "data", "fluid-1.8.5-ops.json")))["ops"]
    layouts = {}
    for op_type, case in sorted(fullest_cases(manifest).items()):
        op = forward_op(case)
        declared = {a[0] for a in manifest[op_type]["attrs"]}
        attrs = {
            k: _DTYPES.get(v, v) if k.endswith("dtype") else v
            for k, v in op.attrs.items()
            if k in declared and v is not None and not k.startswith("op_")
        }
        layouts[op_type] = {
            "inputs": {s: len(n) for s, n in op.inputs.items() if n},
            "outputs": {s: len(n) for s, n in op.outputs.items() if n},
            "attrs": attrs,
        }
    with open(out, "w") as f:
        json.dump(layouts, f, indent=1, sort_keys=True)
    print(f"{len(layouts)} op cases' layouts")


# -- Fluid's side -----------------------------------------------------------------------------------


def _attr_types(core):
    """AttrType -> its name in framework.proto (the names tests/data/fluid-1.8.5-ops.json uses)."""
    proto_names = {"BOOL": "BOOLEAN", "BOOLS": "BOOLEANS"}
    return {getattr(core.AttrType, n): proto_names.get(n, n) for n in dir(core.AttrType) if n.isupper()}


def _names(kind, slot, n):
    return [f"{kind}.{slot}" + (f".{i}" if i else "") for i in range(n)]


def _forward_desc(block, proto, types, layout):
    desc = block.desc.append_op()
    desc.set_type(proto.type)
    given = layout or {"inputs": {s.name: 1 for s in proto.inputs}, "outputs": {s.name: 1 for s in proto.outputs}}
    for s in proto.inputs:  # (every slot set, a missing one empty, as Fluid's Operator sets them)
        desc.set_input(s.name, _names("in", s.name, given["inputs"].get(s.name, 0)))
    for s in proto.outputs:
        desc.set_output(s.name, _names("out", s.name, given["outputs"].get(s.name, 0)))
    for name, value in (layout or {}).get("attrs", {}).items():
        try:
            desc._set_attr(name, value)
        except Exception:  # a value Fluid's attribute type does not take: its default stays
            pass
    try:
        desc.check_attrs()
    except Exception:  # a required attribute: given a value of its type, then checked again
        for a in proto.attrs:
            if not desc.has_attr(a.name) and types.get(a.type) in BY_TYPE:
                desc._set_attr(a.name, REQUIRED.get(a.name, BY_TYPE[types[a.type]]))
        try:
            desc.check_attrs()
        except Exception:  # a value its check refuses (anchor_generator's 4 variances): as it is
            pass
    return desc


def _symbol(name, forward):
    """What ``name`` (an argument of a grad op) holds, by the slots of ``forward`` (its op): the names of
    a first-order grad op are already symbols (a duplicable slot's later variables, ``in.X.1``, are
    ``in.X``); a second-order one names the grad op's slots."""
    if forward is None:
        if not name.startswith(("in.", "out.")):
            return name
        base, _, grads = name.partition("@")
        return base.split(".")[0] + "." + base.split(".")[1] + ("@" + grads if grads else "")
    base, grads = name, ""
    while True:
        for kind, slots in (("in", forward["inputs"]), ("out", forward["outputs"])):
            for slot, args in slots.items():
                if base in args:
                    return f"{kind}.{slot}{grads}"
        if not base.endswith("@GRAD"):
            return name
        base, grads = base[:-5], "@GRAD" + grads


def _record(desc, types, fwd_values, forward=None):
    attrs = {}
    for name in sorted(desc.attr_names()):
        if name == "op_callstack":
            continue
        kind = types.get(desc.attr_type(name), str(desc.attr_type(name)))
        entry = [kind]
        value = desc.attr(name) if not kind.startswith("BLOCK") else None
        if name not in fwd_values or fwd_values[name] != value:
            entry.append(value)  # an attribute the grad maker sets itself
        attrs[name] = entry
    slots = [
        {s: sorted({_symbol(a, forward) for a in args(s) if a != "@EMPTY@"}) for s in sorted(names())}
        for names, args in ((desc.input_names, desc.input), (desc.output_names, desc.output))
    ]
    return {"type": desc.type(), "inputs": slots[0], "outputs": slots[1], "attrs": attrs}


def _grads(core, desc):
    """The grad op descs of ``desc``, or the error's first line."""
    try:
        return core.get_grad_op_desc(desc, set(), [])[0], None
    except Exception as e:  # no grad maker, or one that needs what a symbolic op lacks
        text = str(e)
        at = text.find("Error: ")
        return None, text[at + 7 :].split(" at (")[0].split("\n")[0][:200] if at >= 0 else type(e).__name__


def _values(desc, types):
    return {n: desc.attr(n) for n in desc.attr_names() if not types.get(desc.attr_type(n), "").startswith("BLOCK")}


def record(layouts_path, out):
    import paddle.fluid as fluid
    from paddle.fluid import core, framework

    layouts = json.load(open(layouts_path)) if layouts_path else {}
    types = _attr_types(core)
    protos = framework.OpProtoHolder.instance().op_proto_map
    block = fluid.Program().global_block()
    ops, none, second = {}, {}, {}
    for t in sorted(protos):
        proto = protos[t]
        if any(types.get(a.type, "").startswith("BLOCK") for a in proto.attrs):
            continue
        desc = _forward_desc(block, proto, types, layouts.get(t))
        grads, error = _grads(core, desc)
        if not grads:
            none[t] = error or "no grad ops"
            continue
        ops[t] = {
            "layout": "case" if t in layouts else "every slot",
            "grad_ops": [_record(g, types, _values(desc, types)) for g in grads],
        }
        for g in grads:
            if g.type() in second or g.type() in protos:
                continue
            gforward = {
                "inputs": {s: g.input(s) for s in g.input_names()},
                "outputs": {s: g.output(s) for s in g.output_names()},
            }
            grads2, _ = _grads(core, g)
            if grads2:
                second[g.type()] = [_record(g2, types, _values(g, types), gforward) for g2 in grads2]
    with open(out, "w") as f:
        json.dump(
            {
                "source": "paddlepaddle==1.8.5 CPU wheel (python3.8): core.get_grad_op_desc of each forward op "
                "type of core.get_all_op_protos(), made as pe's op case of it gives it (layout 'case') "
                "or with every slot given one variable (tools/fluid_grad_ops.py); 'second': the grad "
                "ops of those grad ops; 'none': the forward types without a grad op, and why",
                "ops": ops,
                "second": second,
                "none": none,
            },
            f,
            indent=None,
            sort_keys=True,
            separators=(",", ":"),
        )
        f.write("\n")
    print(f"{len(ops)} forward op types with grad ops, {len(second)} grad ops with their own, {len(none)} without")


if __name__ == "__main__":
    if sys.argv[1:2] == ["layouts"]:
        case_layouts(sys.argv[2])
    else:
        record(sys.argv[1] if len(sys.argv) > 1 else None, sys.argv[2] if len(sys.argv) > 2 else OUT)

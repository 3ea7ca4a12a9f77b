"""The joining ops' results for tools/op_case_bytes.py's ``joining`` family: concat, concat_grad, split, stack,
stack_grad, unstack, unstack_grad and sum called through their CPU kernels (``OpDef.kernel``) and through an
executor step run twice (its Meta kept), over dtypes, mixed dtypes, 0-D and empty values, strided inputs, each
axis (negative, out of range), equal and unequal parts, sum's variants (two, three to nine float arrays, ints,
bools, a smaller later input, row-sparse values, tensor arrays, a large array on the device's threads) and the
refusals. A list output's values are recorded one by one (``Out_0``, ``Out_1``, ...)."""

import zlib

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return (rng.uniform(-3, 3, size=shape) * 5).astype(dtype)


def _flat(outs):
    """{slot: array}, a list output's values as ``slot_i``."""
    flat = {}
    for slot, value in outs.items():
        if isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            flat.update({f"{slot}_{i}": v for i, v in enumerate(value)})
        else:
            flat[slot] = value
    return flat


def _run(results, record, direct, op, key, ins, attrs, ctx=None):
    """The op's kernel, and an executor step of it run twice (its Meta kept), on ``ins``."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: _flat(direct(opdef, dict(ins), attrs, ctx)))
    counts = getattr(ctx, "output_counts", None) or {}
    try:
        step = _step(op, ins, attrs, counts)
    except Exception:  # (its shape rule refused it where the op is appended: that refusal recorded)
        record(results, key + "|step", lambda: _step(op, ins, attrs, counts))
        return
    for run in (1, 2):
        record(results, f"{key}|step{run}", lambda: _flat(step(ins)))


def _step(op, ins, attrs, counts):
    """An executor step of ``op`` over ``ins``' slots: ``run(ins)`` -> its outputs (``counts``: slot -> how many
    variables a list output has, where the op's attributes do not say)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program
    from pe_cli.ops import registry

    names = {s: [f"{s}_{i}" for i in range(len(v))] if isinstance(v, list) else [s] for s, v in ins.items()}
    outputs, dup = {}, {s.name for s in registry.get(op).outputs if s.duplicable}
    for s in registry.get(op).outputs:
        count = counts.get(s.name) or _OUT_COUNTS[op](ins, attrs) if s.duplicable else 1
        outputs[s.name] = [f"o_{s.name}_{i}" for i in range(count)]
    block = Program().global_block()
    for n in [n for ns in {**names, **outputs}.values() for n in ns]:
        block.create_var(name=n)
    step = OpStep(block.append_op(op, names, outputs, attrs), CPUPlace())

    def run(ins):
        values = {}
        for slot, value in ins.items():
            values.update(zip(names[slot], value if isinstance(value, list) else [value]))
        values = Values(values)
        run_step(step, values)
        return {slot: [values[n] for n in ns] if slot in dup else values[ns[0]] for slot, ns in outputs.items()}

    return run


def _split_count(ins, attrs):
    return attrs["num"] or len(attrs["sections"])


_OUT_COUNTS = {
    "split": _split_count,
    "concat_grad": lambda ins, attrs: len(ins["X"]),
    "stack_grad": lambda ins, attrs: len(ins["X"]),
    "unstack": lambda ins, attrs: attrs["num"],
    "concat": None,
    "stack": None,
    "unstack_grad": None,
    "sum": None,
}


def joining(results, record, direct):
    _concats(results, record, direct)
    _splits(results, record, direct)
    _stacks(results, record, direct)
    _sums(results, record, direct)
    _unbinds(results, record, direct)


def _unbinds(results, record, direct):
    """unbind with one output per slice and with fewer (the first slices, as Fluid's kernel: ``output_counts``),
    0-D slices in a Paddle 2.x program, and unbind_leading_grad on each."""
    from pe_cli.kernels.context import KernelContext

    forms = [((2, 3, 4), 1, None), ((3, 4), 0, 2), ((3, 4), -1, 3), ((5,), 0, None), ((2, 6), 1, 4), ((0, 3), 1, None)]
    forms += [((4, 3, 2), 5, None)]
    for i, (shape, axis, k) in enumerate(forms):
        for dtype in _DTYPES:
            for zero_dim in (False, True):
                key = f"joining|unbind|{i}|{dtype}|{zero_dim}"
                x = _values(key, shape, dtype)
                n = shape[axis % len(shape)] if k is None else k
                ctx = KernelContext(output_counts={"Out": n}, zero_dim=zero_dim)
                attrs = _attrs("unbind", axis=axis)
                record(results, key, lambda: _flat(direct(_op("unbind"), {"X": x}, attrs, ctx)))
                if zero_dim:
                    continue
                _run(results, record, direct, "unbind", key + "|run", {"X": x}, {"axis": axis}, ctx)
                try:
                    outs = direct(_op("unbind"), {"X": x}, attrs, ctx)["Out"]
                except Exception:
                    continue
                grads = [_values(f"{key}|d{j}", o.shape, dtype) for j, o in enumerate(outs)]
                gins = {"X": x, "Out@GRAD": grads}
                _run(results, record, direct, "unbind_leading_grad", key + "|grad", gins, {"axis": axis})


def _concats(results, record, direct):
    shapes = [
        ([(2, 3), (4, 3), (1, 3)], 0),
        ([(2, 3), (2, 5)], 1),
        ([(2, 3), (2, 5)], -1),
        ([(2, 1, 3), (2, 4, 3), (2, 0, 3)], -2),
        ([(3, 4)], 0),
        ([(0, 4), (0, 4)], 0),
        ([(64, 128)] * 8, 1),
        ([(3, 4), (3, 5)], 0),  # (other dims disagree)
        ([(3, 4), (3, 4)], 2),  # (axis out of range)
        ([(), ()], 0),  # (0-D)
    ]
    for i, (parts, axis) in enumerate(shapes):
        for dtype in _DTYPES:
            key = f"joining|concat|{i}|{dtype}"
            xs = [_values(f"{key}|{j}", s, dtype) for j, s in enumerate(parts)]
            _run(results, record, direct, "concat", key, {"X": xs}, {"axis": axis})
            try:
                out = np.concatenate(xs, axis=axis % max(xs[0].ndim, 1))
            except Exception:
                continue
            dout = _values(key + "|dout", out.shape, dtype)
            _run(results, record, direct, "concat_grad", key + "|grad", {"X": xs, "Out@GRAD": dout}, {"axis": axis})
            wide = _values(key + "|wide", out.shape[:-1] + (out.shape[-1] * 2,), dtype)[..., ::2]  # (strided)
            _run(
                results,
                record,
                direct,
                "concat_grad",
                key + "|grad_strided",
                {"X": xs, "Out@GRAD": wide},
                {"axis": axis},
            )
    xs = [
        _values("mixed|0", (2, 3), "float32"),
        _values("mixed|1", (2, 3), "int64"),
        _values("mixed|2", (1, 3), "bool"),
    ]
    _run(results, record, direct, "concat", "joining|concat|mixed", {"X": xs}, {"axis": 0})
    x = _values("strided", (4, 6), "float32")
    _run(results, record, direct, "concat", "joining|concat|strided", {"X": [x[:, ::2], x.T[:3]]}, {"axis": 0})


def _splits(results, record, direct):
    forms = [
        ((2, 6), {"num": 3, "axis": 1}),
        ((5, 2), {"sections": [2, -1, 2]}),
        ((2, 3, 4), {"sections": [1, 3], "axis": -1}),
        ((2, 6), {"num": 3, "sections": [3, 3, 3], "axis": 1}),
        ((4, 3), {"sections": [2, 0, 2]}),
        ((4, 3), {"num": 1}),
        ((0, 3), {"num": 2, "axis": 1}),  # (uneven: refused)
        ((4, 3), {"sections": [1, 1]}),  # (they do not sum to the dim)
        ((4, 3), {"num": 2, "axis": 5}),
        ((512, 128), {"num": 8, "axis": 1}),
    ]
    for i, (shape, attrs) in enumerate(forms):
        for dtype in _DTYPES:
            key = f"joining|split|{i}|{dtype}"
            attrs = dict({"num": 0, "sections": [], "axis": 0}, **attrs)
            x = _values(key, shape, dtype)
            _run(results, record, direct, "split", key, {"X": x}, attrs)
            if len(shape) == 2:
                _run(results, record, direct, "split", key + "|fortran", {"X": np.asfortranarray(x)}, attrs)


def _stacks(results, record, direct):
    forms = [([(2, 3)] * 3, 1), ([(3,)] * 2, -1), ([()] * 4, 0), ([(2, 3)] * 2, 0), ([(0, 3)] * 2, 2)]
    forms += [([(2, 3), (3, 2)], 0), ([(2, 3)] * 2, 3), ([(16, 32, 8)] * 6, -2)]
    for i, (shapes, axis) in enumerate(forms):
        for dtype in _DTYPES:
            key = f"joining|stack|{i}|{dtype}"
            xs = [_values(f"{key}|{j}", s, dtype) for j, s in enumerate(shapes)]
            _run(results, record, direct, "stack", key, {"X": xs}, {"axis": axis})
            try:
                y = np.stack(xs, axis=axis)
            except Exception:
                continue
            dy = _values(key + "|dy", y.shape, dtype)
            _run(results, record, direct, "stack_grad", key + "|grad", {"X": xs, "Y@GRAD": dy}, {"axis": axis})
            num = y.shape[axis]
            ux = {"X": dy}
            _run(results, record, direct, "unstack", key + "|unstack", ux, {"axis": axis, "num": num})
            parts = [np.take(dy, j, axis=axis) for j in range(num)]
            _run(
                results,
                record,
                direct,
                "unstack_grad",
                key + "|unstack_grad",
                {"Y@GRAD": parts},
                {"axis": axis, "num": num},
            )
            if dy.ndim >= 2:
                strided = np.asfortranarray(dy)
                _run(results, record, direct, "unstack", key + "|unstack_f", {"X": strided}, {"axis": axis, "num": num})
    xs = [_values("smixed|0", (2, 3), "float32"), _values("smixed|1", (2, 3), "int64")]
    _run(results, record, direct, "stack", "joining|stack|mixed", {"X": xs}, {"axis": 0})
    x = _values("ustack0d", (3,), "float32")
    from pe_cli.kernels.context import KernelContext

    for zero_dim in (False, True):
        key = f"joining|unstack|0d|{zero_dim}"
        ctx = KernelContext(zero_dim=zero_dim)
        record(results, key, lambda: _flat(direct(_op("unstack"), {"X": x}, _attrs("unstack", axis=0, num=3), ctx)))


def _op(name):
    from pe_cli.ops import registry

    return registry.get(name)


def _attrs(name, **given):
    return dict(_op(name).default_attrs(), **given)


def _sums(results, record, direct):
    from pe_cli.base.selected_rows import SelectedRows

    for dtype in _DTYPES:
        for n in range(1, 10):
            key = f"joining|sum|{dtype}|{n}"
            xs = [_values(f"{key}|{j}", (3, 5), dtype) for j in range(n)]
            _run(results, record, direct, "sum", key, {"X": xs}, {})
    forms = {
        "later_smaller": [((3, 5), "float32"), ((5,), "float32"), ((1, 5), "float32")],
        "first_smaller": [((5,), "float64"), ((3, 5), "float64")],
        "mixed_dtypes": [((3, 5), "float32"), ((3, 5), "float64"), ((3, 5), "float32")],
        "int_then_float": [((3, 5), "int64"), ((3, 5), "int64"), ((3, 5), "float64")],
        "float_ints": [((3, 5), "float32"), ((3, 5), "int32"), ((3, 5), "int32")],
        "mismatch": [((3, 5), "float32"), ((4, 5), "float32")],
        "zero_d": [((), "float32"), ((), "float32"), ((), "float32")],
        "empty": [((0, 5), "float32")] * 3,
        "large": [((1 << 18,), "float32")] * 2,
        "large_five": [((1 << 18,), "float64")] * 5,
    }
    for name, specs in forms.items():
        key = f"joining|sum|{name}"
        xs = [_values(f"{key}|{j}", s, d) for j, (s, d) in enumerate(specs)]
        _run(results, record, direct, "sum", key, {"X": xs}, {})
    strided = _values("sum|strided", (6, 10), "float32")
    _run(
        results, record, direct, "sum", "joining|sum|strided", {"X": [strided[:, ::2], strided[::2, 1::2].T.T[:3]]}, {}
    )
    rows = [np.array([0, 4, 0], np.int64), np.array([2, 4], np.int64)]
    sparse = [SelectedRows(r, _values(f"sr|{j}", (len(r), 3), "float32"), 7) for j, r in enumerate(rows)]
    sum_op = _op("sum")
    record(results, "joining|sum|sparse", lambda: direct(sum_op, {"X": sparse}, {}, None))
    dense = _values("sr|dense", (7, 3), "float32")
    record(results, "joining|sum|sparse_dense", lambda: direct(sum_op, {"X": [sparse[0], dense, sparse[1]]}, {}, None))
    record(results, "joining|sum|dense_sparse", lambda: direct(sum_op, {"X": [dense, sparse[0]]}, {}, None))
    arrays = [[_values(f"ta|{j}|{k}", (2, 3), "float32") for k in range(3)] for j in range(3)]
    record(results, "joining|sum|arrays", lambda: _arrays(direct(sum_op, {"X": arrays}, {}, None)))


def _arrays(outs):
    out = outs["Out"]
    return {f"Out_{i}": v for i, v in enumerate(out)} if isinstance(out, list) else outs

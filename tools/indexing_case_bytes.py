"""The results of the searching, sorting, rearranging and index-tensor ops for tools/op_case_bytes.py's ``searching``
family (where, where_index, argsort, unique, unique_with_counts, flip, reverse, roll, shape, size, take_along_axis,
put_along_axis, index_add, fill_diagonal_tensor, index_sample, multiplex, shard_index, kthvalue, mode, nanmedian,
bincount, searchsorted, histogram, repeat_interleave, broadcast_tensors, index_put, fold, frame, overlap_add): each
op and its grad op called through its CPU kernel (``OpDef.kernel``) over dtypes (float32/64, ints, bool where
taken), C-contiguous, Fortran-ordered and strided inputs, 0-D and empty values, ties and NaNs, every attribute's
forms and the contexts that change a result (a Paddle 2.x program's 0-D); each grad op on the forward's outputs
and a dOut of the output's dtype and of float64; and some as executor steps run on several values (a Meta kept)."""

import zlib

import numpy as np

_FLOATS = ("float32", "float64")
_NUMBERS = ("float32", "float64", "int32", "int64")


def _values(key, shape, dtype, ties=False):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    if dtype == "bool":
        return rng.uniform(size=shape) > 0.5
    x = rng.integers(-3, 4, size=shape).astype(np.float64) if ties else rng.uniform(-3, 3, size=shape)
    if ties and dtype[0] == "f" and x.size > 3:
        x.reshape(-1)[1::7] = np.nan
    return (x * (1 if ties else 5 if dtype[0] in "iu" else 1)).astype(dtype)


def _forms(key, shape, dtype, ties=False):
    x = _values(key, shape, dtype, ties)
    forms = {"c": x}
    if len(shape) >= 2:
        wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype, ties)
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _ctx(**facts):
    from pe_cli.kernels.context import KernelContext

    return KernelContext(**facts)


def _spread(outs):
    """The outputs with a list slot's values one by one (``slot.i``)."""
    spread = {}
    for slot, value in outs.items():
        if type(value) is list:
            spread.update({f"{slot}.{i}": v for i, v in enumerate(value)})
        else:
            spread[slot] = value
    return spread


def _run(results, record, direct, op, key, ins, attrs, ctx=None, grad_slots=None):
    """The op's kernel, and its grad op's on the forward's outputs and a dOut of each output it reads (in its
    dtype and float64)."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: _spread(direct(opdef, dict(ins), attrs, ctx)))
    if op + "_grad" not in registry.all_op_types():
        return
    try:
        outs = direct(opdef, dict(ins), attrs, ctx)
    except Exception:
        return
    grad = registry.get(op + "_grad")
    wanted = [s.name for s in grad.inputs if s.name.endswith("@GRAD")]
    for dtype in dict.fromkeys([np.asarray(outs[wanted[0][:-5]]).dtype.name, "float64"]):
        given = dict(ins, **outs)
        for g in wanted:
            out = outs[g[:-5]]
            if type(out) is list:
                given[g] = [_values(f"{key}|{g}|{i}|{dtype}", np.shape(o), dtype) for i, o in enumerate(out)]
            else:
                given[g] = _values(f"{key}|{g}|{dtype}", np.shape(out), dtype)
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        for drop in grad_slots or ((),):
            gi = {k: v for k, v in gins.items() if k not in drop}
            gkey = f"{key}|grad|{dtype}|{drop}"
            record(results, gkey, lambda: _spread(direct(grad, gi, attrs, ctx)))


def _where(results, record, direct):
    shapes = [((3, 4), (3, 4), (3, 4)), ((3, 1), (3, 4), (3, 4)), ((4,), (3, 4), (3, 4)), ((2, 3, 1), (2, 3, 5), (5,))]
    shapes += [((2, 3, 1), (1, 1, 5), (2, 3, 5)), ((0, 4), (0, 4), (0, 4)), ((), (), ()), ((2, 1), (2, 1), (2, 6))]
    shapes += [((5, 1, 1), (5, 2, 3), (1,)), ((1, 4), (3, 4), (3, 4))]
    for i, (cs, xs, ys) in enumerate(shapes):
        for dx, dy in (("float32", "float32"), ("float64", "float64"), ("int64", "int64"), ("float32", "float64")):
            cond = _values(f"where|c|{i}", cs, "bool")
            for form, x in _forms(f"where|x|{i}|{dx}", xs, dx).items():
                y = _values(f"where|y|{i}|{dy}", ys, dy)
                key = f"searching|where|{i}|{dx}|{dy}|{form}"
                _run(
                    results,
                    record,
                    direct,
                    "where",
                    key,
                    {"Condition": cond, "X": x, "Y": y},
                    {},
                    None,
                    [(), ("X",), ("Y",), ("X", "Y")],
                )
    for shape in ((3, 4), (0,), (5,), (2, 3, 4), (), (1, 1)):
        for dtype in ("bool", "float32", "int64"):
            for form, c in _forms(f"wi|{shape}|{dtype}", shape, dtype).items():
                _run(
                    results,
                    record,
                    direct,
                    "where_index",
                    f"searching|where_index|{shape}|{dtype}|{form}",
                    {"Condition": c},
                    {},
                )


def _sorting(results, record, direct):
    for dtype in _NUMBERS:
        for shape in ((20,), (3, 40), (17, 3), (2, 5, 18), (), (0, 4), (4, 0)):
            for ties in (False, True):
                for form, x in _forms(f"sort|{dtype}|{shape}|{ties}", shape, dtype, ties).items():
                    for axis in (-1, 0, 1):
                        for desc in (False, True):
                            key = f"searching|argsort|{dtype}|{shape}|{ties}|{form}|{axis}|{desc}"
                            _run(results, record, direct, "argsort", key, {"X": x}, {"axis": axis, "descending": desc})
                    for axis in (-1, 0):
                        for keep in (False, True):
                            for zero_dim in (False, True):
                                key = f"searching|{dtype}|{shape}|{ties}|{form}|{axis}|{keep}|{zero_dim}"
                                ctx = _ctx(zero_dim=zero_dim)
                                attrs = {"axis": axis, "keepdim": keep}
                                _run(results, record, direct, "mode", f"{key}|mode", {"X": x}, attrs, ctx)
                                for k in (1, 2, 3):
                                    _run(
                                        results,
                                        record,
                                        direct,
                                        "kthvalue",
                                        f"{key}|kth|{k}",
                                        {"X": x},
                                        dict(attrs, k=k),
                                        ctx,
                                    )
                                for axes in ([], [axis], [0, -1]):
                                    _run(
                                        results,
                                        record,
                                        direct,
                                        "nanmedian",
                                        f"{key}|med|{axes}",
                                        {"X": x},
                                        dict(attrs, axis=axes),
                                        ctx,
                                    )


def _unique(results, record, direct):
    for dtype in _NUMBERS:
        for shape in ((12,), (0,), (1,), (4, 3), (3, 2, 2), ()):
            for form, x in _forms(f"uniq|{dtype}|{shape}", shape, dtype, True).items():
                x = np.where(np.isnan(x), 1, x).astype(dtype) if dtype[0] == "f" else x
                for index in ("int32", "int64"):
                    base = f"searching|unique|{dtype}|{shape}|{form}|{index}"
                    _run(results, record, direct, "unique", base, {"X": x}, {"dtype": index})
                    _run(results, record, direct, "unique_with_counts", base + "|wc", {"X": x}, {"dtype": index})
                    for axis in ([], [0], [1], [-1]):
                        attrs = {"dtype": index, "is_sorted": True, "axis": axis}
                        _run(results, record, direct, "unique", f"{base}|sorted|{axis}", {"X": x}, attrs)


def _rearranging(results, record, direct):
    from pe_cli.base.selected_rows import SelectedRows

    for dtype in _NUMBERS + ("bool",):
        for shape in ((5,), (3, 4), (2, 3, 4), (), (0, 3), (1, 1, 1, 1, 1, 1, 1)):
            for form, x in _forms(f"re|{dtype}|{shape}", shape, dtype).items():
                base = f"searching|{dtype}|{shape}|{form}"
                for dims in ([], [0], [0, 1], [-1], [0, 0], [1, 2]):
                    _run(results, record, direct, "flip", f"{base}|flip|{dims}", {"X": x}, {"dims": dims})
                    if dims:
                        _run(results, record, direct, "reverse", f"{base}|rev|{dims}", {"X": x}, {"axis": dims})
                for shifts, dims in (
                    ([1], []),
                    ([-7], []),
                    ([2], [0]),
                    ([1, -1], [0, 1]),
                    ([], []),
                    ([1, 2], []),
                    ([3], [-1]),
                ):
                    attrs = {"shifts": shifts, "dims": dims}
                    _run(results, record, direct, "roll", f"{base}|roll|{shifts}|{dims}", {"X": x}, attrs)
                _run(results, record, direct, "shape", f"{base}|shape", {"Input": x}, {})
                for zero_dim in (False, True):
                    _run(
                        results,
                        record,
                        direct,
                        "size",
                        f"{base}|size|{zero_dim}",
                        {"Input": x},
                        {},
                        _ctx(zero_dim=zero_dim),
                    )
    rows = SelectedRows(np.array([0, 2]), _values("sr", (2, 3), "float32"), 5)
    _run(results, record, direct, "shape", "searching|shape|selected_rows", {"Input": rows}, {})


def _along_axis(results, record, direct):
    for dtype in _NUMBERS:
        for form, x in _forms(f"axis|{dtype}", (3, 4, 5), dtype).items():
            for axis in (0, 1, -1):
                for ishape in ((3, 4, 5), (2, 3, 4), (1, 1, 2)):
                    for idt in ("int32", "int64"):
                        n = x.shape[axis]
                        index = np.random.default_rng(len(ishape) + axis).integers(0, n, size=ishape).astype(idt)
                        base = f"searching|{dtype}|{form}|{axis}|{ishape}|{idt}"
                        ins = {"Input": x, "Index": index}
                        _run(results, record, direct, "take_along_axis", f"{base}|take", ins, {"Axis": axis})
                        for reduce in ("assign", "add", "mul", "multiply", "mean", "amin", "amax"):
                            for self_ in (True, False):
                                for vs in (ishape, ()):
                                    value = _values(f"{base}|v|{vs}", vs, dtype)
                                    attrs = {"Axis": axis, "Reduce": reduce, "Include_self": self_}
                                    key = f"{base}|put|{reduce}|{self_}|{vs}"
                                    _run(results, record, direct, "put_along_axis", key, dict(ins, Value=value), attrs)
            bad = np.full((3, 4, 5), 7, np.int64)
            _run(
                results,
                record,
                direct,
                "take_along_axis",
                f"searching|{dtype}|{form}|bad",
                {"Input": x, "Index": bad},
                {"Axis": 1},
            )
            for axis in (0, 1, -1):
                for index in (np.array([0, 2, 0]), np.array([1]), np.array([], np.int64), np.array([9])):
                    shape = list(x.shape)
                    shape[axis] = len(index)
                    value = _values(f"ia|{dtype}|{axis}|{len(index)}", shape, dtype)
                    ins = {"X": x, "Index": index.astype("int32"), "AddValue": value}
                    _run(
                        results,
                        record,
                        direct,
                        "index_add",
                        f"searching|{dtype}|{form}|ia|{axis}|{index}",
                        ins,
                        {"axis": axis},
                    )
            for offset, d1, d2 in ((0, 0, 1), (1, 0, 1), (-2, 1, 2), (2, 2, 0), (9, 0, 1)):
                n = max(0, min(x.shape[d1], x.shape[d1] + offset, x.shape[d2], x.shape[d2] - offset))
                rest = [s for i, s in enumerate(x.shape) if i not in (d1, d2)]
                y = _values(f"fd|{offset}", rest + [n], dtype)
                attrs = {"offset": offset, "dim1": d1, "dim2": d2}
                _run(
                    results,
                    record,
                    direct,
                    "fill_diagonal_tensor",
                    f"searching|{dtype}|{form}|fd|{attrs}",
                    {"X": x, "Y": y},
                    attrs,
                )


def _gather_scatter(results, record, direct):
    for dtype in _NUMBERS:
        for form, x in _forms(f"gs|{dtype}", (4, 6), dtype).items():
            for ishape in ((4, 3), (4, 0), (1, 2), (4, 8)):
                for idt in ("int32", "int64"):
                    index = np.random.default_rng(ishape[1]).integers(0, 6, size=ishape).astype(idt)
                    key = f"searching|{dtype}|{form}|sample|{ishape}|{idt}"
                    _run(results, record, direct, "index_sample", key, {"X": x, "Index": index}, {})
            _run(
                results,
                record,
                direct,
                "index_sample",
                f"searching|{dtype}|{form}|sample|bad",
                {"X": x, "Index": np.full((4, 2), 6)},
                {},
            )
            xs = [x, _values(f"mx|{dtype}", (4, 6), dtype), _values(f"my|{dtype}", (4, 6), dtype)]
            for ids in ([[1], [0], [2], [1]], [[0], [0]], [[3], [0], [0], [0]]):
                ins = {"Ids": np.array(ids, np.int64), "X": xs}
                _run(
                    results,
                    record,
                    direct,
                    "multiplex",
                    f"searching|{dtype}|{form}|mx|{ids}",
                    ins,
                    {},
                    _ctx(output_counts={"X@GRAD": 3}),
                )
    for dtype in ("int32", "int64"):
        for shape in ((6,), (3, 2), (0,)):
            x = np.random.default_rng(len(shape)).integers(0, 20, size=shape).astype(dtype)
            for n, shards, shard, ignore in (
                (20, 2, 0, -1),
                (20, 3, 2, -2),
                (20, 0, 0, -1),
                (10, 2, 1, -1),
                (20, 2, 5, -1),
            ):
                attrs = {"index_num": n, "nshards": shards, "shard_id": shard, "ignore_value": ignore}
                _run(
                    results, record, direct, "shard_index", f"searching|shard|{dtype}|{shape}|{attrs}", {"X": x}, attrs
                )
    for dtype in _NUMBERS:
        for form, x in _forms(f"ip|{dtype}", (4, 5), dtype).items():
            mask = _values(f"ipm|{dtype}", (4, 5), "bool")
            for idx, vs in (
                ([np.array([0, 2, 0]), np.array([1, 1, 1])], (3,)),
                ([np.array([1, 3])], (5,)),
                ([mask], ()),
                ([np.array([0, 1])], (2, 5)),
            ):
                value = _values(f"ipv|{dtype}|{vs}", vs, dtype)
                for acc in (False, True):
                    key = f"searching|ip|{dtype}|{form}|{len(idx)}|{vs}|{acc}"
                    _run(
                        results,
                        record,
                        direct,
                        "index_put",
                        key,
                        {"x": x, "indices": idx, "value": value},
                        {"accumulate": acc},
                    )


def _bucketing(results, record, direct):
    for dtype in _NUMBERS:
        for shape in ((10,), (0,), (3, 4), ()):
            x = np.abs(_values(f"bc|{dtype}|{shape}", shape, "int64")).astype(dtype) if dtype[0] == "i" else None
            for form, v in _forms(f"hist|{dtype}|{shape}", shape, dtype).items():
                for bins, lo, hi in ((5, 0, 0), (4, -1, 1), (3, 2, 2), (1, 0, 0)):
                    attrs = {"bins": bins, "min": lo, "max": hi}
                    _run(
                        results,
                        record,
                        direct,
                        "histogram",
                        f"searching|hist|{dtype}|{shape}|{form}|{attrs}",
                        {"X": v},
                        attrs,
                    )
                if x is not None and len(shape) <= 1:
                    for w in (None, "float32", "float64", "int64"):
                        ins = {"X": x} if w is None else {"X": x, "Weights": _values(f"bw|{shape}|{w}", shape, w)}
                        for minlength in (0, 12):
                            _run(
                                results,
                                record,
                                direct,
                                "bincount",
                                f"searching|bc|{dtype}|{shape}|{w}|{minlength}",
                                ins,
                                {"minlength": minlength},
                            )
        seq = np.sort(_values(f"ss|{dtype}", (3, 6), dtype, True), axis=-1)
        for form, v in _forms(f"ssv|{dtype}", (3, 4), dtype, True).items():
            for right in (False, True):
                for out32 in (False, True):
                    attrs = {"right": right, "out_int32": out32}
                    for s in (seq, seq[0]):
                        key = f"searching|ss|{dtype}|{form}|{s.ndim}|{right}|{out32}"
                        _run(results, record, direct, "searchsorted", key, {"SortedSequence": s, "Values": v}, attrs)
        for shape in ((3, 4), (5,), (), (0, 2)):
            for form, x in _forms(f"ri|{dtype}|{shape}", shape, dtype).items():
                for dim in (0, -1):
                    for repeats in (0, 1, 3):
                        attrs = {"Repeats": repeats, "dim": dim}
                        _run(
                            results,
                            record,
                            direct,
                            "repeat_interleave",
                            f"searching|ri|{dtype}|{shape}|{form}|{dim}|{repeats}",
                            {"X": x},
                            attrs,
                        )
                    n = (x.shape or (1,))[dim]
                    for rdt in ("int32", "int64"):
                        r = np.arange(n).astype(rdt) % 3
                        ins = {"X": x, "RepeatsTensor": r}
                        _run(
                            results,
                            record,
                            direct,
                            "repeat_interleave",
                            f"searching|ri|{dtype}|{shape}|{form}|{dim}|t|{rdt}",
                            ins,
                            {"dim": dim},
                        )


def _shaping(results, record, direct):
    for dtype in _NUMBERS + ("bool",):
        for shapes in (((3, 1), (1, 4)), ((2, 3, 4), (4,), (3, 1)), ((0, 2), (1, 2)), ((), (2,)), ((5,),)):
            xs = [_values(f"bt|{dtype}|{i}|{s}", s, dtype) for i, s in enumerate(shapes)]
            if len(shapes[0]) >= 2:
                xs[0] = np.asfortranarray(xs[0])
            _run(results, record, direct, "broadcast_tensors", f"searching|bt|{dtype}|{shapes}", {"X": xs}, {})
    for dtype in _FLOATS:
        for n, length, hop in ((10, 4, 2), (9, 3, 3), (8, 8, 1), (7, 2, 5)):
            for lead in ((), (2,), (2, 3)):
                for axis in (0, -1):
                    shape = (n,) + lead if axis == 0 else lead + (n,)
                    for form, x in _forms(f"fr|{dtype}|{shape}", shape, dtype).items():
                        attrs = {"frame_length": length, "hop_length": hop, "axis": axis}
                        _run(
                            results,
                            record,
                            direct,
                            "frame",
                            f"searching|frame|{dtype}|{shape}|{form}|{attrs}",
                            {"X": x},
                            attrs,
                        )
                    frames = 1 + (n - length) // hop
                    fshape = (frames, length) + lead if axis == 0 else lead + (length, frames)
                    for form, x in _forms(f"oa|{dtype}|{fshape}", fshape, dtype).items():
                        attrs = {"hop_length": hop, "axis": axis}
                        _run(
                            results,
                            record,
                            direct,
                            "overlap_add",
                            f"searching|oa|{dtype}|{fshape}|{form}|{attrs}",
                            {"X": x},
                            attrs,
                        )
        for sizes, k, s, p, d in (
            ([4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
            ([6, 6], [3, 2], [2, 1], [1, 0, 1, 0], [1, 2]),
        ):
            attrs = {"output_sizes": sizes, "kernel_sizes": k, "strides": s, "paddings": p, "dilations": d}
            pp = p * 2 if len(p) == 2 else p
            bh = (sizes[0] + pp[0] + pp[2] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
            bw = (sizes[1] + pp[1] + pp[3] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
            for form, x in _forms(f"fold|{dtype}|{sizes}", (2, 3 * k[0] * k[1], bh * bw), dtype).items():
                _run(results, record, direct, "fold", f"searching|fold|{dtype}|{sizes}|{form}", {"X": x}, attrs)


def _steps(results):
    """Some ops as executor steps run on values of two shapes and dtypes, the first twice (the Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("where", {"Condition": "c", "X": "x", "Y": "y"}, ["Out"], {}),
        ("argsort", {"X": "x"}, ["Out", "Indices"], {"axis": 1, "descending": True}),
        ("flip", {"X": "x"}, ["Out"], {"dims": [0, 2]}),
        ("roll", {"X": "x"}, ["Out"], {"shifts": [1, -2], "dims": [0, 1]}),
        ("shape", {"Input": "x"}, ["Out"], {}),
        ("unique", {"X": "x"}, ["Out", "Index", "Indices", "Counts"], {"is_sorted": True, "dtype": "int64"}),
        ("kthvalue", {"X": "x"}, ["Out", "Indices"], {"k": 2, "axis": 1}),
        ("take_along_axis", {"Input": "x", "Index": "i"}, ["Result"], {"Axis": 2}),
    ]
    for i, (op, ins, outs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in list(ins.values()) + [o.lower() for o in outs]:
            block.create_var(name=n)
        block.append_op(op, {s: [n] for s, n in ins.items()}, {o: [o.lower()] for o in outs}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        shapes = [(2, 4, 3), (2, 4, 3), (3, 5, 1)]
        for j, shape in enumerate(shapes):
            for dtype in ("float32", "float64"):
                feed = {"x": _values(f"st|{i}|{j}|{dtype}", shape, dtype, True), "y": _values(f"sty|{j}", shape, dtype)}
                feed["c"] = _values(f"stc|{j}", shape[:2] + (1,), "bool")
                feed["i"] = np.random.default_rng(j).integers(0, shape[2], size=shape).astype(np.int64)
                if op == "unique":
                    feed["x"] = np.where(np.isnan(feed["x"]), 0, feed["x"])
                values, key = Values({n: feed[n] for n in ins.values()}), f"searching|step|{i}|{op}|{j}|{dtype}"
                try:
                    run_step(step, values)
                except Exception as e:
                    results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                    continue
                for o in outs:
                    a = np.asarray(values[o.lower()])
                    results[f"{key}|{o}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


def searching(results, record, direct):
    _where(results, record, direct)
    _sorting(results, record, direct)
    _unique(results, record, direct)
    _rearranging(results, record, direct)
    _along_axis(results, record, direct)
    _gather_scatter(results, record, direct)
    _bucketing(results, record, direct)
    _shaping(results, record, direct)
    _steps(results)

"""Results for tools/op_case_bytes.py's ``rnn``, ``transducer``, ``batch_shuffle`` and ``sparse`` families beyond
their op cases: Paddle 2.x's rnn op and rnn_grad (every mode, one and two layers, one and two directions,
SequenceLength given or not (a zero length too), float32 and float64, a strided Input, an empty batch and no steps,
dropout in training and in a test, PreState of the wrong count; the gradient of every output, of Out alone and of
the states alone), warprnnt and warprnnt_grad (dtypes, blank, fastemit_lambda, a strided input, an empty batch,
lengths out of range; loss@GRAD of another dtype and of one value), shuffle_batch and shuffle_batch_grad (dtypes,
shapes with empty and 0-D ones, Seed or startup_seed, a strided X) and merge_selected_rows,
get_tensor_from_selected_rows and split_selected_rows (duplicates, no rows, dtypes, 3-D values, strided values,
height_sections with an empty block, a dense X refused), each called through its CPU kernel (``OpDef.kernel``) and
the forwards as executor steps too; a SelectedRows output's rows, values and height recorded apart."""

import zlib

import numpy as np

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _values(key, shape, dtype, low=-1.0, high=1.0):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return rng.uniform(low, high, size=shape).astype(dtype)


def _expanded(outs):
    """The outputs with each SelectedRows (or a list of them) as its rows, values and height."""
    from pe_cli.base.selected_rows import SelectedRows

    flat = {}
    for slot, value in outs.items():
        items = value if isinstance(value, list) else [value]
        for i, v in enumerate(items):
            name = f"{slot}#{i}" if isinstance(value, list) else slot
            if v is None:
                continue
            if isinstance(v, SelectedRows):
                flat[name + "@rows"], flat[name + "@values"] = np.asarray(v.rows), np.asarray(v.values)
                flat[name + "@height"] = np.array(v.height)
            else:
                flat[name] = v
    return flat


def _call(results, record, direct, op, key, ins, attrs=None, ctx=None):
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **(attrs or {}))
    record(results, key, lambda: _expanded(direct(opdef, dict(ins), attrs, ctx)))
    try:
        return direct(opdef, dict(ins), attrs, ctx)
    except Exception:
        return None


def _rnn_inputs(key, mode, layers, dirs, dtype, t=4, n=3, size=3, hidden=2, lengths=None):
    g = _GATES[mode]
    weights, biases = [], []
    for layer in range(layers):
        width = size if layer == 0 else hidden * dirs
        for d in range(dirs):
            weights += [_values(f"{key}|w{layer}{d}i", (g * hidden, width), dtype)]
            weights += [_values(f"{key}|w{layer}{d}h", (g * hidden, hidden), dtype)]
            biases += [_values(f"{key}|b{layer}{d}{s}", (g * hidden,), dtype) for s in "ih"]
    states = [_values(f"{key}|s{i}", (layers * dirs, n, hidden), dtype) for i in range(2 if mode == "LSTM" else 1)]
    ins = {"Input": _values(f"{key}|x", (t, n, size), dtype), "PreState": states, "WeightList": weights + biases}
    if lengths is not None:
        ins["SequenceLength"] = np.array(lengths, np.int32)
    attrs = {"mode": mode, "input_size": size, "hidden_size": hidden, "num_layers": layers, "is_bidirec": dirs == 2}
    return ins, attrs


def rnn(results, record, direct):
    for mode in _GATES:
        for layers in (1, 2):
            for dirs in (1, 2):
                for dtype in ("float32", "float64"):
                    for lengths in (None, [4, 2, 3], [1, 0, 4]):
                        key = f"rnn|{mode}|{layers}|{dirs}|{dtype}|{lengths}"
                        ins, attrs = _rnn_inputs(key, mode, layers, dirs, dtype, lengths=lengths)
                        outs = _call(results, record, direct, "rnn", key, ins, attrs)
                        if outs is None:
                            continue
                        base = {**ins, "Out": outs["Out"]}
                        dout = _values(key + "|dout", outs["Out"].shape, dtype)
                        dstates = [_values(key + f"|ds{i}", s.shape, dtype) for i, s in enumerate(outs["State"])]
                        for name, g in (
                            ("all", {"Out@GRAD": dout, "State@GRAD": dstates}),
                            ("out", {"Out@GRAD": dout}),
                            ("states", {"State@GRAD": dstates}),
                            ("first_state", {"State@GRAD": [dstates[0]] + [None] * (len(dstates) - 1)}),
                        ):
                            _call(results, record, direct, "rnn_grad", f"{key}|g|{name}", {**base, **g}, attrs)
    for name, change in (
        ("strided", lambda ins, a: dict(ins, Input=np.asfortranarray(ins["Input"]))),
        ("strided2", lambda ins, a: dict(ins, Input=ins["Input"][::2])),
        ("empty_batch", None),
        ("no_steps", None),
        ("dropout_test", lambda ins, a: (a.update(dropout_prob=0.5, is_test=True), ins)[1]),
        ("dropout_train", lambda ins, a: (a.update(dropout_prob=0.5), ins)[1]),
        ("states_short", lambda ins, a: dict(ins, PreState=ins["PreState"][:1])),
        ("mixed_state", lambda ins, a: dict(ins, PreState=[s.astype("float32") for s in ins["PreState"]])),
    ):
        for mode in ("LSTM", "GRU"):
            key = f"rnn|form|{name}|{mode}"
            t, n = (0, 3) if name == "no_steps" else (4, 0) if name == "empty_batch" else (4, 3)
            ins, attrs = _rnn_inputs(key, mode, 2, 2, "float64", t=t, n=n)
            if change is not None:
                ins = change(ins, attrs)
            outs = _call(results, record, direct, "rnn", key, ins, attrs)
            if outs is not None:
                g = {**ins, "Out": outs["Out"], "Out@GRAD": _values(key + "|dout", outs["Out"].shape, "float64")}
                _call(results, record, direct, "rnn_grad", key + "|g", g, attrs)
    _steps(results, "rnn", _rnn_step_forms())


def _rnn_step_forms():
    forms = []
    for mode in ("LSTM", "GRU", "RNN_TANH"):
        ins, attrs = _rnn_inputs(f"step|{mode}", mode, 2, 2, "float32", lengths=[4, 1, 3])
        outputs = {"Out": ["out"], "State": [f"state{i}" for i in range(len(ins["PreState"]))]}
        outputs.update(Reserve=["reserve"], DropoutState=["dropout_state"])
        forms.append(("rnn", ins, attrs, outputs))
    return forms


def _steps(results, family, forms):
    """Each form as an executor step (its op in a program, run twice: a kept Meta the second time)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program
    from pe_cli.ops import registry

    for j, (op, ins, attrs, outputs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        names, feed = {}, {}
        for slot, value in ins.items():
            if isinstance(value, list):
                names[slot] = [f"{slot}_{i}" for i in range(len(value))]
                feed.update(zip(names[slot], value))
            else:
                names[slot] = [slot.lower()]
                feed[slot.lower()] = value
        for name in (*feed, *(n for ns in outputs.values() for n in ns)):
            block.create_var(name=name)
        block.append_op(op, names, outputs, dict(registry.get(op).default_attrs(), **attrs))
        step = OpStep(block.ops[0], CPUPlace())
        for run in range(2):
            values, key = Values(dict(feed)), f"{family}|step|{j}|{op}|{run}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            got = _expanded({n: values[n] for ns in outputs.values() for n in ns})
            for name, a in sorted(got.items()):
                a = np.asarray(a)
                results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


def _rnnt_inputs(key, b, t, u, v, dtype):
    logits = _values(key + "|x", (b, t, u + 1, v), "float64", -2, 2)
    return {
        "input": (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).astype(dtype),
        "label": (np.arange(b * u).reshape(b, u) % (v - 1) + 1).astype(np.int32),
        "input_lengths": np.array([t] + [max(1, t - 1 - k % 2) for k in range(b - 1)], np.int32)[:b],
        "label_lengths": np.array([u] + [max(0, u - 1 - k % 2) for k in range(b - 1)], np.int32)[:b],
    }


def transducer(results, record, direct):
    for dtype in ("float32", "float64"):
        for name, (b, t, u, v), attrs in (
            ("plain", (3, 4, 3, 5), {}),
            ("blank_last", (2, 3, 2, 4), {"blank": 3}),
            ("fastemit", (2, 3, 2, 4), {"fastemit_lambda": 0.5}),
            ("one", (1, 2, 1, 3), {}),
            ("empty", (0, 2, 1, 3), {}),
            ("blank_out", (2, 3, 2, 4), {"blank": 4}),
        ):
            key = f"rnnt|{dtype}|{name}"
            ins = _rnnt_inputs(key, b, t, u, v, dtype)
            if name == "blank_last":
                ins["label"] = ins["label"] - 1
            outs = _call(results, record, direct, "warprnnt", key, ins, attrs)
            strided = dict(ins, input=np.asfortranarray(ins["input"]))
            _call(results, record, direct, "warprnnt", key + "|strided", strided, attrs)
            if outs is None:
                continue
            for dl, dloss in (
                ("same", _values(key + "|dl", (b,), dtype)),
                ("f64", _values(key + "|dl64", (b,), "float64")),
                ("f32", _values(key + "|dl32", (b,), "float32")),
                ("one", _values(key + "|dl1", (1,), dtype)),
            ):
                g = {"input": ins["input"], "warprnntgrad": outs["warprnntgrad"], "loss@GRAD": dloss}
                _call(results, record, direct, "warprnnt_grad", f"{key}|g|{dl}", g, attrs)
    key = "rnnt|lengths_out"
    ins = _rnnt_inputs(key, 2, 3, 2, 4, "float32")
    _call(results, record, direct, "warprnnt", key, dict(ins, input_lengths=np.array([4, 1], np.int32)))
    _call(results, record, direct, "warprnnt", key + "|short", dict(ins, label_lengths=np.array([2], np.int32)))
    forms = []
    for dtype in ("float32", "float64"):
        ins = _rnnt_inputs(f"rnnt|step|{dtype}", 3, 4, 3, 5, dtype)
        forms.append(("warprnnt", ins, {}, {"loss": ["loss"], "warprnntgrad": ["grad"]}))
    _steps(results, "transducer", forms)


def batch_shuffle(results, record, direct):
    forms = []
    for dtype in ("float32", "float64", "int32", "int64"):
        for shape in ((2, 3, 4), (5,), (6, 1), (0, 3), (3, 0), (), (1, 7)):
            x = (_values(f"shuffle|{dtype}|{shape}", shape, "float64", -9, 9)).astype(dtype)
            for seeded in ("seed", "startup", "big_seed"):
                key = f"shuffle|{dtype}|{shape}|{seeded}"
                ins = {"X": x}
                attrs = {"startup_seed": 11}
                if seeded == "seed":
                    ins["Seed"] = np.array([7], np.int64)
                if seeded == "big_seed":
                    ins["Seed"] = np.array([2**62 + 5], np.int64)
                outs = _call(results, record, direct, "shuffle_batch", key, ins, attrs)
                if outs is None:
                    continue
                dout = _values(key + "|d", np.shape(x), "float64").astype(dtype)
                g = {"ShuffleIdx": outs["ShuffleIdx"], "Out@GRAD": dout}
                _call(results, record, direct, "shuffle_batch_grad", key + "|g", g, attrs)
            if len(shape) == 3:
                strided = {"X": np.asfortranarray(x), "Seed": np.array([3], np.int64)}
                _call(results, record, direct, "shuffle_batch", f"shuffle|{dtype}|strided", strided)
                forms.append(("shuffle_batch", {"X": x}, {"startup_seed": 5}, _SHUFFLE_OUTS))
                forms.append(("shuffle_batch", {"X": x, "Seed": np.array([9], np.int64)}, {}, _SHUFFLE_OUTS))
    _steps(results, "batch_shuffle", forms)


_SHUFFLE_OUTS = {"Out": ["out"], "ShuffleIdx": ["idx"], "SeedOut": ["seed_out"]}


def _rows(key, rows, width, dtype, height=9):
    from pe_cli.base.selected_rows import SelectedRows

    shape = (len(rows),) + tuple(width)
    values = (_values(key, shape, "float64", -5, 5)).astype(dtype)
    return SelectedRows(np.array(rows, np.int64), values, height)


def sparse(results, record, direct):
    from pe_cli.base.selected_rows import SelectedRows

    forms = []
    for dtype in ("float32", "float64", "int64"):
        for name, rows, width in (
            ("dups", [4, 1, 4, 8, 1, 4], (3,)),
            ("once", [0, 2, 5], (3,)),
            ("none", [], (3,)),
            ("wide", [3, 3, 0], (2, 4)),
            ("one_col", [7, 2, 7], (1,)),
        ):
            key = f"sparse|{dtype}|{name}"
            x = _rows(key, rows, width, dtype)
            for op in ("merge_selected_rows", "get_tensor_from_selected_rows"):
                _call(results, record, direct, op, f"{key}|{op}", {"X": x})
            for sections in ([3, 3, 3], [9], [2, 0, 7], [4, 6], [1, 1, 1, 1, 1, 1, 1, 1, 1]):
                _call(
                    results,
                    record,
                    direct,
                    "split_selected_rows",
                    f"{key}|split|{sections}",
                    {"X": x},
                    {"height_sections": sections},
                )
            if name == "dups":
                strided = SelectedRows(x.rows[::2], np.asfortranarray(_values(key + "s", (3, 5), dtype))[:, ::2], 9)
                for op in ("merge_selected_rows", "get_tensor_from_selected_rows"):
                    _call(results, record, direct, op, f"{key}|strided|{op}", {"X": strided})
                _call(
                    results,
                    record,
                    direct,
                    "split_selected_rows",
                    f"{key}|strided|split",
                    {"X": strided},
                    {"height_sections": [5, 4]},
                )
                forms.append(("merge_selected_rows", {"X": x}, {}, {"Out": ["out"]}))
                forms.append(("get_tensor_from_selected_rows", {"X": x}, {}, {"Out": ["out"]}))
                forms.append(("split_selected_rows", {"X": x}, {"height_sections": [4, 5]}, {"Out": ["o1", "o2"]}))
    dense = _values("sparse|dense", (4, 3), "float32")
    for op, attrs in (
        ("merge_selected_rows", {}),
        ("get_tensor_from_selected_rows", {}),
        ("split_selected_rows", {"height_sections": [2, 2]}),
    ):
        _call(results, record, direct, op, f"sparse|dense|{op}", {"X": dense}, attrs)
    _steps(results, "sparse", forms)

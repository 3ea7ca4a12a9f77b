"""The recurrent ops' results for tools/op_case_bytes.py's ``recurrent`` family: gru, gru_grad, fusion_gru, lstm,
lstm_grad (kernels/cpu/gru.py's and lstm.py's) called through their CPU kernels (``OpDef.kernel``) with a LoD in the
call's context, over dtypes (float32, float64), LoDs (an empty sequence, one sequence, one that does not end at
Input's rows, none), initial states given or not (and of the wrong count), bias given or not, every attribute variant
(is_reverse, origin_mode, activations, use_peepholes), the batch-ordered outputs wanted or not and the gradients with
and without them; gru_unit, lstm_unit and their grad ops over dtypes (mixed ones too), strided inputs and empty
batches; and each forward as an executor step run on one shape with two LoDs; beside each output's bytes its shape
and dtype."""

import zlib

import numpy as np

_LODS = {"three": [[0, 3, 4, 7]], "empty": [[0, 2, 2, 7]], "one": [[0, 7]], "short": [[0, 3, 6]], "none": None}
_D = 3
_LOD_SLOTS = ("Input", "X")


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def _call(results, record, direct, op, key, ins, attrs, lod, wanted=None, slots=_LOD_SLOTS, lods=None, seeded=False):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    lods = lods or ({slot: lod for slot in slots} if lod else {})

    def ctx():
        rng = np.random.default_rng(zlib.crc32(key.encode())) if seeded else None  # (the same draws in both trees)
        return KernelContext(rng=rng, lod=lods) if wanted is None else KernelContext(rng=rng, lod=lods, outputs=wanted)

    def outputs():
        context = ctx()
        outs = {k: v for k, v in direct(opdef, dict(ins), attrs, context).items() if v is not None}
        return {**outs, **{f"{k}@lod": np.array(v, dtype=object) for k, v in (context.out_lod or {}).items()}}

    record(results, key, outputs)
    try:
        return direct(opdef, dict(ins), attrs, ctx())
    except Exception:
        return None


def _grus(results, record, direct):
    d = _D
    forms = [
        {},
        {"is_reverse": True},
        {"origin_mode": True},
        {"gate_activation": "tanh", "activation": "relu"},
        {"activation": "identity", "is_reverse": True, "origin_mode": True},
    ]
    for dtype in ("float32", "float64"):
        x, w = _values(f"gru|x|{dtype}", (7, 3 * d), dtype), _values(f"gru|w|{dtype}", (d, 3 * d), dtype)
        b = _values(f"gru|b|{dtype}", (1, 3 * d), dtype)
        for name, lod in _LODS.items():
            for n, attrs in enumerate(forms):
                for given in ("bias", "h0", "none", "h0_wrong"):
                    key = f"gru|{dtype}|{name}|{n}|{given}"
                    ins = {"Input": x, "Weight": w}
                    if given == "bias":
                        ins["Bias"] = b
                    if given.startswith("h0") and lod:
                        rows = len(lod[-1]) - (1 if given == "h0" else 0)
                        ins["H0"] = _values(key + "h0", (rows, d), dtype)
                    for wanted in (None, {"Hidden"}):
                        outs = _call(
                            results,
                            record,
                            direct,
                            "gru",
                            f"{key}|{wanted and sorted(wanted)}",
                            ins,
                            attrs,
                            lod,
                            wanted,
                        )
                    if outs is None:
                        continue
                    dh = _values(key + "dh", outs["Hidden"].shape, dtype)
                    full = {**ins, **{k: v for k, v in outs.items() if v is not None}, "Hidden@GRAD": dh}
                    _call(results, record, direct, "gru_grad", key + "|g", full, attrs, lod)
                    _call(results, record, direct, "gru_grad", key + "|g0", {**ins, "Hidden@GRAD": dh}, attrs, lod)
                    fx = {"X": x[:, :4], "WeightX": _values(key + "wx", (4, 3 * d), dtype), "WeightH": w}
                    if "H0" in ins:
                        fx["H0"] = ins["H0"]
                    if "Bias" in ins:
                        fx["Bias"] = b
                    fattrs = {k: v for k, v in attrs.items() if k != "origin_mode"}
                    for wanted in (None, {"Hidden"}):
                        _call(
                            results,
                            record,
                            direct,
                            "fusion_gru",
                            f"{key}|f|{wanted and sorted(wanted)}",
                            fx,
                            fattrs,
                            lod,
                            wanted,
                        )


def _lstms(results, record, direct):
    d = _D
    forms = [
        {},
        {"is_reverse": True},
        {"use_peepholes": False},
        {"gate_activation": "tanh", "cell_activation": "relu", "candidate_activation": "identity"},
    ]
    for dtype in ("float32", "float64"):
        x, w = _values(f"lstm|x|{dtype}", (7, 4 * d), dtype), _values(f"lstm|w|{dtype}", (d, 4 * d), dtype)
        for name, lod in _LODS.items():
            for n, attrs in enumerate(forms):
                width = 7 * d if attrs.get("use_peepholes", True) else 4 * d
                b = _values(f"lstm|b|{dtype}|{width}", (1, width), dtype)
                for given in ("none", "h0", "c0", "both"):
                    key = f"lstm|{dtype}|{name}|{n}|{given}"
                    ins = {"Input": x, "Weight": w, "Bias": b}
                    nseq = len(lod[-1]) - 1 if lod else 1
                    for s in ("h0", "c0"):
                        if given in (s, "both"):
                            ins[s.upper()] = _values(key + s, (nseq, d), dtype)
                    for wanted in (None, {"Hidden", "Cell"}):
                        outs = _call(
                            results,
                            record,
                            direct,
                            "lstm",
                            f"{key}|{wanted and sorted(wanted)}",
                            ins,
                            attrs,
                            lod,
                            wanted,
                        )
                    if outs is None:
                        continue
                    dh, dc = (_values(key + s, outs["Hidden"].shape, dtype) for s in ("dh", "dc"))
                    full = {**ins, **{k: v for k, v in outs.items() if v is not None}, "Hidden@GRAD": dh}
                    _call(results, record, direct, "lstm_grad", key + "|g", full, attrs, lod)
                    _call(results, record, direct, "lstm_grad", key + "|gc", {**full, "Cell@GRAD": dc}, attrs, lod)
                    _call(results, record, direct, "lstm_grad", key + "|g0", {**ins, "Hidden@GRAD": dh}, attrs, lod)


def _lstmps(results, record, direct):
    d, p = _D, 2
    forms = [
        {},
        {"is_reverse": True, "use_peepholes": False},
        {"cell_clip": 0.5, "proj_clip": 0.3, "proj_activation": "identity"},
    ]
    for dtype in ("float32", "float64"):
        x, w = _values(f"lstmp|x|{dtype}", (7, 4 * d), dtype), _values(f"lstmp|w|{dtype}", (p, 4 * d), dtype)
        pw = _values(f"lstmp|pw|{dtype}", (d, p), dtype)
        for name, lod in _LODS.items():
            for n, attrs in enumerate(forms):
                width = 7 * d if attrs.get("use_peepholes", True) else 4 * d
                b = _values(f"lstmp|b|{dtype}|{width}", (1, width), dtype)
                for given in ("none", "both", "wrong"):
                    key = f"lstmp|{dtype}|{name}|{n}|{given}"
                    ins = {"Input": x, "Weight": w, "ProjWeight": pw, "Bias": b}
                    nseq = (len(lod[-1]) - 1 if lod else 1) + (given == "wrong")
                    if given != "none":
                        ins["H0"], ins["C0"] = (
                            _values(key + "h", (nseq, p), dtype),
                            _values(key + "c", (nseq, d), dtype),
                        )
                    for wanted in (None, ["Cell", "Projection"]):
                        outs = _call(
                            results, record, direct, "lstmp", f"{key}|{wanted}", ins, attrs, lod, wanted and set(wanted)
                        )
                    if outs is None:
                        continue
                    g = {**ins, "Projection@GRAD": _values(key + "dp", (7, p), dtype)}
                    _call(results, record, direct, "lstmp_grad", key + "|g", g, attrs, lod)
                    g["Cell@GRAD"] = _values(key + "dc", (7, d), dtype)
                    _call(results, record, direct, "lstmp_grad", key + "|gc", g, attrs, lod)


def _cases_in_dtypes(results, record, direct, module, grads=False, seeded=False):
    """Each op case of tests/ops/<module>.py (forward) in float32 and float64, its LoDs in the call's context, every
    output wanted, then Hidden alone."""
    import importlib

    from pe_cli.ops import registry

    for i, case in enumerate(importlib.import_module(f"tests.ops.{module}").CASES):
        for dtype in ("float32", "float64"):
            ins = {}
            for slot, value in case.inputs.items():
                if hasattr(value, "lods") or isinstance(value, list):  # (a tensor array: beam_search_decode's)
                    ins[slot] = value
                    continue
                a = np.asarray(value)
                ins[slot] = a.astype(dtype) if a.dtype.kind == "f" else a
            lods = {slot: v.lod() for slot, v in case.inputs.items() if hasattr(v, "lod") and v.lod()}
            for wanted in (None, {"Hidden"}):
                key = f"{module}|{i}|{case.op}|{dtype}|{wanted and sorted(wanted)}"
                outs = _call(
                    results, record, direct, case.op, key, ins, case.attrs, None, wanted, lods=lods, seeded=seeded
                )
            if (
                grads and outs is not None and case.op + "_grad" in registry.all_op_types()
            ):  # (the grad op on random gradients of each output, then of the first)
                douts = {f"{s}@GRAD": _values(f"{key}|d{s}", np.shape(v), dtype) for s, v in outs.items()}
                _call(
                    results, record, direct, case.op + "_grad", key + "|g", {**ins, **outs, **douts}, case.attrs, None
                )
                first = sorted(douts)[0]
                g = {**ins, **outs, first: douts[first]}
                _call(results, record, direct, case.op + "_grad", key + "|g1", g, case.attrs, None)


def _units(results, record, direct):
    d = _D
    for dtypes in (("float32",) * 2, ("float64",) * 2, ("float32", "float64")):
        for rows in (4, 0):
            for form in ("c", "strided"):
                key = f"unit|{dtypes}|{rows}|{form}"

                def value(name, shape, dtype, key=key, form=form):
                    if form == "strided":
                        return _values(key + name, (shape[0], 2 * shape[1]), dtype)[:, ::2]
                    return _values(key + name, shape, dtype)

                x, hp = value("x", (rows, 3 * d), dtypes[0]), value("hp", (rows, d), dtypes[1])
                w, b = value("w", (d, 3 * d), dtypes[0]), value("b", (1, 3 * d), dtypes[0])
                for n, attrs in enumerate([{}, {"origin_mode": True}, {"gate_activation": 2, "activation": 3}]):
                    for with_bias in (True, False):
                        k = f"{key}|gru|{n}|{with_bias}"
                        ins = {"Input": x, "HiddenPrev": hp, "Weight": w, **({"Bias": b} if with_bias else {})}
                        outs = _call(results, record, direct, "gru_unit", k, ins, attrs, None)
                        if outs is None:
                            continue
                        g = {**ins, **outs, "Hidden@GRAD": value("dh", (rows, d), dtypes[1])}
                        del g["Input"], g["Hidden"]
                        _call(results, record, direct, "gru_unit_grad", k + "|g", g, attrs, None)
                        g["Gate@GRAD"] = value("dg", (rows, 3 * d), dtypes[0])
                        g["ResetHiddenPrev@GRAD"] = value("dr", (rows, d), dtypes[1])
                        _call(results, record, direct, "gru_unit_grad", k + "|gg", g, attrs, None)
                lx, cp = value("lx", (rows, 4 * d), dtypes[0]), value("cp", (rows, d), dtypes[1])
                for fb in (0.0, 1.5):
                    k = f"{key}|lstm|{fb}"
                    outs = _call(
                        results, record, direct, "lstm_unit", k, {"X": lx, "C_prev": cp}, {"forget_bias": fb}, None
                    )
                    if outs is None:
                        continue
                    g = {"X": lx, "C_prev": cp, **outs}
                    g["H@GRAD"], g["C@GRAD"] = value("dh", (rows, d), dtypes[1]), value("dc", (rows, d), dtypes[0])
                    _call(results, record, direct, "lstm_unit_grad", k + "|g", g, {"forget_bias": fb}, None)


def _steps(results):
    """gru and lstm as executor steps run on rows of one shape with two LoDs, each twice."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    d = _D
    forms = [
        ("gru", {"Hidden": ["h"], "BatchGate": ["g"], "BatchResetHiddenPrev": ["r"], "BatchHidden": ["bh"]}, 3),
        ("lstm", {"Hidden": ["h"], "Cell": ["c"], "BatchGate": ["g"], "BatchCellPreAct": ["p"]}, 4),
    ]
    for op, outputs, gates in forms:
        program = Program()
        block = program.global_block()
        for name in ("x", "w", "b", *(v[0] for v in outputs.values())):
            block.create_var(name=name)
        block.append_op(op, {"Input": ["x"], "Weight": ["w"], "Bias": ["b"]}, outputs, {})
        step = OpStep(block.ops[0], CPUPlace())
        x, w = _values(f"step|{op}|x", (7, gates * d), "float32"), _values(f"step|{op}|w", (d, gates * d), "float32")
        b = _values(f"step|{op}|b", (1, 7 * d if op == "lstm" else 3 * d), "float32")
        for j, lod in enumerate([_LODS["three"], _LODS["empty"], _LODS["three"], _LODS["empty"], None]):
            values, key = Values({"x": x, "w": w, "b": b}, {"x": lod} if lod else None), f"rnn|step|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for name in (v[0] for v in outputs.values()):
                a = values[name]
                results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


def recurrent(results, record, direct):
    _grus(results, record, direct)
    _lstms(results, record, direct)
    _lstmps(results, record, direct)
    _cases_in_dtypes(results, record, direct, "cases_lstm_fused")
    _cases_in_dtypes(results, record, direct, "cases_lstm_cudnn", grads=True)
    _units(results, record, direct)
    _steps(results)


def _crfs(results, record, direct):
    """linear_chain_crf (and its gradient), crf_decoding: LoD and padded forms (Length), labels given or not, tags
    out of range, dtypes."""
    tags = 4
    for dtype in ("float32", "float64"):
        for name, lod in (*_LODS.items(), ("padded", None)):
            key = f"crf|{dtype}|{name}"
            padded = name == "padded"
            shape = (3, 4, tags) if padded else (7, tags)
            x, w = _values(key + "x", shape, dtype), _values(key + "w", (tags + 2, tags), dtype)
            rows = int(np.prod(shape[:-1]))
            label = np.random.default_rng(zlib.crc32(key.encode())).integers(0, tags, (rows, 1)).astype(np.int64)
            ins = {"Emission": x, "Transition": w, "Label": label.reshape(shape[:-1]) if padded else label}
            if padded:
                ins["Length"] = np.array([2, 4, 0], np.int64)
            lods = lod if lod else None
            outs = _call(results, record, direct, "linear_chain_crf", key, ins, {}, lods, slots=("Emission", "Label"))
            if outs is not None:
                g = {**ins, **outs, "LogLikelihood@GRAD": _values(key + "d", outs["LogLikelihood"].shape, dtype)}
                del g["Emission"], g["Transition"]
                _call(
                    results, record, direct, "linear_chain_crf_grad", key + "|g", g, {}, lods, slots=("Alpha", "Label")
                )
            bad = {**ins, "Label": ins["Label"] + tags}
            _call(results, record, direct, "linear_chain_crf", key + "|bad", bad, {}, lods, slots=("Emission", "Label"))
            for with_label in (True, False):
                d = dict(ins) if with_label else {k: v for k, v in ins.items() if k != "Label"}
                k = f"{key}|dec|{with_label}"
                _call(results, record, direct, "crf_decoding", k, d, {}, lods, slots=("Emission", "Label"))


def _ctcs(results, record, direct):
    """ctc_align (LoD and padded, merge_repeated, padding_value, every id blank), warpctc and its gradient (LoD and
    padded lengths, norm_by_times, blank, labels out of range)."""
    ids = np.array([[0, 1, 1, 0, 2, 2, 3], [1, 1, 0, 0, 3, 0, 2]], np.int32)
    for dtype in ("int32", "int64"):
        for merge in (True, False):
            for blank in (0, 2):
                attrs = {"merge_repeated": merge, "blank": blank, "padding_value": -3}
                key = f"align|{dtype}|{merge}|{blank}"
                flat = ids.reshape(-1, 1).astype(dtype)
                for name, lod in (("three", [[0, 3, 4, 14]]), ("blank", [[0, 14]]), ("none", None)):
                    x = np.zeros_like(flat) + blank if name == "blank" else flat
                    _call(
                        results,
                        record,
                        direct,
                        "ctc_align",
                        f"{key}|{name}",
                        {"Input": x},
                        attrs,
                        lod,
                        slots=("Input",),
                    )
                ins = {"Input": ids.astype(dtype), "InputLength": np.array([[7], [4]], np.int64)}
                _call(results, record, direct, "ctc_align", key + "|padded", ins, attrs, None)
                ins["InputLength"] = np.array([[9], [4]], np.int64)
                _call(results, record, direct, "ctc_align", key + "|padded_bad", ins, attrs, None)
    classes = 5
    for dtype in ("float32", "float64"):
        for norm in (False, True):
            attrs = {"blank": 0, "norm_by_times": norm}
            key = f"ctc|{dtype}|{norm}"
            logits = _values(key + "z", (9, classes), dtype)
            label = np.array([[1], [2], [2], [3], [4], [1]], np.int32)
            lods = {"Logits": [[0, 4, 4, 9]], "Label": [[0, 2, 3, 6]]}
            for name, lab in (("ok", label), ("bad", label + classes)):
                k = f"{key}|{name}"
                ins = {"Logits": logits, "Label": lab}
                outs = _call(results, record, direct, "warpctc", k, ins, attrs, None, lods=lods)
                if outs is not None:
                    g = {
                        "Logits": logits,
                        "WarpCTCGrad": outs["WarpCTCGrad"],
                        "Loss@GRAD": _values(k + "d", (3, 1), dtype),
                    }
                    _call(results, record, direct, "warpctc_grad", k + "|g", g, attrs, None, lods=lods)
            padded = _values(key + "p", (5, 2, classes), dtype)
            ins = {
                "Logits": padded,
                "Label": np.array([[1, 2, 0], [3, 0, 0]], np.int32),
                "LogitsLength": np.array([5, 3], np.int64),
                "LabelLength": np.array([2, 1], np.int64),
            }
            outs = _call(results, record, direct, "warpctc", key + "|padded", ins, attrs, None)
            if outs is not None:
                g = {
                    "Logits": padded,
                    "WarpCTCGrad": outs["WarpCTCGrad"],
                    "Loss@GRAD": _values(key + "pd", (2, 1), dtype),
                }
                g["LogitsLength"] = ins["LogitsLength"]
                _call(results, record, direct, "warpctc_grad", key + "|padded|g", g, attrs, None)


def sampled(results, record, direct):
    """hierarchical_sigmoid, nce, sample_logits and their grad ops: their op cases in float32 and float64, draws
    seeded alike."""
    for module in ("cases_loss_sampled", "cases_loss_sampled_logits"):
        _cases_in_dtypes(results, record, direct, module, grads=True, seeded=True)


def beams(results, record, direct):
    """beam_search, beam_search_decode, gather_tree, beam_log_probs and sampling_id: their op cases in float32 and
    float64, draws seeded alike, with the LoDs they set."""
    _cases_in_dtypes(results, record, direct, "cases_beam_search", seeded=True)
    lods = {"one": [[0, 2, 4], [0, 1, 2, 3, 4]], "pruned": [[0, 1, 4], [0, 1, 2, 3, 4]], "flat": [[0, 4]], "none": None}
    for dtype in ("float32", "float64"):
        scores = np.abs(_values(f"beam|{dtype}", (4, 5), dtype)) + 0.01
        ids = np.random.default_rng(3).integers(0, 9, (4, 5)).astype(np.int64)
        for name, lod in lods.items():
            for pre in ([1, 2, 0, 3], [0, 0, 0, 0]):
                for k, attrs in enumerate(
                    [{"beam_size": 2}, {"beam_size": 3, "is_accumulated": False}, {"beam_size": 1, "end_id": 3}]
                ):
                    ins = {"pre_ids": np.array(pre, np.int64).reshape(4, 1), "scores": scores}
                    ins["pre_scores"] = _values(f"beam|p|{dtype}", (4, 1), dtype)
                    for with_ids in (True, False):
                        key = f"beam|{dtype}|{name}|{pre}|{k}|{with_ids}"
                        given = {**ins, "ids": ids} if with_ids else ins
                        _call(
                            results,
                            record,
                            direct,
                            "beam_search",
                            key,
                            given,
                            attrs,
                            None,
                            lods={"scores": lod} if lod else {},
                        )


def structured_prediction(results, record, direct):
    _crfs(results, record, direct)
    _ctcs(results, record, direct)

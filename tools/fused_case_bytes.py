"""The results of the fused ops (fc, fused_elemwise_activation and fused_elemwise_add_activation, fused_batch_norm_act,
fusion_group, fusion_repeated_fc_relu, fusion_squared_mat_sub, scaled_dot_product_attention, inplace_abn,
add_position_encoding) and their grad ops for tools/op_case_bytes.py's ``fused_ops`` family, called through their CPU
kernels (``OpDef.kernel``): float32/float64 (float16 and ints where a kernel takes them), mixed dtypes, empty values,
C-contiguous, Fortran-ordered and strided inputs, each functor, activation, layout and mode, broadcast forms, the
gradients the op writes (``ctx.outputs``), LoD inputs; each grad op on the forward's outputs."""

import numpy as np

from matrix_case_bytes import _forms, _values


def _ctx(**kw):
    from pe_cli.kernels.context import KernelContext

    return KernelContext(**kw)


def _kernel(op):
    from pe_cli.kernels.context import takes_context
    from pe_cli.ops import registry

    opdef = registry.get(op)
    kernel = opdef.kernel("cpu")
    full = opdef.default_attrs()
    if takes_context(kernel):
        return lambda ins, attrs, ctx=None: kernel(dict(ins), dict(full, **attrs), ctx or _ctx())
    return lambda ins, attrs, ctx=None: kernel(dict(ins), dict(full, **attrs))


def _flat(run):
    def call():
        outs = run()
        return {f"{s}[{i}]": v for s, vs in outs.items() for i, v in enumerate(vs if isinstance(vs, list) else [vs])}

    return call


def _try(run):
    try:
        return run()
    except Exception:
        return None


def fc(results, record):
    k = _kernel("fc")
    for dt, wdt, bdt in (
        ("float32",) * 3,
        ("float64",) * 3,
        ("float32", "float64", "float32"),
        ("float32",) * 2 + ("float64",),
    ):
        for xs, cols in (((4, 6), 1), ((2, 3, 4), 2), ((2, 3, 4), 1), ((0, 6), 1)):
            kdim = int(np.prod(xs[cols:]))
            for pad in (False, True):
                w = _values(f"fc|{dt}|{xs}|w", (kdim + 4 * pad, 5 + 4 * pad), wdt)
                b = _values(f"fc|{dt}|{xs}|b", (1, 5), bdt)
                for form, x in _forms(f"fc|{dt}|{xs}", xs, dt).items():
                    for act, bias in (("", None), ("", b), ("relu", b), ("relu", None)):
                        ins = {"Input": x, "W": w} if bias is None else {"Input": x, "W": w, "Bias": bias}
                        attrs = {"in_num_col_dims": cols, "activation_type": act, "padding_weights": pad}
                        key = f"fc|{dt}{wdt}{bdt}|{xs}|{cols}|{pad}|{form}|{act}|{bias is None}"
                        record(results, key, lambda: k(ins, attrs))


def repeated_fc(results, record):
    k = _kernel("fusion_repeated_fc_relu")
    for dt, bdt in (("float32", "float32"), ("float64", "float64"), ("float32", "float64")):
        for batch in (4, 0, 1):
            for widths in ((5, 6, 3), (5, 7, 2, 4)):
                ws = [_values(f"rfc|{dt}|{i}", (a, b), dt) for i, (a, b) in enumerate(zip(widths, widths[1:]))]
                bs = [_values(f"rfc|{bdt}|b{i}", (1, b), bdt) for i, b in enumerate(widths[1:])]
                for form, x in _forms(f"rfc|{dt}|{batch}", (batch, widths[0]), dt).items():
                    ins = {"X": x, "W": ws, "Bias": bs}
                    record(results, f"rfc|{dt}{bdt}|{batch}|{widths}|{form}", _flat(lambda: k(ins, {})))


def squared_mat_sub(results, record):
    k = _kernel("fusion_squared_mat_sub")
    for dx, dy in (("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("float64", "float32")):
        for m, kk, n in ((3, 4, 5), (0, 4, 2), (2, 0, 3)):
            y = _values(f"sms|{dy}|{kk}{n}", (kk, n), dy)
            for form, x in _forms(f"sms|{dx}|{m}{kk}", (m, kk), dx).items():
                for scalar in (1.0, 0.3):
                    key = f"sms|{dx}{dy}|{m},{kk},{n}|{form}|{scalar}"
                    record(results, key, lambda: k({"X": x, "Y": y}, {"scalar": scalar}))


def position(results, record):
    k = _kernel("add_position_encoding")
    for dt in ("float32", "float64", "int64"):
        for shape, lod in (((2, 5, 6), None), ((0, 3, 4), None), ((7, 8), [[0, 3, 7]]), ((5, 2), [[0, 0, 5]])):
            for form, x in _forms(f"ape|{dt}|{shape}", shape, dt).items():
                for alpha, beta in ((1.0, 1.0), (0.5, 2.0)):
                    ctx = _ctx(lod={"X": lod} if lod else {})
                    key = f"ape|{dt}|{shape}|{lod}|{form}|{alpha}|{beta}"
                    record(results, key, lambda: k({"X": x}, {"alpha": alpha, "beta": beta}, ctx))
    record(results, "ape|2d-dense", lambda: k({"X": _values("ape2", (3, 4), "float32")}, {}))


def attention(results, record):
    k, g = _kernel("scaled_dot_product_attention"), _kernel("scaled_dot_product_attention_grad")
    slots = ("Q@GRAD", "K@GRAD", "V@GRAD")
    for dt, mdt in (("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("float16", "float16")):
        for b, sq, sk, h, d in ((2, 3, 4, 2, 5), (1, 1, 1, 1, 1), (2, 0, 3, 2, 4), (3, 9, 9, 4, 8)):
            kk = _values(f"sdpa|{dt}|k{b}{sk}", (b, sk, h, d), dt)
            v = _values(f"sdpa|{dt}|v{b}{sk}", (b, sk, h, d), dt)
            for mask_shape in (None, (b, 1, 1, sk), (sq, sk), (b, h, sq, sk)):
                ins = {"K": kk, "V": v}
                if mask_shape is not None:
                    ins["Mask"] = np.where(_values(f"sdpa|m{mask_shape}", mask_shape, mdt) > 2, -1e4, 0).astype(mdt)
                for form, q in _forms(f"sdpa|{dt}|q{b}{sq}", (b, sq, h, d), dt).items():
                    for alpha in (1.0, 0.35):
                        key = f"sdpa|{dt}{mdt}|{(b, sq, sk, h, d)}|{mask_shape}|{form}|{alpha}"
                        fins = dict(ins, Q=q)
                        record(results, key, lambda: k(fins, {"alpha": alpha}))
                        outs = _try(lambda: k(fins, {"alpha": alpha}))
                        if outs is None:
                            continue
                        dout = _values(key + "|d", outs["Out"].shape, dt)
                        gins = {"Q": q, "K": kk, "V": v, "Weights": outs["Weights"], "Out@GRAD": dout}
                        for wanted in (slots, ("K@GRAD",), ("Q@GRAD", "V@GRAD")):
                            run = lambda: g(gins, {"alpha": alpha}, _ctx(outputs=wanted))  # noqa: E731
                            record(results, f"{key}|grad|{wanted}", run)


def _bn_ins(key, shape, layout, dt, pdt="float32"):
    c = shape[1] if layout == "NCHW" else shape[-1]
    x = _values(key + "|x", shape, dt)
    ins = {
        "X": x,
        "Scale": _values(key + "|s", (c,), pdt),
        "Bias": _values(key + "|b", (c,), pdt),
        "Mean": _values(key + "|m", (c,), pdt),
        "Variance": np.abs(_values(key + "|v", (c,), pdt)) + 0.5,
    }
    return ins


_MODES = ({}, {"is_test": True}, {"use_global_stats": True}, {"momentum": 0.5, "epsilon": 1e-3})


def bn_act(results, record):
    from pe_cli.ops.fused import BN_ACTIVATIONS

    k, g = _kernel("fused_batch_norm_act"), _kernel("fused_batch_norm_act_grad")
    for dt, pdt in (("float32", "float32"), ("float64", "float64"), ("float64", "float32"), ("float16", "float32")):
        for shape, layout in (((3, 4, 2, 2), "NCHW"), ((6, 4), "NCHW"), ((2, 3, 3, 4), "NHWC"), ((0, 4, 2, 2), "NCHW")):
            ins = _bn_ins(f"bnact|{dt}{pdt}|{shape}", shape, layout, dt, pdt)
            for act in BN_ACTIVATIONS:
                for mode in _MODES:
                    attrs = dict(mode, act_type=act, data_layout=layout)
                    key = f"bnact|{dt}{pdt}|{shape}|{layout}|{act}|{sorted(mode.items())}"
                    record(results, key, lambda: k(ins, attrs))
                    outs = _try(lambda: k(ins, attrs))
                    if outs is None:
                        continue
                    gins = {s: ins[s] for s in ("X", "Scale")}
                    gins.update({s: outs[s] for s in ("SavedMean", "SavedVariance", "Y")})
                    gins["Y@GRAD"] = _values(key + "|d", shape, dt)
                    record(results, key + "|grad", lambda: g(gins, attrs))


def inplace_abn(results, record):
    k, g = _kernel("inplace_abn"), _kernel("inplace_abn_grad")
    for dt, pdt in (("float32", "float32"), ("float64", "float64"), ("float32", "float64")):
        for shape, layout in (((3, 4, 2, 2), "NCHW"), ((6, 4), "NCHW"), ((2, 3, 3, 4), "NHWC"), ((0, 4, 2), "NCHW")):
            ins = _bn_ins(f"abn|{dt}{pdt}|{shape}", shape, layout, dt, pdt)
            for act in ("", "identity", "leaky_relu", "elu"):
                for mode in _MODES:
                    attrs = dict(mode, activation=act, data_layout=layout, alpha=0.3)
                    key = f"abn|{dt}{pdt}|{shape}|{layout}|{act}|{sorted(mode.items())}"
                    record(results, key, lambda: k(ins, attrs))
                    outs = _try(lambda: k(ins, attrs))
                    if outs is None:
                        continue
                    for gdt in dict.fromkeys([dt, "float64"]):
                        gins = {s: ins[s] for s in ("Scale", "Bias")}
                        gins.update({s: outs[s] for s in ("SavedMean", "SavedVariance", "Y")})
                        gins["Y@GRAD"] = _values(key + "|d", shape, gdt)
                        if mode.get("use_global_stats"):
                            gins.update(Mean=outs["MeanOut"], Variance=outs["VarianceOut"])
                        record(results, f"{key}|grad|{gdt}", lambda: g(gins, attrs))


_FUNCTORS = (
    ["relu", "elementwise_add"],
    ["tanh", "elementwise_add"],
    ["sigmoid", "elementwise_add"],
    ["scale", "elementwise_add"],
    ["gelu", "elementwise_add"],
    ["relu", "elementwise_mul"],
    ["elementwise_add", "relu"],
    ["elementwise_add", "scale"],
    ["elementwise_mul", "tanh"],
    ["elementwise_mul", "sigmoid"],
    ["exp", "elementwise_add"],
)
_EW_SHAPES = (
    ((3, 4), (3, 4), -1),
    ((3, 4), (4,), -1),
    ((2, 3, 4), (3,), 1),
    ((2, 3, 4), (2, 4), -1),
    ((2, 3, 8), (2, 1, 8), -1),
    ((4, 5, 6), (4, 1, 6), -1),
    ((0, 4), (4,), -1),
    ((64, 70, 33), (64, 70, 33), -1),
    ((8, 33, 31), (8, 1, 31), -1),
)


def elemwise_act(results, record):
    from pe_cli.ops.fused import FUSABLE_ACTIVATIONS

    for op in ("fused_elemwise_activation", "fused_elemwise_add_activation"):
        k, g = _kernel(op), _kernel(op + "_grad")
        for functors in _FUNCTORS:
            if op.endswith("add_activation") and "elementwise_add" not in functors:
                continue
            if any(f not in FUSABLE_ACTIVATIONS + ("scale", "elementwise_add", "elementwise_mul") for f in functors):
                continue
            for dt in ("float32", "float64", "int32"):
                for xs, ys, axis in _EW_SHAPES:
                    y = _values(f"fea|{dt}|{ys}", ys, dt)
                    for form, x in _forms(f"fea|{dt}|{xs}", xs, dt).items():
                        attrs = {"functor_list": functors, "axis": axis, "scale": 0.7}
                        key = f"{op}|{functors}|{dt}|{xs}|{ys}|{axis}|{form}"
                        record(results, key, lambda: k({"X": x, "Y": y}, attrs))
                        run = lambda: k({"X": x, "Y": y}, attrs, _ctx(outputs=("Out",)))  # noqa: E731
                        record(results, key + "|out-only", lambda: {"Out": run()["Out"]})
                        outs = _try(lambda: k({"X": x, "Y": y}, attrs))
                        if outs is None:
                            continue
                        d = _values(key + "|d", outs["Out"].shape, dt)
                        gins = {"X": x, "Y": y, "Out": outs["Out"], "Out@GRAD": d}
                        record(results, key + "|grad", lambda: g(gins, attrs))
                        gi = dict(gins, IntermediateOut=outs["IntermediateOut"])
                        record(results, key + "|grad|inter", lambda: g(gi, attrs))
                        for wanted in (("X@GRAD",), ("Y@GRAD",)):
                            record(results, f"{key}|grad|{wanted}", lambda: g(gi, attrs, _ctx(outputs=wanted)))


def fusion_group(results, record):
    k = _kernel("fusion_group")
    group = [
        ["sigmoid", "activation", "sigmoid", {"X": "x"}, {"Out": "s"}, {}],
        ["elementwise_mul", "elementwise", "elementwise_mul", {"X": "x", "Y": "s"}, {"Out": "g"}, {"axis": -1}],
        ["elementwise_add", "elementwise", "elementwise_add", {"X": "g", "Y": "b"}, {"Out": "h"}, {"axis": -1}],
        ["scale", "elementwise", "scale", {"X": "h"}, {"Out": "y"}, {"scale": 2.0, "bias": 0.5, "bias_after_scale": 1}],
        ["tanh", "activation", "tanh", {"X": "y"}, {"Out": "t"}, {}],
        ["relu", "activation", "relu", {"X": "t"}, {"Out": "r"}, {}],
    ]
    for dt in ("float32", "float64"):
        for xs, bs in (((3, 4), (4,)), ((2, 3, 5), (2, 3, 5)), ((0, 4), (4,))):
            for form, x in _forms(f"fg|{dt}|{xs}", xs, dt).items():
                b = _values(f"fg|{dt}|{bs}", bs, dt)
                for outs in (["s", "g", "t"], ["r"], ["h", "y", "r", "x"]):
                    attrs = {"subgraph": group, "input_names": ["x", "b"], "output_names": outs}
                    key = f"fg|{dt}|{xs}|{form}|{outs}"
                    record(results, key, _flat(lambda: k({"Inputs": [x, b]}, attrs)))


def fused_ops(results, record, direct):
    for part in (
        fc,
        repeated_fc,
        squared_mat_sub,
        position,
        attention,
        bn_act,
        inplace_abn,
        elemwise_act,
        fusion_group,
    ):
        part(results, record)

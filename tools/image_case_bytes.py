"""The image family's results for tools/op_case_bytes.py's ``images`` family: the resize ops (nearest, bilinear,
bicubic, trilinear and linear interp, Fluid 1.8's and their ``_v2`` forms), affine_grid, grid_sampler, fsp, the
permutation ops (pixel_shuffle, space_to_depth, shuffle_channel), similarity_focus and unfold, each with its grad op,
called through their CPU kernels (``OpDef.kernel``) over dtypes, C-contiguous, Fortran-ordered and strided inputs,
empty dims, layouts, every attribute's variants, sizes given by tensors (OutSize, SizeTensor, Scale, OutputShape) and
the refusals; and as executor steps run on several values of one signature (the sizes by tensor changing between
calls, the Meta kept); beside each output's bytes, its shape, dtype and C contiguity."""

import zlib

import numpy as np


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    x = rng.uniform(-3, 3, size=shape) * (20 if dtype[0] in "iu" else 1)
    return (np.abs(x) if dtype[0] == "u" else x).astype(dtype)


def _forms(key, shape, dtype):
    x = _values(key, shape, dtype)
    wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype)
    return {"c": x, "fortran": np.asfortranarray(x), "strided": wide[..., ::2]}


def _layout(results, key, outs):
    for name, value in sorted(outs.items()):
        a = np.asarray(value)
        results[f"{key}|{name}|layout"] = np.frombuffer(f"C={a.flags.c_contiguous}".encode(), dtype=np.uint8)


def _run(results, record, direct, op, key, ins, attrs, out_slot="Out"):
    """The op's kernel, and its grad op's on the forward's outputs and a d(out_slot) in its dtype and in float64."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: direct(opdef, dict(ins), attrs, None))
    try:
        outs = direct(opdef, dict(ins), attrs, None)
    except Exception:
        return
    _layout(results, key, outs)
    if op + "_grad" not in registry.all_op_types():
        return
    grad = registry.get(op + "_grad")
    out = np.asarray(outs[out_slot])
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        given = dict(ins, **outs, **{f"{out_slot}@GRAD": _values(f"{key}|{dtype}", out.shape, dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        record(results, f"{key}|grad|{dtype}", lambda: direct(grad, gins, attrs, None))
        try:
            _layout(results, f"{key}|grad|{dtype}", direct(grad, gins, attrs, None))
        except Exception:
            pass


def _i32(*v):
    return np.array(v, dtype=np.int32)


_SIZES = [  # (attrs, tensors) of a 2-D resize; v2 where the scale is a list
    ({"out_h": 5, "out_w": 7}, {}),
    ({"out_h": 3, "out_w": 2}, {}),
    ({"out_h": 4, "out_w": 6}, {}),  # (the same size: a copy)
    ({"out_h": 1, "out_w": 1}, {}),
    ({"scale": 1.5}, {}),
    ({"scale": 0.6, "out_h": 9, "out_w": 9}, {}),
    ({"out_h": 2, "out_w": 2}, {"OutSize": _i32(7, 3)}),
    ({"scale": 2.0}, {"Scale": np.array([0.5], np.float32)}),
    ({"out_h": 0, "out_w": 0}, {}),
]
_SIZES_V2 = [
    ({"out_h": 5, "out_w": 7}, {}),
    ({"out_h": 4, "out_w": 6}, {}),
    ({"scale": [1.5, 0.75]}, {}),
    ({"scale": [2.0]}, {}),
    ({"scale": [1.7, 1.7], "out_h": 3, "out_w": 3}, {"OutSize": _i32(5, 8)}),
    ({}, {"Scale": np.array([1.3, 0.6], np.float32)}),
    ({}, {"Scale": np.array([2.0], np.float32)}),
    ({"out_h": 2, "out_w": 2}, {"SizeTensor": [_i32(6), _i32(3)], "OutSize": _i32(7, 3)}),
    ({"out_h": 0, "out_w": 0}, {}),
]


def _resizes(results, record, direct):
    for method in ("nearest", "bilinear", "bicubic"):
        for v2 in (False, True):
            op = f"{method}_interp" + ("_v2" if v2 else "")
            for dtype in ("float32", "float64", "uint8"):
                for layout in ("NCHW", "NHWC"):
                    shape = (2, 3, 4, 6) if layout == "NCHW" else (2, 4, 6, 3)
                    for form, x in _forms(f"{op}|{dtype}|{layout}", shape, dtype).items():
                        if form != "c" and dtype == "uint8":
                            continue
                        for i, (attrs, tensors) in enumerate(_SIZES_V2 if v2 else _SIZES):
                            for corners, mode in ((True, 1), (False, 1), (False, 0)):
                                if form != "c" and (i % 3 or mode == 0):
                                    continue
                                a = dict(attrs, interp_method=method, align_corners=corners, align_mode=mode)
                                a["data_layout"] = layout
                                key = f"images|{op}|{dtype}|{layout}|{form}|{i}|{corners}|{mode}"
                                _run(results, record, direct, op, key, {"X": x, **tensors}, a)
            x = _values(f"{op}|empty", (0, 3, 4, 6), "float32")
            _run(
                results,
                record,
                direct,
                op,
                f"images|{op}|empty",
                {"X": x},
                {"interp_method": method, "out_h": 3, "out_w": 5},
            )
    for v2 in (False, True):
        op = "trilinear_interp" + ("_v2" if v2 else "")
        for dtype in ("float32", "float64"):
            for layout in ("NCHW", "NHWC"):
                shape = (2, 3, 3, 4, 5) if layout == "NCHW" else (2, 3, 4, 5, 3)
                for form, x in _forms(f"{op}|{dtype}|{layout}", shape, dtype).items():
                    for i, (attrs, tensors) in enumerate(
                        [
                            ({"out_d": 4, "out_h": 2, "out_w": 7}, {}),
                            ({"scale": [1.5, 1.5, 0.5] if v2 else 1.5}, {}),
                            ({}, {"OutSize": _i32(2, 5, 3)}),
                            (
                                {},
                                {"SizeTensor": [_i32(5), _i32(3), _i32(2)]}
                                if v2
                                else {"Scale": np.array([2.0], np.float32)},
                            ),
                        ]
                    ):
                        for corners, mode in ((True, 1), (False, 0), (False, 1)):
                            a = dict(attrs, interp_method="trilinear", align_corners=corners, align_mode=mode)
                            a["data_layout"] = layout
                            key = f"images|{op}|{dtype}|{layout}|{form}|{i}|{corners}|{mode}"
                            _run(results, record, direct, op, key, {"X": x, **tensors}, a)


def _linear(results, record, direct):
    for v2 in (False, True):
        op = "linear_interp" + ("_v2" if v2 else "")
        for dtype in ("float32", "float64"):
            for layout in ("NCHW", "NHWC"):
                for form, x in _forms(f"{op}|{dtype}|{layout}", (2, 3, 5), dtype).items():
                    sizes = [
                        ({"out_w": 8}, {}),
                        ({"out_w": 5}, {}),
                        ({"out_w": 1}, {}),
                        ({"scale": [1.5] if v2 else 1.5}, {}),
                        ({"out_w": 3}, {"OutSize": _i32(7)}),
                        ({"out_w": 3}, {"SizeTensor": [_i32(4)]}),
                        ({"out_w": 3}, {"Scale": np.array([0.6], np.float32)}),
                        ({"out_w": 0}, {}),
                    ]
                    for i, (attrs, tensors) in enumerate(sizes):
                        for corners, mode in ((True, 1), (False, 0), (False, 1)):
                            a = dict(attrs, interp_method="linear", align_corners=corners, align_mode=mode)
                            a["data_layout"] = layout
                            key = f"images|{op}|{dtype}|{layout}|{form}|{i}|{corners}|{mode}"
                            _run(results, record, direct, op, key, {"X": x, **tensors}, a)


def _sampling(results, record, direct):
    for dtype in ("float32", "float64"):
        for form, theta in _forms(f"affine|{dtype}", (3, 2, 3), dtype).items():
            for corners in (True, False):
                for i, (attrs, ins) in enumerate(
                    [
                        ({"output_shape": [3, 2, 4, 5]}, {}),
                        ({"output_shape": [3, 2, 1, 1]}, {}),
                        ({"output_shape": [1, 1, 1, 1]}, {"OutputShape": _i32(3, 1, 3, 2)}),
                        ({"output_shape": [3, 2, 0, 5]}, {}),
                    ]
                ):
                    key = f"images|affine_grid|{dtype}|{form}|{corners}|{i}"
                    a = dict(attrs, align_corners=corners)
                    _run(results, record, direct, "affine_grid", key, {"Theta": theta, **ins}, a, "Output")
        for form, x in _forms(f"grid|{dtype}", (2, 3, 4, 5), dtype).items():
            grid = _values(f"grid|{dtype}|g", (2, 3, 6, 2), dtype) * 0.5
            for mode in ("bilinear", "nearest"):
                for pad in ("zeros", "border", "reflection"):
                    for corners in (True, False):
                        a = {"mode": mode, "padding_mode": pad, "align_corners": corners}
                        key = f"images|grid_sampler|{dtype}|{form}|{mode}|{pad}|{corners}"
                        _run(results, record, direct, "grid_sampler", key, {"X": x, "Grid": grid}, a, "Output")
        for shapes in (((2, 3, 4, 5), (2, 2, 4, 5)), ((1, 1, 1, 1), (1, 4, 1, 1)), ((2, 3, 0, 5), (2, 2, 0, 5))):
            for form, x in _forms(f"fsp|{dtype}|{shapes}", shapes[0], dtype).items():
                y = _values(f"fsp|{dtype}|{shapes}|y", shapes[1], dtype)
                _run(results, record, direct, "fsp", f"images|fsp|{dtype}|{shapes}|{form}", {"X": x, "Y": y}, {})


def _permutations(results, record, direct):
    forms = [
        ("pixel_shuffle", {"upscale_factor": 2}, (2, 8, 3, 2)),
        ("pixel_shuffle", {"upscale_factor": 2, "data_format": "NHWC"}, (2, 3, 2, 8)),
        ("pixel_shuffle", {"upscale_factor": 1}, (1, 3, 2, 2)),
        ("pixel_shuffle", {"upscale_factor": 3}, (2, 8, 3, 2)),
        ("space_to_depth", {"blocksize": 2}, (2, 4, 4, 6)),
        ("space_to_depth", {"blocksize": 3}, (1, 9, 3, 3)),
        ("shuffle_channel", {"group": 2}, (2, 6, 3, 2)),
        ("shuffle_channel", {"group": 3}, (0, 6, 3, 2)),
        ("similarity_focus", {"axis": 1, "indexes": [0, 2]}, (2, 3, 4, 5)),
        ("similarity_focus", {"axis": 3, "indexes": [1]}, (2, 3, 4, 5)),
        ("similarity_focus", {"axis": 2, "indexes": [0, 3]}, (1, 2, 4, 3)),
    ]
    for dtype in ("float32", "float64", "int64"):
        for i, (op, attrs, shape) in enumerate(forms):
            for form, x in _forms(f"perm|{dtype}|{i}", shape, dtype).items():
                _run(results, record, direct, op, f"images|{op}|{dtype}|{i}|{form}", {"X": x}, attrs)
    unfolds = [
        {"kernel_sizes": [2, 2], "strides": [1, 1], "paddings": [0, 0, 0, 0], "dilations": [1, 1]},
        {"kernel_sizes": [3, 2], "strides": [2, 1], "paddings": [1, 0, 1, 2], "dilations": [1, 2]},
        {"kernel_sizes": [2, 3], "strides": [1, 2], "paddings": [-1, 1, 0, 1], "dilations": [2, 1]},
        {"kernel_sizes": [9, 9], "strides": [1, 1], "paddings": [0, 0, 0, 0], "dilations": [1, 1]},
    ]
    for dtype in ("float32", "float64"):
        for i, attrs in enumerate(unfolds):
            for form, x in _forms(f"unfold|{dtype}|{i}", (2, 3, 5, 6), dtype).items():
                _run(results, record, direct, "unfold", f"images|unfold|{dtype}|{i}|{form}", {"X": x}, attrs, "Y")


def _steps(results):
    """Ops as executor steps run on values of one signature, the sizes their tensors give changing between calls (the
    Meta kept), then of another shape."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("bilinear_interp", {"out_h": 3, "out_w": 5, "align_corners": False}, ["x"], [{}]),
        ("nearest_interp_v2", {"scale": [2.0, 1.5], "interp_method": "nearest"}, ["x"], [{}]),
        ("bilinear_interp", {"out_h": 3, "out_w": 5}, ["x", "s"], [{"s": _i32(4, 7)}, {"s": _i32(2, 3)}]),
        (
            "bicubic_interp_v2",
            {"interp_method": "bicubic", "align_corners": False},
            ["x", "s"],
            [{"s": np.array([2.0, 1.5], np.float32)}, {"s": np.array([0.5, 0.75], np.float32)}],
        ),
        ("linear_interp_v2", {"interp_method": "linear", "out_w": 9}, ["x"], [{}]),
        ("pixel_shuffle", {"upscale_factor": 2}, ["x"], [{}]),
        ("fsp", {}, ["x", "y"], [{}]),
        ("grid_sampler", {"padding_mode": "border"}, ["x", "g"], [{}]),
    ]
    slots = {
        "bilinear_interp": ("X", "OutSize"),
        "bicubic_interp_v2": ("X", "Scale"),
        "fsp": ("X", "Y"),
        "grid_sampler": ("X", "Grid"),
    }
    for i, (op, attrs, names, tensors) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in names + ["out"]:
            block.create_var(name=n)
        ins = {slot: [n] for slot, n in zip(slots.get(op, ("X",)), names)}
        out_slot = "Output" if op == "grid_sampler" else "Out"
        block.append_op(op, ins, {out_slot: ["out"]}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        rank = 3 if op.startswith("linear") else 4
        shapes = [(2, 4, 4, 6)[:rank]] * 2 + [(1, 4, 5, 3)[:rank]]
        for j, shape in enumerate(shapes):
            for k, given in enumerate(tensors):
                feed = {"x": _values(f"step|{i}|{j}", shape, "float32"), **given}
                if op == "fsp":
                    feed["y"] = _values(f"step|{i}|{j}|y", shape, "float32")
                if op == "grid_sampler":
                    feed["g"] = _values(f"step|{i}|{j}|g", (shape[0], 3, 2, 2), "float32") * 0.5
                values, key = Values(feed), f"images|step|{i}|{op}|{j}|{k}"
                try:
                    run_step(step, values)
                except Exception as e:
                    results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                    continue
                a = values["out"]
                results[f"{key}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
                _layout(results, key, {"out": a})


def images(results, record, direct):
    """Every form above into ``results`` (op_case_bytes.py's ``_record`` and ``_direct``)."""
    _resizes(results, record, direct)
    _linear(results, record, direct)
    _sampling(results, record, direct)
    _permutations(results, record, direct)
    _steps(results)

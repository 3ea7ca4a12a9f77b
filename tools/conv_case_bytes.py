"""The conv2d family's direct calls for tools/op_case_bytes.py (``dump ROOT conv2d``): conv2d, depthwise_conv2d
and their grad ops (conv2d_grad with both gradients or one, _grad_input, _grad_filter) through their CPU kernels
on geometries that pick every path (oneDNN's float32 with 8 or more channels a group, Winograd's 3x3, the wide
and im2col per-sample loops, a 1x1 filter, numpy's other dtypes, the irregular geometries mapped onto regular
ones, an output reading no input), NCHW and NHWC, groups, dilations, strides, SAME/VALID/explicit/asymmetric
paddings, relu first, float16/32/64 and int32, a 0-size batch; and conv2d_transpose's ops on a few (its
kernels are conv2d's with the roles swapped). Run it as ``PE_ONEDNN=0`` too: every float32 geometry then
takes pe's own paths."""

import numpy as np

# (Input shape NCHW, Filter shape, attributes)
GEOMETRIES = [
    ((2, 8, 10, 10), (16, 8, 3, 3), {"paddings": [1, 1]}),  # oneDNN (float32)
    ((2, 8, 16, 16), (8, 8, 3, 3), {"paddings": [1, 1]}),  # Winograd (float64; float32 without oneDNN)
    ((2, 8, 17, 15), (12, 8, 3, 3), {"paddings": [0, 2, 1, 0]}),  # Winograd, asymmetric
    ((8, 1, 28, 28), (6, 1, 5, 5), {}),  # LeNet's first layer: the wide loops
    ((2, 6, 14, 14), (16, 6, 5, 5), {"paddings": [2, 2]}),
    ((2, 3, 9, 9), (4, 3, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}),  # im2col per sample
    ((2, 4, 9, 8), (6, 2, 3, 3), {"dilations": [2, 2], "groups": 2, "paddings": [1, 2, 0, 1]}),
    ((2, 16, 7, 7), (32, 16, 1, 1), {}),  # 1x1: the input its own columns
    ((2, 3, 7, 7), (5, 3, 1, 1), {"strides": [2, 2]}),
    ((1, 2, 5, 6), (3, 2, 3, 2), {"strides": [2, 1], "padding_algorithm": "SAME"}),
    ((1, 2, 5, 5), (3, 2, 3, 3), {"paddings": [2, 2], "padding_algorithm": "VALID"}),
    ((2, 3, 6, 6), (3, 1, 3, 3), {"groups": 3, "paddings": [1, 1]}),  # depthwise
    ((2, 16, 8, 8), (16, 1, 3, 3), {"groups": 16, "paddings": [1, 1]}),
    ((2, 16, 8, 8), (32, 2, 5, 5), {"groups": 8, "paddings": [2, 2]}),
    ((2, 3, 6, 7), (4, 3, 3, 3), {"paddings": [-1, 2]}),  # irregular: cropped
    ((2, 3, 6, 7), (4, 3, 3, 2), {"dilations": [0, 1]}),  # a filter summed along H
    ((2, 3, 8, 7), (4, 3, 3, 3), {"dilations": [-1, 2], "paddings": [1, 1]}),  # taps run backwards
    ((1, 2, 4, 4), (2, 2, 2, 2), {"paddings": [-4, 0]}),  # refused: no output left
    ((1, 2, 4, 4), (2, 2, 1, 1), {"paddings": [-4, 4, 0, 0]}),  # no output reads the input
    ((2, 8, 10, 10), (16, 8, 3, 3), {"paddings": [1, 1], "fuse_relu_before_depthwise_conv": True}),
    ((2, 3, 6, 6), (6, 1, 3, 3), {"groups": 3, "paddings": [1, 1], "fuse_relu_before_depthwise_conv": True}),
    ((0, 3, 6, 6), (4, 3, 3, 3), {"paddings": [1, 1]}),  # a 0-size batch
    ((2, 3, 5, 5), (4, 2, 3, 3), {}),  # refused: channels
]
DTYPES = ("float32", "float64", "float16", "int32")
GRAD_OUTPUTS = (None, ("Input@GRAD",), ("Filter@GRAD",), ("Input@GRAD", "Filter@GRAD"))


def _values(rng, shape, dtype):
    v = rng.uniform(-2, 2, size=shape)
    return (v * 4).astype(dtype) if dtype == "int32" else v.astype(dtype)


def conv2d(results, record, direct, rng):
    """Each op type of the family on each geometry, dtype and layout."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    for i, (x_shape, w_shape, extra) in enumerate(GEOMETRIES):
        for op_type, dtype, layout in (
            (t, d, f) for t in ("conv2d", "depthwise_conv2d") for d in DTYPES for f in ("NCHW", "NHWC")
        ):
            if layout == "NHWC" and dtype in ("float16", "int32"):
                continue
            fwd = registry.get(op_type)
            attrs = dict(fwd.default_attrs(), data_format=layout, **extra)
            x, w = _values(rng, x_shape, dtype), _values(rng, w_shape, dtype)
            if layout == "NHWC":
                x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
            key = f"conv2d|{i}|{op_type}|{dtype}|{layout}"
            record(results, key, lambda: direct(fwd, {"Input": x, "Filter": w}, attrs, None))
            try:
                out = np.asarray(direct(fwd, {"Input": x, "Filter": w}, attrs, None)["Output"])
            except Exception:
                continue
            ins = {"Input": x, "Filter": w, "Output@GRAD": _values(rng, out.shape, dtype)}
            for outputs in GRAD_OUTPUTS:
                ctx = KernelContext(outputs=outputs)
                grad = registry.get(op_type + "_grad")
                record(results, f"{key}|grad|{outputs}", lambda: direct(grad, ins, attrs, ctx))
            for half in ("_grad_input", "_grad_filter"):
                record(results, f"{key}|{half}", lambda: direct(registry.get(op_type + half), ins, attrs, None))


# (conv2d_transpose's Input, Filter [C_in, C_out/groups, kh, kw], attributes)
TRANSPOSES = [
    ((2, 8, 6, 6), (8, 16, 3, 3), {"paddings": [1, 1]}),
    ((2, 3, 5, 5), (3, 4, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}),
    ((2, 4, 5, 5), (4, 2, 3, 3), {"groups": 2, "output_size": [11, 11], "strides": [2, 2]}),
    ((2, 16, 8, 8), (16, 8, 3, 3), {"paddings": [1, 1]}),
]


def conv2d_transpose(results, record, direct, rng):
    """conv2d_transpose and its grad ops (conv2d's kernels with the roles swapped) on TRANSPOSES."""
    from pe_cli.ops import registry

    for i, (x_shape, w_shape, extra) in enumerate(TRANSPOSES):
        for dtype in ("float32", "float64"):
            fwd = registry.get("conv2d_transpose")
            attrs = dict(fwd.default_attrs(), **extra)
            x, w = _values(rng, x_shape, dtype), _values(rng, w_shape, dtype)
            key = f"conv2d_transpose|{i}|{dtype}"
            record(results, key, lambda: direct(fwd, {"Input": x, "Filter": w}, attrs, None))
            try:
                out = np.asarray(direct(fwd, {"Input": x, "Filter": w}, attrs, None)["Output"])
            except Exception:
                continue
            ins = {"Input": x, "Filter": w, "Output@GRAD": _values(rng, out.shape, dtype)}
            for suffix in ("_grad", "_grad_input", "_grad_filter"):
                grad = registry.get("conv2d_transpose" + suffix)
                record(results, f"{key}|{suffix}", lambda: direct(grad, ins, attrs, None))

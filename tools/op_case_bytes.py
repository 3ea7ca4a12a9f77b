"""The bytes an op family computes, to compare two trees bit for bit (a kernel rewritten, the same results).

``dump ROOT FAMILY... --out FILE``: runs every op case of tests/ops/cases_<FAMILY>.py of the tree ROOT
(set PYTHONPATH=ROOT too) through tests/op_test.py's harness, forward (run_forward) and gradient
(analytic_grads: the grad ops the registered grad maker appends), and, for the activation table, each
row's op and grad op called directly through its CPU kernel on further dtypes, shapes and contexts
(float16/32/64, ints where the row takes them, 0-D, empty, a large array; Paddle 2.x forms; in place),
for loss_classification softmax_with_cross_entropy and its grad op the same way (each form, label
dtypes, ignore_index, soft labels, another axis, empty, a label out of range), and for pooling, pool2d
and pool2d_grad through theirs on each variant's attributes (_POOLS: regular loops, 2x2 loops serial and
parallel, numpy's path, windows the loops do not take, adaptive, NHWC; Paddle 2.x's) and pool3d and pool3d_grad on _POOLS3D's; for pooling_mask, max_pool2d/3d_with_index on _MASK_POOLS'; for reduction, mean, reduce_* and
their gradients on _REDUCE_ATTRS' over dtypes and shapes, and fill_constant's forms; for linalg,
mul, mul_grad, fused_gemm_epilogue and its gradient on _MULS' and _GEMMS' shapes (_gemm: each path, dtype, split);
for optimizer, sgd and momentum through theirs (_updates: dtypes, sizes, in place or not, Paddle 2.x's terms
and master copy, row-sparse values) and the numpy updates' cases in three dtypes (_numpy_updates); for
elementwise, the binary elementwise ops and their gradients on _EW_SHAPES' shapes (every variant), dtypes and meanings,
and scale, clip and clip_grad on further dtypes, shapes, attributes and contexts (scale_case_bytes.py);
for dropout, dropout and dropout_grad on each variant with seeded draws (_dropout); for manipulation, cast
between _CAST_DTYPES (_casts);
for normalization, layer_norm and layer_norm_grad through theirs on _LN_FORMS (dtypes, params given or not, layouts),
batch_norm and its gradients on tools/batch_norm_case_bytes.py's dtypes, layouts and modes;
for softmax (its op cases: cases_activation's of softmax and log_softmax), the two and their gradients on
_softmax's dtypes, shapes and axes;
for joining (the op cases of concat, split, stack, unstack, unbind and sum), those ops and their grad ops through their
kernels and executor steps on tools/joining_case_bytes.py's dtypes, shapes, axes and sum's forms;
for embedding, lookup_table(_v2) and their gradients on tools/embedding_case_bytes.py's dtypes, ids and padding;
for gather (no op cases of its own: indexing's and gather_scatter's), gather, gather_nd, scatter, scatter_nd_add,
index_select, their gradients and one_hot(_v2) on tools/gather_case_bytes.py's dtypes, indices, axes and refusals;
for top_k (no op cases of its own: indexing's and selecting's), top_k, top_k_v2, their gradients, arg_max and
arg_min on tools/top_k_case_bytes.py's dtypes, ties, k, axes and attributes;
for logic, the comparisons, logical and bitwise ops and the finiteness checks on tools/logic_case_bytes.py's dtypes,
broadcast forms and layouts;
for pointwise_math, its unary, binary and ternary ops and their grad ops through their kernels and executor steps on
tools/pointwise_case_bytes.py's dtypes, edge values, shapes, broadcast forms and attributes; for special, the
special functions and their grad ops the same way on tools/special_case_bytes.py's; for primitive, the ``*_p`` ops
on tools/primitive_case_bytes.py's;
for reshaping (the op cases of reshape, squeeze, unsqueeze, flatten(_contiguous_range), transpose, their ``*2`` twins
and grad ops), those ops through their kernels and executor steps on tools/reshaping_case_bytes.py's forms, each
output's layout (contiguity, a view of X or a copy) beside its bytes;
for matmul (the op cases of matmul, matmul_v2, bmm and addmm), the family's ops through their CPU kernels on
tools/matmul_case_bytes.py's dtypes, shapes, flags, layouts and thread settings;
for loss_classification also cross_entropy(2) and sigmoid_cross_entropy_with_logits and their gradients on
tools/cross_entropy_case_bytes.py's dtypes, shapes and labels, and its other losses (label_smooth, kldiv_loss,
nll_loss, the two-class losses) and their gradients on tools/loss_case_bytes.py's dtypes, shapes and attributes;
for loss_regression, loss_ranking and similarity (cos_sim, squared_l2_distance, dist: Fluid's and Paddle 2.x's
contexts), their ops and gradients on tools/loss_case_bytes.py's too;
for slicing (the op cases of slice, strided_slice, expand, tile, expand_as, expand_v2, expand_as_v2 in
cases_indexing, cases_indexing_tensor_bounds, cases_manipulation and cases_broadcasting), those ops and their grad
ops through their kernels and executor steps on tools/slicing_case_bytes.py's forms;
for conv2d (its op cases: cases_convolution's, cases_convolution_geometry's and cases_convolution_transpose's of
the conv2d ops), the conv2d family's and conv2d_transpose's ops on tools/conv_case_bytes.py's geometries;
for padding, pad, pad2d, pad3d, pad_constant_like, crop, crop_tensor and their grad ops through their kernels and
executor steps on tools/padding_case_bytes.py's dtypes, layouts, modes and paddings given by tensors;
for cumulative (cumprod, cummax, cummin, logcumsumexp) and channel_rearranging (pixel_unshuffle, channel_shuffle),
those ops and their grad ops on tools/cumulative_case_bytes.py's dtypes, layouts, axes, attributes and steps;
for diagonals (diag_v2, diagonal, fill_diagonal) the same way;
for creation and filling, their ops and grad ops through their kernels and executor steps on
tools/creation_case_bytes.py's dtypes, layouts, attributes and shapes given by tensors;
for matrix (addmm, dot, cross, kron, trace, bilinear_tensor_product), those ops and their grad ops on
tools/matrix_case_bytes.py's dtypes (mixed ones too), shapes, layouts, attributes and contexts; for quantization
and quantization_linear, their ops on tools/quantization_case_bytes.py's dtypes, layouts, forms and attributes; for
metric, its ops on tools/metric_case_bytes.py's; for adamw, its loss scaling ops, merged_adam and
pow2_decay_with_linear_warmup on tools/loss_scaling_case_bytes.py's; for optimizer also lr_schedule,
average_accumulates, dpsgd and dgc_momentum on tools/schedule_case_bytes.py's; for fused_optimizer, the fused
updates on tools/fused_update_case_bytes.py's lists, dtypes, row-sparse gradients, attributes and in-place runs; for
loss_identity, masked_softmax and partial_columns, their ops and grad ops on tools/small_ops_case_bytes.py's, and
minus, clip_by_norm with dgc_clip_by_norm and div_grad_grad (elementwise_div_grad_grad: no op cases of their own)
and cvm the same way; for norm_double_grad, data_norm, pyramid_hash, rank_attention, hashing, dequant,
merged_momentum, numerics and graph_sampling, their ops (batch/instance_norm_grad_grad, data_norm(_grad),
pyramid_hash(_grad), rank_attention(_grad), hash, lookup_table_dequant, merged_momentum, check_numerics,
weighted_sample_neighbors) on tools/assorted_case_bytes.py's;
for misc (the paddle.fft ops, einsum, renorm, masked_select, segment_pool, set_value,
unique_consecutive, viterbi_decode and their grad ops: no op cases of its own; their families' are fft, einsum,
renormalizing, selecting, segment_pooling, slice_assignment, unique_runs, viterbi) on tools/misc_case_bytes.py's
dtypes, layouts, attributes, refusals and steps;
for fused_ops (fc, the fused elementwise, batch norm, attention and matrix ops, inplace_abn,
add_position_encoding, fusion_group: no op cases of their own) the same way on tools/fused_case_bytes.py's; for norms
(affine_channel, lrn, norm, instance_norm, group_norm)
the same way on tools/norm_case_bytes.py's; for linalg_lapack
(the numpy/LAPACK linear algebra: ops/linalg_solve.py's, linalg_decomposing.py's, linalg_decomposition.py's, inverse,
cholesky, spectral_norm) and their grad ops on tools/linalg_case_bytes.py's dtypes, layouts, shapes and attributes;
for images (the
resize ops, affine_grid, grid_sampler, fsp, the permutation ops, similarity_focus, unfold) the same way and as
executor steps on tools/image_case_bytes.py's;
for sequence, sequence_pool, sequence_softmax and their
grad ops on tools/sequence_case_bytes.py's dtypes, shapes, LoDs and pool types, and as steps run on two LoDs (for
sequence_rows, sequence_reverse, sequence_expand, sequence_pad and their grad ops the same way; for sequence_shape,
sequence_expand_as and sequence_reshape and their grad ops, with their outputs' LoD and views, and lod_reset's forms);
for structured_prediction, linear_chain_crf, crf_decoding, ctc_align, warpctc and grad ops on its LoD and padded forms;
for recurrent, gru, lstm, their unit forms and grad ops on tools/rnn_case_bytes.py's dtypes, LoDs, states and attributes;
for random, sampling and complex, their ops and grad ops with seeded draws on tools/random_case_bytes.py's dtypes,
shapes, layouts, engines, attributes, shapes given by tensors and executor steps;
for searching (no op cases of its own: the ten families' of where, argsort, unique, flip, roll, shape,
take_along_axis, index_sample, kthvalue, bincount, searchsorted, broadcast_tensors, index_put, fold, frame and the
rest), those ops and their grad ops on tools/indexing_case_bytes.py's dtypes, layouts, ties, attributes and steps;
for rnn, transducer, batch_shuffle and sparse, Paddle 2.x's rnn op, warprnnt, shuffle_batch, the selected-rows ops
and their grad ops on tools/rnn_transducer_rows_case_bytes.py's modes, dtypes, lengths, seeds, rows and steps;
for host (no op cases of its own: dependencies', tensor_storage's, printing's and assertions'), the dependency ops,
transfer_dtype, coalesce_tensor, delete_var, feed, fetch, print, assert, save(_combine) and load(_combine) through
their kernels and executor steps on tools/host_case_bytes.py's dtypes, layouts, attributes, LoDs, files and refusals;
for collectives, the ring collective ops (Fluid's and Paddle 2.x's), c_embedding and its gradient the same way on
tools/collectives_case_bytes.py's dtypes, layouts, nranks, PADDLE_TRAINERS_NUM settings and refusals;
for control_flow, its tensor-array, mask and branch ops the same way and its block ops through tests' programs on
tools/control_flow_case_bytes.py's;
for dist (the op cases of distributed and py_func), the parameter-server, parameter-service, reader and py_func ops
the same way on tools/dist_case_bytes.py's dtypes, ids, row-sparse tables, attributes and refusals;
writes every result's dtype, shape and bytes (an error's type and message where one is raised) to FILE
(.npz); ``--threads 2``: as on a device of two threads (the parallel loops). ``compare A B``: how many results the two files hold, how many are equal, and the first that differ.

    PYTHONPATH=/work/main python tools/op_case_bytes.py dump /work/main activation activation_math --out a.npz
    PYTHONPATH=. python tools/op_case_bytes.py dump . activation activation_math --out b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import argparse
import importlib
import itertools
import os
import sys

import numpy as np


def _as_array(value):
    value = value.to_dense() if hasattr(value, "to_dense") else value
    return np.asarray(value)


def _record(results, key, fn):
    try:
        outs = fn()
    except Exception as e:  # the same refusal is part of the same behaviour
        results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
        return
    for name, value in sorted(outs.items()):
        a = _as_array(value)
        data = repr(a.tolist()).encode() if a.dtype == object else a.tobytes()  # (not an object's address)
        results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(data, dtype=np.uint8)


def _op_cases(root, families, results):
    sys.path[:0] = [os.path.join(root, "tests"), root]
    op_test = importlib.import_module("op_test")
    generator = importlib.import_module("pe_cli.framework.default_generator")
    for family in families:
        for i, case in enumerate(_family_cases(family)):
            key = f"case|{family}|{i}|{case.id}"
            generator.manual_seed(1000 + i)  # (paddle.seed's: a random op's draws the same in both trees)
            _record(results, key + "|forward", lambda: op_test.run_forward(case))
            if case.grad:
                _record(results, key + "|grad", lambda: op_test.analytic_grads(case)[0])


# (tools/assorted_case_bytes.py's families; their op cases: normalization's, pyramid_hash's, rank_attention's,
# hashing's, embedding's, momentum's, numerics' and graph_sampling's)
_ASSORTED = (
    "norm_double_grad",
    "data_norm",
    "pyramid_hash",
    "rank_attention",
    "hashing",
    "dequant",
    "merged_momentum",
    "numerics",
    "graph_sampling",
)
_SOFTMAX_OPS = ("softmax", "softmax_grad", "log_softmax", "log_softmax_grad")
_SLICING = ("slice", "strided_slice", "expand", "tile", "expand_as", "expand_v2", "expand_as_v2")
_JOINING = ("concat", "concat_grad", "split", "stack", "stack_grad", "unstack", "unstack_grad", "sum", "unbind")
_RESHAPING = ("reshape", "squeeze", "unsqueeze", "flatten", "flatten_contiguous_range", "transpose")


def _family_cases(family):
    """The op cases of ``family``: tests/ops/cases_<family>.py's, and for softmax cases_activation's of its ops."""
    if family == "host":
        return []
    if family == "dist":  # (tools/dist_case_bytes.py's forms; its op cases: distributed's and py_func's)
        return [c for f in ("distributed", "py_func") for c in importlib.import_module(f"tests.ops.cases_{f}").CASES]
    if family == "softmax":
        return [c for c in importlib.import_module("tests.ops.cases_activation").CASES if c.op in _SOFTMAX_OPS]
    if family == "reshaping":  # (their op cases in three files: manipulation's, flattening's, tensor attributes')
        files = ("manipulation", "flattening", "tensor_attrs")
        cases = [c for f in files for c in importlib.import_module(f"tests.ops.cases_{f}").CASES]
        return [c for c in cases if c.op.split("_grad")[0].rstrip("2") in _RESHAPING]
    if family == "matmul":  # (matmul, matmul_v2 and bmm, and addmm, which runs matmul's kernels)
        cases = (
            importlib.import_module("tests.ops.cases_linalg").CASES
            + importlib.import_module("tests.ops.cases_matrix").CASES
        )
        return [c for c in cases if c.op in ("matmul", "matmul_v2", "bmm", "addmm")]
    if family == "slicing":  # (their op cases in four files)
        files = ("indexing", "indexing_tensor_bounds", "manipulation", "broadcasting")
        cases = [c for f in files for c in importlib.import_module(f"tests.ops.cases_{f}").CASES]
        return [c for c in cases if c.op in _SLICING]
    if family == "joining":  # (concat, split, stack, unstack and sum: their cases in four files)
        names = ("manipulation", "elementwise", "tensor_attrs", "sparse")
        cases = [c for n in names for c in importlib.import_module(f"tests.ops.cases_{n}").CASES]
        return [c for c in cases if c.op in _JOINING]
    if family == "conv2d":  # (conv2d's, the irregular geometries', conv2d_transpose's: conv2d's kernels)
        names = ("convolution", "convolution_geometry", "convolution_transpose")
        cases = [c for n in names for c in importlib.import_module(f"tests.ops.cases_{n}").CASES]
        return [c for c in cases if "conv2d" in c.op]
    if family in (
        "gather",
        "top_k",
        "norms",
        "images",
        "searching",
        "recurrent",
        "structured_prediction",
        "sampled",
        "beams",
    ):  # (tools/gather_case_bytes.py's, top_k_case_bytes.py's, norm_case_bytes.py's, image_case_bytes.py's,
        # indexing_case_bytes.py's, rnn_case_bytes.py's forms alone)
        return []
    if family in ("norm_double_grad", "data_norm", "dequant", "merged_momentum"):
        return []  # (tools/assorted_case_bytes.py's forms alone: their op cases are in other families' files)
    if (
        family
        in (
            "linalg_lapack",
            "minus",
            "clip_by_norm",
            "div_grad_grad",
            "misc",
            "fused_ops",
        )
    ):  # (tools/linalg_case_bytes.py's, small_ops_case_bytes.py's, misc_case_bytes.py's, fused_case_bytes.py's forms alone)
        return []
    return importlib.import_module(f"tests.ops.cases_{family}").CASES


def _softmax(results, rng):
    """softmax, log_softmax and their grad ops through their CPU kernels: float16/32/64 and int32 values, 0-D,
    empty (along the axis and beside it), rows, a large array (rows in parts), each axis, negative and out of
    range; the gradients on the forward's Out with dOut of its dtype, and of float64 beside float32 Out."""
    from pe_cli.ops import registry

    for op in ("softmax", "log_softmax"):
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        for dtype in ("float16", "float32", "float64", "int32"):
            for shape in [(), (0,), (0, 5), (5, 0), (7,), (3, 5), (2, 3, 4), (300, 1000), (64, 4, 28, 28)]:
                x = (rng.uniform(-4, 4, size=shape) * (30 if dtype == "int32" else 1)).astype(dtype)
                for axis in (-1, 0, 1, -2, 2, 3, 5, -6):
                    attrs = dict(fwd.default_attrs(), axis=axis)
                    key = f"softmax|{op}|{dtype}|{shape}|{axis}"
                    _record(results, key, lambda: _direct(fwd, {"X": x}, attrs, None))
                    try:
                        out = _as_array(_direct(fwd, {"X": x}, attrs, None)["Out"])
                    except Exception:
                        continue
                    for d in dict.fromkeys([out.dtype.name, "float64"]):
                        gins = {"Out": out, "Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(d)}
                        _record(results, f"{key}|grad|{d}", lambda: _direct(grad, gins, attrs, None))


def _inputs(row, rng, dtype, shape):
    x = rng.uniform(-3, 3, size=shape)
    if row.name in ("log", "sqrt", "rsqrt", "log1p", "reciprocal", "pow"):
        x = np.abs(x) + 0.25
    return x.astype(dtype)


def _table(results):
    from pe_cli.base.activations import TABLE
    from pe_cli.base.activations_paddle2_forms import PADDLE2_FORMS
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng = np.random.default_rng(5)
    for row in TABLE:
        fwd = registry.get(row.name)
        dtypes = ["float16", "float32", "float64"] + (["int32", "int64"] if row.dtypes is None else [])
        attrs = dict(fwd.default_attrs())
        if row.name in PADDLE2_FORMS:
            attrs[row.params[0].name] = {"leaky_relu": 2.0, "elu": -0.5, "hard_shrink": -0.2}[row.name]
        for dtype in dtypes:
            for shape in [(), (0,), (3, 5), (1 << 17) + 3]:
                x = _inputs(row, rng, dtype, shape)
                for told in ("none", "paddle2", "inplace"):
                    ctx = KernelContext(paddle2=told == "paddle2", inplace=told == "inplace")
                    key = f"table|{row.name}|{dtype}|{shape}|{told}"
                    _record(results, key, lambda: _direct(fwd, {"X": x.copy()}, attrs, ctx))
                    if row.derivative is None or (row.name + "_grad") not in registry.all_op_types():
                        continue
                    grad = registry.get(row.name + "_grad")
                    out = _as_array(_direct(fwd, {"X": x.copy()}, attrs, KernelContext())["Out"])
                    ins = {"X": x, "Out": out}
                    gins = {s.name: ins[s.name].copy() for s in grad.inputs if s.name in ins}
                    gins["Out@GRAD"] = rng.uniform(-1, 1, size=np.shape(x)).astype(dtype)
                    _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, ctx))


def _softmax_ce(results):
    """softmax_with_cross_entropy and its grad op through their CPU kernels: each form (one loop, the wide
    float32 rows, float64's numpy exp between loops, numpy's), int64 and int32 labels, ignore_index, soft
    labels, another axis, empty logits, float16, a label out of range."""
    from pe_cli.ops import registry

    rng = np.random.default_rng(7)
    fwd, grad = registry.get("softmax_with_cross_entropy"), registry.get("softmax_with_cross_entropy_grad")
    for dtype in ("float16", "float32", "float64"):
        for shape, axis in [
            ((8, 10), -1),
            ((3, 4, 5), -1),
            ((3, 4, 5), 1),
            ((0, 10), -1),
            ((4, 2000), -1),
            ((10,), -1),
        ]:
            for label_kind in ("int64", "int32", "ignored", "soft", "bad"):
                logits = rng.uniform(-4, 4, size=shape).astype(dtype)
                lshape = list(shape)
                lshape[axis] = 1
                if label_kind == "soft":
                    label = rng.uniform(0, 1, size=shape).astype(dtype)
                else:
                    label = rng.integers(0, shape[axis], size=lshape).astype(
                        "int32" if label_kind == "int32" else "int64"
                    )
                    if label_kind == "ignored" and label.size:
                        label.reshape(-1)[::3] = -100
                    if label_kind == "bad" and label.size:
                        label.reshape(-1)[-1] = shape[axis] + 2
                attrs = dict(fwd.default_attrs(), axis=axis, soft_label=label_kind == "soft")
                key = f"softmax_ce|{dtype}|{shape}|{axis}|{label_kind}"
                _record(results, key, lambda: _direct(fwd, {"Logits": logits, "Label": label}, attrs, None))
                try:
                    soft = _as_array(_direct(fwd, {"Logits": logits, "Label": label}, attrs, None)["Softmax"])
                except Exception:
                    continue
                dloss = rng.uniform(-1, 1, size=lshape).astype(dtype)
                gins = {"Label": label, "Softmax": soft, "Loss@GRAD": dloss}
                _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, None))


_POOLS = [  # pool2d's attributes beyond its defaults, one per variant and loop its meta rule chooses
    dict(ksize=[2, 2], strides=[2, 2]),
    dict(ksize=[2, 2], strides=[2, 2], pooling_type="avg"),
    dict(ksize=[3, 3], strides=[1, 1], paddings=[1, 1]),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg"),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg", exclusive=False),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[0, 1, 1, 0], pooling_type="avg", exclusive=False, ceil_mode=True),
    dict(ksize=[3, 3], strides=[2, 2], ceil_mode=True),
    dict(global_pooling=True, pooling_type="avg"),
    dict(global_pooling=True),
    dict(adaptive=True, ksize=[3, 2], pooling_type="avg"),
    dict(adaptive=True, ksize=[3, 2]),
    dict(ksize=[2, 2], strides=[2, 2], paddings=[2, 2]),
    dict(ksize=[2, 2], strides=[1, 1], paddings=[2, 2], pooling_type="avg"),
    dict(ksize=[0, 2], strides=[1, 1]),
    dict(ksize=[2, 2], strides=[2, 2], data_format="NHWC"),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg", data_format="NHWC"),
    dict(ksize=[20, 20], strides=[1, 1]),
]


def _pooling(results):
    """pool2d and pool2d_grad through their CPU kernels: every variant of _POOLS on float16/32/64 and int32
    values of a few shapes (a large batch: the parallel 2x2 loops), Fluid's and Paddle 2.x's meanings."""
    from pe_cli.ops import registry

    rng = np.random.default_rng(9)
    fwd, grad = registry.get("pool2d"), registry.get("pool2d_grad")
    for i, extra in enumerate(_POOLS):
        attrs = dict(fwd.default_attrs(), **extra)
        for dtype in ("float16", "float32", "float64", "int32"):
            for shape in [(2, 3, 8, 8), (1, 2, 7, 9), (16, 8, 64, 64)]:
                if dtype == "float16" and shape[0] == 16:
                    continue
                x = rng.uniform(-3, 3, size=shape)
                x = (x * 10 if dtype == "int32" else x).astype(dtype)
                x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if extra.get("data_format") == "NHWC" else x
                _pool_and_grad(results, rng, (fwd, grad), f"pool|{i}|{dtype}|{shape}", x, attrs)
    _pooling3d(results, rng)


def _pool_and_grad(results, rng, ops, key, x, attrs):
    """A pool op and its grad op on ``x``, in Fluid's meaning and in Paddle 2.x's."""
    from pe_cli.kernels.context import KernelContext

    fwd, grad = ops
    for paddle2 in (False, True):
        ctx, k = KernelContext(paddle2=paddle2), f"{key}|{paddle2}"
        _record(results, k, lambda: _direct(fwd, {"X": x}, attrs, ctx))
        try:
            out = _as_array(_direct(fwd, {"X": x}, attrs, ctx)["Out"])
        except Exception:
            continue
        gins = {"X": x, "Out": out, "Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(x.dtype)}
        _record(results, k + "|grad", lambda: _direct(grad, gins, attrs, ctx))


_POOLS3D = [
    dict(ksize=[2, 2, 2], strides=[2, 2, 2]),
    dict(ksize=[3, 2, 3], strides=[2, 1, 2], paddings=[1, 0, 1], pooling_type="avg"),
    dict(ksize=[3, 3, 3], strides=[2, 2, 2], paddings=[1, 1, 1], pooling_type="avg", exclusive=False, ceil_mode=True),
    dict(adaptive=True, ksize=[2, 3, 2], pooling_type="avg"),
    dict(adaptive=True, ksize=[2, 3, 2]),
    dict(global_pooling=True),
    dict(ksize=[2, 2, 2], strides=[2, 2, 2], data_format="NDHWC"),
    dict(ksize=[9, 9, 9], strides=[1, 1, 1]),
]


def _pooling3d(results, rng):
    """pool3d and pool3d_grad through their CPU kernels on _POOLS3D's attributes."""
    from pe_cli.ops import registry

    fwd, grad = registry.get("pool3d"), registry.get("pool3d_grad")
    for i, extra in enumerate(_POOLS3D):
        attrs = dict(fwd.default_attrs(), **extra)
        for dtype in ("float32", "float64", "int32"):
            for shape in [(2, 3, 4, 6, 5), (1, 2, 7, 3, 8)]:
                x = rng.uniform(-3, 3, size=shape)
                x = (x * 10 if dtype == "int32" else x).astype(dtype)
                _pool_and_grad(results, rng, (fwd, grad), f"pool3d|{i}|{dtype}|{shape}", x, attrs)


_MASK_POOLS = [  # max_pool2d/3d_with_index's attributes (per spatial dim): fixed windows, padded, adaptive, global, empty
    dict(ksize=[2], strides=[2]),
    dict(ksize=[3], strides=[2], paddings=[1]),
    dict(ksize=[2], adaptive=True),
    dict(global_pooling=True),
    dict(ksize=[2], strides=[1], paddings=[2]),
]


def _mask_pooling(results, rng):
    """max_pool2d_with_index and max_pool3d_with_index (and their gradients) through their CPU kernels."""
    from pe_cli.ops import registry

    for n, op in ((2, "max_pool2d_with_index"), (3, "max_pool3d_with_index")):
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        for i, extra in enumerate(_MASK_POOLS):
            attrs = dict(fwd.default_attrs(), **{k: v * n if isinstance(v, list) else v for k, v in extra.items()})
            for dtype in ("float32", "float64"):
                x = rng.uniform(-3, 3, size=(2, 3) + (5, 6, 4)[:n]).astype(dtype)
                key = f"mask|{op}|{i}|{dtype}"
                _record(results, key, lambda: _direct(fwd, {"X": x}, attrs, None))
                try:
                    outs = _direct(fwd, {"X": x}, attrs, None)
                except Exception:
                    continue
                dout = rng.uniform(-1, 1, size=outs["Out"].shape).astype(dtype)
                gins = {"X": x, "Mask": outs["Mask"], "Out@GRAD": dout}
                _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, None))


_REDUCE_ATTRS = [  # the reductions' attributes beyond their defaults: one dim, dims kept, all, Paddle 2.x's dim=[],
    # out_dtype, a repeated dim, a dim out of range (wrapped)
    dict(dim=[1]),
    dict(dim=[0, -1], keep_dim=True),
    dict(reduce_all=True),
    dict(reduce_all=True, keep_dim=True),
    dict(dim=[]),
    dict(dim=[-1], out_dtype=6),
    dict(dim=[0], out_dtype=5, keep_dim=True),
    dict(dim=[1, 1]),
    dict(dim=[3]),
]
_REDUCE_OPS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_amax", "reduce_amin")


def _reductions(results, rng):
    """mean, reduce_sum/mean/max/min/prod/all/any (reduce_amax/amin) and their gradients through their CPU
    kernels: every _REDUCE_ATTRS row on float16/32/64, int32, int64 and bool values of a few shapes (0-D,
    empty, a large one: mean's loop), with and without a 0-D result (zero_dim); fill_constant's forms."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    shapes = [(), (0, 3), (3, 4, 5), (2, 1)]
    for dtype in ("float16", "float32", "float64", "int32", "int64", "bool"):
        for shape in shapes + [((1 << 17) + 3,)]:
            x = (rng.uniform(-3, 3, size=shape) * (10 if dtype[0] == "i" else 1)).astype(dtype)
            for zero_dim in (False, True):
                ctx, key = KernelContext(zero_dim=zero_dim), f"reduce|mean|{dtype}|{shape}|{zero_dim}"
                _record(results, key, lambda: _direct(registry.get("mean"), {"X": x}, {}, ctx))
                dout = np.full((), 0.37 if dtype[0] == "f" else 3).astype(dtype)
                for d in (dout, dout.astype("float64")):
                    gins = {"X": x, "Out@GRAD": d.reshape(() if zero_dim else (1,))}
                    _record(results, f"{key}|grad|{d.dtype}", lambda: _direct(registry.get("mean_grad"), gins, {}, ctx))
            if shape == ((1 << 17) + 3,):
                continue
            for op in _REDUCE_OPS + ("reduce_all", "reduce_any"):
                for i, extra in enumerate(_REDUCE_ATTRS):
                    attrs = dict(registry.get(op).default_attrs(), **extra)
                    _reduce_and_grad(results, rng, op, f"reduce|{op}|{i}|{dtype}|{shape}", x, attrs)
    _fills(results)
    _running_sums_and_norms(results, rng, shapes)
    _norms(results, rng, shapes)


def _reduce_and_grad(results, rng, op, key, x, attrs):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    for zero_dim in (False, True):
        ctx, k = KernelContext(zero_dim=zero_dim), f"{key}|{zero_dim}"
        _record(results, k, lambda: _direct(registry.get(op), {"X": x}, attrs, ctx))
        if op + "_grad" not in registry.all_op_types():
            continue
        try:
            out = _as_array(_direct(registry.get(op), {"X": x}, attrs, ctx)["Out"])
        except Exception:
            continue
        gins = {"X": x, "Out": out, "Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(out.dtype)}
        _record(results, k + "|grad", lambda: _direct(registry.get(op + "_grad"), gins, attrs, ctx))


def _running_sums_and_norms(results, rng, shapes):
    """cumsum (each form), squared_l2_norm, logsumexp and their gradients through their CPU kernels."""
    from pe_cli.ops import registry

    ops = {t: registry.get(t) for t in ("cumsum", "squared_l2_norm", "squared_l2_norm_grad", "logsumexp")}
    sums = [{}, dict(axis=0), dict(axis=-2, exclusive=True), dict(reverse=True), dict(exclusive=True, reverse=True)]
    sums += [dict(flatten=True), dict(axis=5)]
    lses = [dict(axis=[1]), dict(axis=[0, -1], keepdim=True), dict(reduce_all=True), dict(axis=[]), dict(axis=[1, 1])]
    for dtype in ("float16", "float32", "float64", "int32", "int64", "bool"):
        for shape in shapes:
            x = (rng.uniform(-3, 3, size=shape) * (10 if dtype[0] == "i" else 1)).astype(dtype)
            if x.ndim and x.size and dtype[0] == "f":
                x.reshape(-1)[0] = np.inf
            key = f"sums|{dtype}|{shape}"
            for i, extra in enumerate(sums):
                attrs = dict(ops["cumsum"].default_attrs(), **extra)
                _record(results, f"{key}|cumsum|{i}", lambda: _direct(ops["cumsum"], {"X": x}, attrs, None))
            _record(results, f"{key}|l2", lambda: _direct(ops["squared_l2_norm"], {"X": x}, {}, None))
            for d in (np.array([0.5], dtype), np.array([0.5])):
                gins = {"X": x, "Out@GRAD": d}
                _record(results, f"{key}|l2|{d.dtype}", lambda: _direct(ops["squared_l2_norm_grad"], gins, {}, None))
            for i, extra in enumerate(lses):
                attrs = dict(ops["logsumexp"].default_attrs(), **extra)
                _reduce_and_grad(results, rng, "logsumexp", f"{key}|lse|{i}", x, attrs)


_P_NORMS = [
    dict(porder=p, **extra)
    for p in (2.0, 1.0, 3.5, 0.0, np.inf, -np.inf)
    for extra in (dict(), dict(axis=0, keepdim=True), dict(asvector=True), dict(asvector=True, keepdim=True))
]


def _norms(results, rng, shapes):
    """frobenius_norm, p_norm (each porder form, asvector), l1_norm and their gradients through their CPU kernels."""
    from pe_cli.ops import registry

    frob = [
        dict(dim=[1]),
        dict(dim=[0, -1], keep_dim=True),
        dict(reduce_all=True),
        dict(dim=[]),
        dict(dim=[1], out_dtype=6),
    ]
    for dtype in ("float16", "float32", "float64", "int32"):
        for shape in shapes:
            x = (rng.uniform(-3, 3, size=shape) * (10 if dtype[0] == "i" else 1)).astype(dtype)
            if x.ndim and x.size > 2:
                x.reshape(-1)[1] = 0
            key = f"norms|{dtype}|{shape}"
            for i, extra in enumerate(frob):
                attrs = dict(registry.get("frobenius_norm").default_attrs(), **extra)
                _reduce_and_grad(results, rng, "frobenius_norm", f"{key}|frob|{i}", x, attrs)
            for i, extra in enumerate(_P_NORMS):
                attrs = dict(registry.get("p_norm").default_attrs(), **extra)
                _reduce_and_grad(results, rng, "p_norm", f"{key}|p|{i}", x, attrs)
            _reduce_and_grad(results, rng, "l1_norm", f"{key}|l1", x, {})


def _fills(results):
    """fill_constant: value, str_value, dtypes, shapes, ValueTensor, ShapeTensor, ShapeTensorList."""
    from pe_cli.ops import registry

    fill = registry.get("fill_constant")
    for dtype in ("float16", "float32", "float64", "int32", "int64", "bool", "uint8"):
        for shape in ([2, 3], [], [0], [4]):
            for extra in (dict(value=1.5), dict(value=-2.0), dict(str_value="123456789012345678"), dict(str_value="x")):
                attrs = dict(fill.default_attrs(), shape=shape, dtype=dtype, **extra)
                _record(results, f"fill|{dtype}|{shape}|{extra}", lambda: _direct(fill, {}, attrs, None))
        attrs = dict(fill.default_attrs(), shape=[5], dtype=dtype, value=3.0)
        for given in (
            {"ValueTensor": np.array([2.5], np.float32)},
            {"ValueTensor": np.array([1 << 60], np.int64)},
            {"ShapeTensor": np.array([2, 3], np.int32)},
            {"ShapeTensorList": [np.array([2], np.int64), np.array([1], np.int32)]},
            {"ShapeTensor": np.array([3], np.int64), "ValueTensor": np.array([7], np.int32)},
        ):
            _record(results, f"fill|{dtype}|{sorted(given)}|{given}", lambda: _direct(fill, given, attrs, None))


_MULS = [  # mul's (X, Y, x_num_col_dims, y_num_col_dims): plain, flattened, k = 1, empty, k = 0, large, wide
    ((4, 5), (5, 3), 1, 1),
    ((2, 3, 4), (12, 5), 1, 1),
    ((2, 3, 4), (4, 5, 2), 2, 1),
    ((6, 1), (1, 7), 1, 1),
    ((0, 5), (5, 3), 1, 1),
    ((4, 0), (0, 3), 1, 1),
    ((300, 256), (256, 128), 1, 1),
    ((64, 512), (512, 64), 1, 1),
    ((16, 64), (64, 1024), 1, 1),
]
_GEMMS = [  # fused_gemm_epilogue's (X, Y, trans_x, trans_y)
    ((4, 5), (5, 3), False, False),
    ((2, 3, 5), (5, 7), False, False),
    ((5, 4), (5, 3), True, False),
    ((5, 2, 3), (7, 5), True, True),
    ((4, 5), (3, 5), False, True),
    ((6, 1), (1, 7), False, False),
    ((300, 256), (256, 128), False, False),
    ((256, 300), (128, 256), True, True),
]


def _gemm(results, rng):
    """mul, mul_grad, fused_gemm_epilogue and its gradient through their CPU kernels (_MULS, _GEMMS) in float16,
    float32, float64, ints, complex64 and mixed dtypes, each gradient output alone and all; on 1 thread, on 2
    (the large GEMMs in blocks) and with every float GEMM counted large."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.kernels.cpu.runtime import threads
    from pe_cli.ops import registry

    ops = [registry.get(t) for t in ("mul", "mul_grad", "fused_gemm_epilogue", "fused_gemm_epilogue_grad")]
    split, share = threads.SPLIT_GEMM_MACS, threads._quiet_share
    for setting, (parts, macs) in enumerate([(1, split), (2, split), (2, 1)]):
        threads._quiet_share, threads.SPLIT_GEMM_MACS = parts, macs
        try:
            for dtypes in ("float32",) * 2 + ("float64", "float16", "int32", "int64", "complex64", "float32+float64"):
                _gemm_cases(results, rng, ops, f"gemm|{setting}|{dtypes}", dtypes.split("+"), KernelContext)
        finally:
            threads._quiet_share, threads.SPLIT_GEMM_MACS = share, split


def _values(rng, shape, dtype):
    x = rng.uniform(-3, 3, size=shape)
    return (x * 3 if np.dtype(dtype).kind in "iu" else x).astype(dtype)


def _gemm_cases(results, rng, ops, key, dtypes, context):
    mul, mul_grad, fused, fused_grad = ops
    wanted = [None, ("X@GRAD",), ("Y@GRAD",)]
    for i, (xs, ys, xd, yd) in enumerate(_MULS):
        if max(map(np.prod, (xs, ys))) > 4096 and dtypes[0] not in ("float32", "float64"):
            continue
        x, y = _values(rng, xs, dtypes[0]), _values(rng, ys, dtypes[-1])
        attrs, k = dict(mul.default_attrs(), x_num_col_dims=xd, y_num_col_dims=yd), f"{key}|mul|{i}"
        _record(results, k, lambda: _direct(mul, {"X": x, "Y": y}, attrs, None))
        dout = _values(rng, xs[:xd] + ys[yd:], dtypes[0])
        for w in wanted:
            ctx = context(outputs=None if w is None else frozenset(w))
            _record(results, f"{k}|grad|{w}", lambda: _direct(mul_grad, {"X": x, "Y": y, "Out@GRAD": dout}, attrs, ctx))
    for i, (xs, ys, tx, ty) in enumerate(_GEMMS):
        if max(map(np.prod, (xs, ys))) > 4096 and dtypes[0] not in ("float32", "float64"):
            continue
        x, y = np.maximum(_values(rng, xs, dtypes[0]), 0), _values(rng, ys, dtypes[-1])
        n = ys[0] if ty else ys[1]
        bias, dout = _values(rng, (n,), dtypes[-1]), _values(rng, (xs[1:] if tx else xs[:-1]) + (n,), dtypes[0])
        for act in ("none", "relu"):
            attrs, k = dict(trans_x=tx, trans_y=ty, activation=act), f"{key}|fused|{i}|{act}"
            _record(results, k, lambda: _direct(fused, {"X": x, "Y": y, "Bias": bias}, attrs, None))
            gattrs = dict(trans_x=tx, trans_y=ty, activation_grad=act if act == "none" else "relu_grad")
            for w in [None, ("DX",), ("DY",), ("DBias",)]:
                ctx = context(outputs=None if w is None else frozenset(w))
                gins = {"DOut": dout, "X": x, "Y": y}
                _record(results, f"{k}|grad|{w}", lambda: _direct(fused_grad, gins, gattrs, ctx))


_EW_SHAPES = [  # (X's shape, Y's shape, axis): one per variant and form the meta rules choose
    ((3, 5), (3, 5), -1),  # same shapes
    ((4, 3, 5), (3,), 1),  # a bias along a middle dim
    ((4, 6), (6,), -1),  # a bias along the last dim
    ((6,), (6,), 0),
    ((1, 6, 2), (6,), 1),  # one row before the bias
    ((2, 3, 4), (3, 1), 1),
    ((3, 4), (2, 3, 4), -1),  # X smaller (numpy's broadcast)
    ((3,), (2, 3, 4), 1),  # X placed in Y
    ((3,), (3, 1), 0),  # X placed in Y as [3, 1]: Out@GRAD of X's aligned shape
    ((2, 3, 4), (1, 3, 1), -1),
    ((3, 4), (1,), -1),
    ((), (), -1),
    ((0, 3), (3,), -1),
    ((2, 3), (4,), -1),  # does not broadcast
    ((520, 260), (520, 260), -1),  # large: the threads' forms (same, one value a row, one row for all)
    ((520, 260), (520, 1), -1),
    ((520, 260), (260,), -1),
    ((4, 130, 260), (130,), 1),  # a large bias
    ((1, 520, 260), (520,), 1),
]


def _ew_value(rng, op, shape, dtype, divisor=False):
    x = rng.uniform(-3, 3, size=shape)
    if divisor or op == "pow":
        x = np.where(np.abs(x) < 0.5, 1.5, x) if op != "pow" else np.abs(x) + 0.25
    x = x * 10 if dtype.startswith("int") else x
    return x.astype(dtype)


def _elementwise(results):
    """The binary elementwise ops and their gradients through their CPU kernels: each variant's shapes
    (_EW_SHAPES) on float16/32/64 and int32/64 values, Fluid's and Paddle 2.x's meanings, in place, a
    transposed (not contiguous) X, X and Y of two dtypes, an int zero divisor."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng = np.random.default_rng(13)
    ops = ["add", "sub", "mul", "div", "max", "min", "pow", "floordiv", "mod"]
    for op in ops:
        fwd = registry.get(f"elementwise_{op}")
        grad = registry.get(f"elementwise_{op}_grad") if op not in ("floordiv", "mod") else None
        for xs, ys, axis in _EW_SHAPES:
            for dtype in ("float16", "float32", "float64", "int32", "int64"):
                x, y = _ew_value(rng, op, xs, dtype), _ew_value(rng, op, ys, dtype, divisor=True)
                attrs = dict(fwd.default_attrs(), axis=axis)
                for told in ("none", "paddle2", "inplace", "transposed", "mixed", "zero"):
                    ins = {"X": x.copy(), "Y": y.copy()}
                    if told == "transposed":
                        ins["X"] = np.ascontiguousarray(x.T).T
                    if told == "mixed":
                        ins["Y"] = y.astype("float64" if dtype == "float32" else "float32")
                    if told == "zero" and y.size:
                        ins["Y"] = y.copy()
                        ins["Y"].reshape(-1)[-1] = 0
                    ctx = KernelContext(paddle2=told == "paddle2", inplace=told == "inplace")
                    key = f"ew|{op}|{xs}|{ys}|{axis}|{dtype}|{told}"
                    _record(results, key, lambda: _direct(fwd, dict(ins), attrs, ctx))
                    if grad is None or told in ("inplace", "zero"):
                        continue
                    try:
                        out = _as_array(_direct(fwd, {"X": x, "Y": y}, attrs, KernelContext())["Out"])
                    except Exception:
                        continue
                    gins = dict(ins, Out=out, **{"Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(out.dtype)})
                    _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, ctx))


def _dropout(results):
    """dropout through its CPU kernel on each variant: is_test, p 0, 0.3 and 1, both implementations, a fixed
    seed, a Seed input, each drawn by numpy's Generator and by Paddle's engine (seeded anew for each call),
    float16/32/64 and int32, 0-D, empty and [60, 50]; dropout_grad on the masks drawn."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.kernels.cpu.mersenne_twister import Mt19937_64
    from pe_cli.ops import registry

    op, grad, rng = registry.get("dropout"), registry.get("dropout_grad"), np.random.default_rng(17)
    engines = {"numpy": lambda: np.random.default_rng(5), "paddle": lambda: Mt19937_64.from_int(5)}
    for dtype in ("float64", "float32", "float16", "int32"):
        for shape in ((), (0, 3), (3, 4), (60, 50)):
            x = _values(rng, shape, dtype)
            dout = _values(rng, shape, dtype)
            for p, impl, test, seeded in itertools.product(
                (0.0, 0.3, 1.0), ("downgrade_in_infer", "upscale_in_train"), (False, True), ("", "fix", "input")
            ):
                attrs = dict(op.default_attrs(), dropout_prob=p, dropout_implementation=impl, is_test=test)
                attrs.update(fix_seed=seeded == "fix", seed=11)
                ins = {"X": x, "Seed": np.array([123], np.int32)} if seeded == "input" else {"X": x}
                for name, engine in engines.items():
                    k = f"dropout|{dtype}|{shape}|{p}|{impl}|{test}|{seeded}|{name}"
                    _record(results, k, lambda: _direct(op, ins, attrs, KernelContext(rng=engine())))
                    mask = results.get(f"{k}|Mask|{np.dtype(np.uint8).str}|{shape}")
                    if mask is not None:
                        gins = {"Mask": mask.reshape(shape), "Out@GRAD": dout}
                        _record(results, f"{k}|grad", lambda: _direct(grad, gins, attrs, None))


_CAST_DTYPES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64")


def _casts(results, rng):
    """cast through its CPU kernel from and to each of _CAST_DTYPES, over values with NaN, infinities, float16's
    subnormals and overflows, negatives and fractions, 0-D, empty, and a Fortran-ordered and a strided X."""
    from pe_cli.ops import registry

    op = registry.get("cast")
    base = np.concatenate([rng.uniform(-300, 300, 40), [np.nan, np.inf, -np.inf, 1e-6, -3e-8, 7e4, -1e5, 0.5, -0.5]])
    for src in _CAST_DTYPES:
        with np.errstate(all="ignore"):
            x = base.astype(src)
        forms = {"flat": x, "2d": x.reshape(7, 7), "0d": x[3].reshape(()), "empty": x[:0].reshape(0, 3)}
        forms.update(fortran=np.asfortranarray(x.reshape(7, 7)), strided=x.reshape(7, 7)[::2, 1::3])
        for out in _CAST_DTYPES:
            for form, value in forms.items():
                attrs = dict(op.default_attrs(), out_dtype=out)
                _record(results, f"cast|{src}|{out}|{form}", lambda: _direct(op, {"X": value}, attrs, None))


_LN_FORMS = [  # (X's shape, begin_norm_axis, the params given)
    ((2, 3), 1, ("Scale", "Bias")),
    ((4, 5, 6), 1, ("Scale", "Bias")),
    ((4, 5, 6), 2, ("Scale",)),
    ((4, 5, 6), 2, ("Bias",)),
    ((3, 7), 1, ()),
    ((3, 1), 1, ("Scale", "Bias")),
    ((0, 5), 1, ("Scale", "Bias")),
    ((64, 1024), 1, ("Scale", "Bias")),  # (the parallel twins from 2 threads)
    ((2, 64, 512), 2, ()),
]


def _layer_norms(results, rng):
    """layer_norm and layer_norm_grad through their CPU kernels: _LN_FORMS in float16/32/64 and int32, X laid
    out transposed, float16 X with float32 Scale and Bias."""
    from pe_cli.ops import registry

    fwd, grad = registry.get("layer_norm"), registry.get("layer_norm_grad")
    x = rng.uniform(-1, 1, (3, 4))
    for bad, attrs in (({"Scale": np.ones(5)}, {}), ({"Bias": np.ones((2, 2))}, {}), ({}, {"begin_norm_axis": 2})):
        attrs = {"begin_norm_axis": 1, "epsilon": 1e-5, **attrs}
        _record(
            results, f"layer_norm|refused|{sorted(bad)}|{attrs}", lambda: _direct(fwd, {"X": x, **bad}, attrs, None)
        )
    for (shape, axis, params), dtype in [(f, d) for f in _LN_FORMS for d in ("float16", "float32", "float64", "int32")]:
        for layout, pdtype in (("c", dtype), ("t", dtype), ("mixed", "float32")):
            if layout != "c" and (len(shape) != 2 or dtype != "float16" and layout == "mixed"):
                continue
            x = (rng.uniform(-3, 3, shape[::-1]).T if layout == "t" else rng.uniform(-3, 3, shape)).astype(dtype)
            n = int(np.prod(shape[axis:]))
            ins = {"X": x, **{p: rng.uniform(0.5, 1.5, n).astype(pdtype) for p in params}}
            attrs, key = (
                {"begin_norm_axis": axis, "epsilon": 1e-5},
                f"layer_norm|{shape}|{axis}|{params}|{dtype}|{layout}",
            )
            _record(results, key, lambda: _direct(fwd, ins, attrs, None))
            try:
                outs = _direct(fwd, ins, attrs, None)
            except Exception:
                continue
            dy = rng.uniform(-1, 1, shape).astype(dtype)
            gins = {**ins, "Mean": outs["Mean"], "Variance": outs["Variance"], "Y@GRAD": dy}
            _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, None))


def _direct(opdef, ins, attrs, ctx):
    from pe_cli.kernels.context import takes_context

    from pe_cli.kernels.context import KernelContext

    kernel, ctx = opdef.kernel("cpu"), KernelContext() if ctx is None else ctx
    return kernel(ins, dict(attrs), ctx) if takes_context(kernel) else kernel(ins, dict(attrs))


def _use_threads(n):
    """Kernels run as on a device of ``n`` threads, each parallel twin compiled on its first call (not later by
    the helper): the parallel forms' bits are compared too."""
    from pe_cli.kernels.cpu.runtime import loops, threads

    threads._share = threads._quiet_share = n
    loops.EAGER = True


def dump(root, families, out, threads=1):
    if threads > 1:
        _use_threads(threads)
    results = {}
    with np.errstate(all="ignore"):
        _op_cases(root, families, results)
        if "activation" in families:
            _table(results)
        if "loss_classification" in families:
            _softmax_ce(results)
            importlib.import_module("cross_entropy_case_bytes").cross_entropy(
                results, _record, _direct, np.random.default_rng(23)
            )
            importlib.import_module("loss_case_bytes").loss_classification(
                results, _record, _direct, np.random.default_rng(29)
            )
        for family in ("loss_regression", "loss_ranking", "similarity"):
            if family in families:
                getattr(importlib.import_module("loss_case_bytes"), family)(
                    results, _record, _direct, np.random.default_rng(31)
                )
        if "pooling" in families:
            _pooling(results)
        if "elementwise" in families:
            _elementwise(results)
            scaling = importlib.import_module("scale_case_bytes")  # (beside this script)
            scaling.scale_cases(results, _record, _direct)
            scaling.clip_cases(results, _record, _direct)
        if "pooling_mask" in families:
            _mask_pooling(results, np.random.default_rng(11))
        if "reduction" in families:
            _reductions(results, np.random.default_rng(13))
        if "linalg" in families:
            _gemm(results, np.random.default_rng(13))
        if "normalization" in families:
            _layer_norms(results, np.random.default_rng(17))
            importlib.import_module("batch_norm_case_bytes").batch_norms(
                results, _record, _direct, np.random.default_rng(19)
            )
        if "optimizer" in families:
            updates = importlib.import_module("update_case_bytes")  # (beside this script)
            updates.dense_updates(results, _record, _direct)
            updates.numpy_updates(results, _record, _direct)
            updates.adam_updates(results, _record, _direct)
            importlib.import_module("schedule_case_bytes").schedules(results, _record, _direct)
        if "dropout" in families:
            _dropout(results)
        if "manipulation" in families:
            _casts(results, np.random.default_rng(19))
        if "softmax" in families:
            _softmax(results, np.random.default_rng(17))
        if "reshaping" in families:
            importlib.import_module("reshaping_case_bytes").reshaping(
                results, _record, _direct, np.random.default_rng(29)
            )
        if "matmul" in families:
            importlib.import_module("matmul_case_bytes").matmul(results, _record, _direct, np.random.default_rng(29))
        if "slicing" in families:
            importlib.import_module("slicing_case_bytes").slicing(results, _record, _direct, np.random.default_rng(37))
        if "conv2d" in families:
            conv = importlib.import_module("conv_case_bytes")  # (beside this script)
            conv.conv2d(results, _record, _direct, np.random.default_rng(29))
            conv.conv2d_transpose(results, _record, _direct, np.random.default_rng(31))
        if "joining" in families:
            importlib.import_module("joining_case_bytes").joining(results, _record, _direct)
        if "embedding" in families:
            importlib.import_module("embedding_case_bytes").embedding(
                results, _record, _direct, np.random.default_rng(17)
            )
        if "gather" in families:  # (no op cases of its own: indexing's and gather_scatter's hold them)
            importlib.import_module("gather_case_bytes").gathering(results, _record, _direct, np.random.default_rng(37))
        if "top_k" in families:  # (no op cases of its own: indexing's and selecting's hold them)
            importlib.import_module("top_k_case_bytes").top_ks(results, _record, _direct, np.random.default_rng(43))
        if "logic" in families:
            importlib.import_module("logic_case_bytes").logic(results, _record, _direct, np.random.default_rng(37))
        if "pointwise_math" in families:
            importlib.import_module("pointwise_case_bytes").pointwise(
                results, _record, _direct, np.random.default_rng(41)
            )
        if "special" in families:
            importlib.import_module("special_case_bytes").special(results, _record, _direct, np.random.default_rng(43))
        if "primitive" in families:
            importlib.import_module("primitive_case_bytes").primitive(
                results, _record, _direct, np.random.default_rng(47)
            )
        if "padding" in families:
            importlib.import_module("padding_case_bytes").padding(results, _record, _direct)
        if "cumulative" in families:
            importlib.import_module("cumulative_case_bytes").cumulative(results, _record, _direct)
        if "channel_rearranging" in families:
            importlib.import_module("cumulative_case_bytes").channel_rearranging(results, _record, _direct)
        if "diagonals" in families:
            importlib.import_module("cumulative_case_bytes").diagonals(results, _record, _direct)
        for family in ("creation", "filling"):
            if family in families:
                getattr(importlib.import_module("creation_case_bytes"), family)(results, _record, _direct)
        if "matrix" in families:
            importlib.import_module("matrix_case_bytes").matrix(results, _record, _direct)
        if "linalg_lapack" in families:
            importlib.import_module("linalg_case_bytes").linalg_lapack(results, _record, _direct)
        if "norms" in families:
            importlib.import_module("norm_case_bytes").norms(results, _record, _direct)
            importlib.import_module("norm_case_bytes").groups(results, _record, _direct)
        if "images" in families:
            importlib.import_module("image_case_bytes").images(results, _record, _direct)
        if "searching" in families:
            importlib.import_module("indexing_case_bytes").searching(results, _record, _direct)
        if "sequence" in families:
            importlib.import_module("sequence_case_bytes").sequence(results, _record, _direct)
        if "recurrent" in families:  # (gru's and lstm's ops: tools/rnn_case_bytes.py's forms alone)
            importlib.import_module("rnn_case_bytes").recurrent(results, _record, _direct)
        if "beams" in families:  # (the beam search ops: tools/rnn_case_bytes.py's forms alone)
            importlib.import_module("rnn_case_bytes").beams(results, _record, _direct)
        if "sampled" in families:  # (the sampled losses: tools/rnn_case_bytes.py's forms alone)
            importlib.import_module("rnn_case_bytes").sampled(results, _record, _direct)
        if "structured_prediction" in families:  # (crf's and ctc's ops: tools/rnn_case_bytes.py's forms alone)
            importlib.import_module("rnn_case_bytes").structured_prediction(results, _record, _direct)
        if "sequence_rows" in families:
            importlib.import_module("sequence_case_bytes").sequence_rows(results, _record, _direct)
        for family in ("random", "sampling", "complex"):
            if family in families:
                getattr(importlib.import_module("random_case_bytes"), family)(results, _record, _direct)
        for family in (
            "loss_identity",
            "masked_softmax",
            "partial_columns",
            "minus",
            "cvm",
            "clip_by_norm",
            "div_grad_grad",
        ):
            if family in families:
                getattr(importlib.import_module("small_ops_case_bytes"), family)(results, _record, _direct)
        for family in _ASSORTED:
            if family in families:
                getattr(importlib.import_module("assorted_case_bytes"), family)(results, _record, _direct)
        if "misc" in families:
            importlib.import_module("misc_case_bytes").misc(results, _record, _direct)
        if "fused_ops" in families:  # (the fused ops: tools/fused_case_bytes.py's forms alone)
            importlib.import_module("fused_case_bytes").fused_ops(results, _record, _direct)
        if "fused_optimizer" in families:
            importlib.import_module("fused_update_case_bytes").fused_optimizer(results, _record, _direct)
        if "adamw" in families:
            importlib.import_module("loss_scaling_case_bytes").adamw(results, _record, _direct)
        if "metric" in families:
            importlib.import_module("metric_case_bytes").metric(results, _record, _direct)
        for family in ("quantization", "quantization_linear"):
            if family in families:
                getattr(importlib.import_module("quantization_case_bytes"), family)(results, _record, _direct)
        if "sequence_shape" in families:
            importlib.import_module("sequence_case_bytes").sequence_shape(results, _record, _direct)
            importlib.import_module("sequence_case_bytes").lod_resets(results, _record, _direct)
        for family in ("rnn", "transducer", "batch_shuffle", "sparse"):
            if family in families:
                getattr(importlib.import_module("rnn_transducer_rows_case_bytes"), family)(results, _record, _direct)
        if "host" in families:  # (no op cases of its own: dependencies', tensor_storage's, printing's, assertions')
            importlib.import_module("host_case_bytes").host(results, _record, _direct)
        if "collectives" in families:  # (also the ring collectives and c_embedding: collectives_case_bytes.py's forms)
            importlib.import_module("collectives_case_bytes").collectives(results, _record, _direct)
        if "control_flow" in families:  # (its op cases, and tools/control_flow_case_bytes.py's forms and programs)
            importlib.import_module("control_flow_case_bytes").control_flow(results, _record, _direct)
        if "dist" in families:  # (the op cases: distributed's and py_func's, named beside it)
            importlib.import_module("dist_case_bytes").dist(results, _record, _direct)
    np.savez(out, **{f"r{i}": v for i, v in enumerate(results.values())}, keys=np.array(list(results)))
    print(f"{len(results)} results written to {out}")


def compare(a, b):
    fa, fb = np.load(a), np.load(b)
    ra = dict(zip(fa["keys"], (fa[f"r{i}"] for i in range(len(fa["keys"])))))
    rb = dict(zip(fb["keys"], (fb[f"r{i}"] for i in range(len(fb["keys"])))))
    equal = [k for k in ra if k in rb and np.array_equal(ra[k], rb[k])]
    differ = [k for k in sorted(set(ra) | set(rb)) if k not in equal]
    print(f"{len(ra)} results in {a}, {len(rb)} in {b}: {len(equal)} equal, {len(differ)} differ or missing")
    for k in differ[:20]:
        print("  ", k, "only in " + (a if k in ra else b) if (k in ra) != (k in rb) else "differs")
    return not differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("root")
    d.add_argument("families", nargs="+")
    d.add_argument("--out", required=True)
    d.add_argument("--threads", type=int, default=1, help="kernels' threads (their parallel forms from 2)")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = parser.parse_args()
    if args.command == "dump":
        dump(os.path.abspath(args.root), args.families, args.out, args.threads)
    else:
        sys.exit(0 if compare(args.a, args.b) else 1)


if __name__ == "__main__":
    main()

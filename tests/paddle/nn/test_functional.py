"""paddle.nn.functional's forwards against numpy on small inputs: every case is built into one
static program, run once, and each output compared with its numpy reference."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope

F = paddle.nn.functional
RNG = np.random.RandomState(7)
X = RNG.randn(2, 3, 4, 4).astype("float32")  # NCHW
V = RNG.randn(4, 5).astype("float32")  # logits: 4 samples, 5 classes
LABEL = np.array([1, 0, 4, 2], "int64")
P = RNG.rand(4, 5).astype("float32") * 0.9 + 0.05  # probabilities
T = (RNG.rand(4, 5) > 0.5).astype("float32")  # binary targets


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _conv2d(x, w, b, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            patch = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out + b[None, :, None, None]


def _pool(x, k, fn):
    n, c, h, w = x.shape
    return fn(x.reshape(n, c, h // k, k, w // k, k), axis=(3, 5))


def _cases():
    """(name, output variable, numpy expectation) for every function checked."""
    W = RNG.randn(4, 3, 3, 3).astype("float32")
    B = RNG.randn(4).astype("float32")
    emb = RNG.randn(6, 3).astype("float32")
    x = paddle.static.data("x", [None, 3, 4, 4])
    v = paddle.static.data("v", [None, 5])
    lab = paddle.static.data("lab", [None], "int64")
    p = paddle.static.data("p", [None, 5])
    t = paddle.static.data("t", [None, 5])
    const = paddle.assign
    w, b = const(W), const(B)
    ln_w = const(np.linspace(0.5, 1.5, 16).astype("float32").reshape(4, 4))
    yield "relu", F.relu(x), np.maximum(X, 0)
    yield "leaky_relu", F.leaky_relu(x, 0.2), np.where(X > 0, X, 0.2 * X)
    yield "elu", F.elu(x, 0.5), np.where(X > 0, X, 0.5 * (np.exp(X) - 1))
    yield "celu", F.celu(x, 2.0), np.maximum(X, 0) + np.minimum(0, 2.0 * (np.exp(X / 2.0) - 1))
    yield "selu", F.selu(x), 1.0507009873554805 * np.where(X > 0, X, 1.6732632423543772 * (np.exp(X) - 1))
    yield "silu", F.silu(x), X * _sigmoid(X)
    yield "mish", F.mish(x), X * np.tanh(np.log1p(np.exp(X)))
    yield "softplus", F.softplus(x, 2.0), np.log1p(np.exp(2.0 * X)) / 2.0
    yield "softsign", F.softsign(x), X / (1 + np.abs(X))
    yield "softshrink", F.softshrink(x, 0.3), np.where(X > 0.3, X - 0.3, np.where(X < -0.3, X + 0.3, 0))
    yield "hardshrink", F.hardshrink(x, 0.3), np.where(np.abs(X) > 0.3, X, 0)
    yield "hardsigmoid", F.hardsigmoid(x), np.clip(X / 6 + 0.5, 0, 1)
    yield "hardswish", F.hardswish(x), X * np.clip(X + 3, 0, 6) / 6
    yield "hardtanh", F.hardtanh(x, -0.5, 0.5), np.clip(X, -0.5, 0.5)
    yield "log_sigmoid", F.log_sigmoid(x), np.log(_sigmoid(X))
    yield "tanhshrink", F.tanhshrink(x), X - np.tanh(X)
    yield "glu", F.glu(paddle.slice(x, [1], [0], [2]), axis=1), X[:, :1] * _sigmoid(X[:, 1:2])
    yield "softmax", F.softmax(x, axis=1), _softmax(X, 1)
    yield "log_softmax", F.log_softmax(v), np.log(_softmax(V))
    yield (
        "prelu",
        F.prelu(x, const(np.array([0.1, 0.2, 0.3], "float32"))),
        np.where(X > 0, X, np.array([0.1, 0.2, 0.3])[None, :, None, None] * X),
    )
    yield "linear", F.linear(v, const(V.T.copy()), const(np.ones(4, "float32"))), V @ V.T + 1
    yield "conv2d", F.conv2d(x, w, b, padding=1), _conv2d(X, W, B, pad=1)
    yield "conv2d_stride", F.conv2d(x, w, None, stride=2), _conv2d(X, W, np.zeros(4), stride=2)
    w1 = W[:, :, 1]  # [4, 3, 3] a 1-D kernel
    yield (
        "conv1d",
        F.conv1d(paddle.reshape(x, [-1, 3, 16]), const(w1), b, padding=1),
        _conv2d(X.reshape(2, 3, 1, 16), w1[:, :, None], B, pad=1)[:, :, 1, :],
    )
    yield "max_pool2d", F.max_pool2d(x, 2), _pool(X, 2, np.max)
    yield "avg_pool2d", F.avg_pool2d(x, 2), _pool(X, 2, np.mean)
    yield "adaptive_avg_pool2d", F.adaptive_avg_pool2d(x, 1), X.mean(axis=(2, 3), keepdims=True)
    yield "max_pool1d", F.max_pool1d(paddle.reshape(x, [-1, 3, 16]), 4), X.reshape(2, 3, 4, 4).max(-1)
    bn_mean, bn_var = np.array([0.1, -0.2, 0.3], "float32"), np.array([1.5, 0.5, 2.0], "float32")
    yield (
        "batch_norm",
        F.batch_norm(x, const(bn_mean), const(bn_var), const(np.ones(3, "float32") * 2), const(np.zeros(3, "float32"))),
        2 * (X - bn_mean[None, :, None, None]) / np.sqrt(bn_var[None, :, None, None] + 1e-5),
    )
    mu, var = X.mean(axis=(2, 3), keepdims=True), X.var(axis=(2, 3), keepdims=True)
    yield (
        "layer_norm",
        F.layer_norm(x, [4, 4], ln_w),
        (X - mu) / np.sqrt(var + 1e-5) * np.linspace(0.5, 1.5, 16).reshape(4, 4),
    )
    yield "instance_norm", F.instance_norm(x), (X - mu) / np.sqrt(var + 1e-5)
    gm, gv = X.mean(axis=(1, 2, 3), keepdims=True), X.var(axis=(1, 2, 3), keepdims=True)
    yield "group_norm", F.group_norm(x, 1), (X - gm) / np.sqrt(gv + 1e-5)
    yield "normalize", F.normalize(v), V / np.linalg.norm(V, axis=1, keepdims=True)
    yield "embedding", F.embedding(lab, const(emb), padding_idx=0), np.where(LABEL[:, None] == 0, 0, emb[LABEL])
    yield "one_hot", F.one_hot(lab, 5), np.eye(5)[LABEL]
    yield (
        "pad_constant",
        F.pad(x, [1, 0, 0, 2], value=9.0),
        np.pad(X, ((0, 0), (0, 0), (0, 2), (1, 0)), constant_values=9.0),
    )
    yield "pad_reflect", F.pad(x, [1, 1, 2, 0], mode="reflect"), np.pad(X, ((0, 0), (0, 0), (2, 0), (1, 1)), "reflect")
    yield "pad_replicate", F.pad(x, [0, 2, 1, 1], mode="replicate"), np.pad(X, ((0, 0), (0, 0), (1, 1), (0, 2)), "edge")
    yield "interpolate_nearest", F.interpolate(x, scale_factor=2), X.repeat(2, axis=2).repeat(2, axis=3)
    yield (
        "cosine_similarity",
        F.cosine_similarity(v, p),
        (V * P).sum(1) / np.linalg.norm(V, axis=1) / np.linalg.norm(P, axis=1),
    )
    yield "label_smooth", F.label_smooth(t, epsilon=0.1), T * 0.9 + 0.1 / 5
    yield (
        "pixel_shuffle",
        F.pixel_shuffle(paddle.reshape(x, [-1, 12, 2, 2]), 2),
        X.reshape(2, 3, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(2, 3, 4, 4),
    )
    yield "dropout_eval", F.dropout(x, 0.5, training=False), X
    yield "dropout_downgrade_eval", F.dropout(x, 0.4, training=False, mode="downscale_in_infer"), X * 0.6
    yield from _loss_cases(v, lab, p, t, const)


def _loss_cases(v, lab, p, t, const):
    logp = np.log(_softmax(V))
    nll = -logp[np.arange(4), LABEL]
    cw = np.array([1.0, 2.0, 0.5, 1.0, 3.0], "float32")
    yield "cross_entropy", F.cross_entropy(v, lab), nll.mean()
    yield "cross_entropy_none", F.cross_entropy(v, lab, reduction="none"), nll
    yield "cross_entropy_weight", F.cross_entropy(v, lab, weight=const(cw)), (nll * cw[LABEL]).sum() / cw[LABEL].sum()
    ignored = paddle.static.data("ignored", [None], "int64")  # LABEL with its 4 set to -1
    yield "cross_entropy_ignore", F.cross_entropy(v, ignored, ignore_index=-1), nll[LABEL != 4].mean()
    yield "cross_entropy_soft", F.cross_entropy(v, p, soft_label=True), (-(P * logp).sum(1)).mean()
    smooth = np.eye(5)[LABEL] * 0.9 + 0.02
    yield "cross_entropy_smoothing", F.cross_entropy(v, lab, label_smoothing=0.1), (-(smooth * logp).sum(1)).mean()
    yield (
        "cross_entropy_probs",
        F.cross_entropy(p, lab, use_softmax=False, reduction="sum"),
        -np.log(P[np.arange(4), LABEL]).sum(),
    )
    yield "nll_loss", F.nll_loss(F.log_softmax(v), lab, weight=const(cw)), (nll * cw[LABEL]).sum() / cw[LABEL].sum()
    yield "mse_loss", F.mse_loss(p, t), ((P - T) ** 2).mean()
    yield "l1_loss", F.l1_loss(p, t, reduction="sum"), np.abs(P - T).sum()
    bce = -(T * np.log(P) + (1 - T) * np.log(1 - P))
    yield "binary_cross_entropy", F.binary_cross_entropy(p, t), bce.mean()
    sig = _sigmoid(V)
    yield (
        "bce_with_logits",
        F.binary_cross_entropy_with_logits(v, t, reduction="none"),
        -(T * np.log(sig) + (1 - T) * np.log(1 - sig)),
    )
    yield (
        "bce_with_logits_pos_weight",
        F.binary_cross_entropy_with_logits(v, t, pos_weight=const(np.full(5, 3.0, "float32"))),
        (-(3 * T * np.log(sig) + (1 - T) * np.log(1 - sig))).mean(),
    )
    d = P - T
    yield (
        "smooth_l1_loss",
        F.smooth_l1_loss(p, t, delta=0.3),
        np.where(np.abs(d) < 0.3, 0.5 * d * d, 0.3 * (np.abs(d) - 0.15)).mean(),
    )
    yield "kl_div", F.kl_div(F.log_softmax(v), p, reduction="sum"), (P * (np.log(P) - logp)).sum()
    sign = np.where(T > 0, 1.0, -1.0).astype("float32")
    s = const(sign)
    yield "margin_ranking_loss", F.margin_ranking_loss(v, p, s, 0.1), np.maximum(0, -sign * (V - P) + 0.1).mean()
    yield "hinge_embedding_loss", F.hinge_embedding_loss(v, s), np.where(sign > 0, V, np.maximum(0, 1 - V)).mean()
    yield "soft_margin_loss", F.soft_margin_loss(v, s), np.log1p(np.exp(-sign * V)).mean()


def test_functional_forwards_match_numpy():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        cases = list(_cases())
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        got = exe.run(
            main,
            feed={"x": X, "v": V, "lab": LABEL, "p": P, "t": T, "ignored": np.where(LABEL == 4, -1, LABEL)},
            fetch_list=[c[1] for c in cases],
        )
    bad = []
    for (name, _, want), have in zip(cases, got):
        have = np.asarray(have)
        if have.shape != np.shape(want) and have.size == np.size(want):
            have = have.reshape(np.shape(want))
        if have.shape != np.shape(want) or not np.allclose(have, want, rtol=1e-4, atol=1e-5):
            bad.append(
                f"{name}: shape {have.shape} vs {np.shape(want)}, max diff "
                f"{np.abs(have.reshape(-1)[: np.size(want)] - np.ravel(want)).max() if have.size == np.size(want) else '-'}"
            )
    assert not bad, "\n".join(bad)


def test_what_pe_lacks_is_refused_in_one_line():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [None, 3, 4, 4])
        with pytest.raises(ValueError, match="return_mask"):  # as Paddle: masks are NCHW positions
            F.max_pool2d(x, 2, return_mask=True, data_format="NHWC")
        with pytest.raises(ValueError, match="mode='cubic': one of"):
            F.interpolate(x, scale_factor=2, mode="cubic")
        x5 = paddle.static.data("x5", [None, 2, 3, 4, 4])
        with pytest.raises(PeError, match=r"mode='nearest' of a 5-D x \[-1, 2, 3, 4, 4\]: pe's nearest_interp_v2"):
            F.interpolate(x5, scale_factor=2)
        with pytest.raises(ValueError, match="reduction"):
            F.mse_loss(x, x, reduction="avg")


def test_patches_shuffles_shifts_and_margin_losses_match_numpy():
    x4 = RNG.randn(2, 2, 4, 4).astype("float32")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x4", [None, 2, 4, 4])
        v, lab = paddle.static.data("v", [None, 5]), paddle.static.data("lab", [None], "int64")
        cols = F.unfold(x, 2, strides=2)
        outs = [
            cols,
            F.fold(cols, [4, 4], 2, strides=2),
            F.unfold(x, 3, paddings=1),
            F.pixel_shuffle(F.pixel_unshuffle(x, 2), 2),
            F.temporal_shift(paddle.reshape(x, [-1, 4, 2, 4]), 2, 0.25),
            F.multi_margin_loss(v, lab, reduction="none"),
            F.npair_loss(v, paddle.scale(v, 0.5), paddle.assign(np.array([1, 0, 1, 2]))),
        ]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(Scope()):
        exe.run(startup)
        got = exe.run(main, feed={"x4": x4, "v": V, "lab": LABEL}, fetch_list=outs)
    blocks = x4.reshape(2, 2, 2, 2, 2, 2).transpose(0, 1, 3, 5, 2, 4).reshape(2, 8, 4)  # (c, kh, kw) x L
    np.testing.assert_allclose(got[0], blocks, rtol=1e-6)
    np.testing.assert_allclose(got[1], x4, rtol=1e-6)  # non-overlapping: fold undoes unfold
    padded = np.pad(x4, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.stack(
        [padded[:, c, i : i + 4, j : j + 4].reshape(2, 16) for c in range(2) for i in range(3) for j in range(3)], 1
    )
    np.testing.assert_allclose(got[2], want, rtol=1e-6)
    np.testing.assert_allclose(got[3], x4, rtol=1e-6)
    seg = x4.reshape(1, 2, 4, 2, 4)  # N=1, T=2 segments, C=4: channel 0 from t-1, 1 from t+1
    shifted = seg.copy()
    shifted[:, :, 0] = np.stack([np.zeros_like(seg[:, 0, 0]), seg[:, 0, 0]], 1)
    shifted[:, :, 1] = np.stack([seg[:, 1, 1], np.zeros_like(seg[:, 1, 1])], 1)
    np.testing.assert_allclose(got[4], shifted.reshape(2, 4, 2, 4), rtol=1e-6)
    target = V[np.arange(4), LABEL][:, None]
    terms = np.maximum(0, 1.0 - target + V)
    terms[np.arange(4), LABEL] = 0
    np.testing.assert_allclose(got[5], terms.sum(1) / 5, rtol=1e-5)
    pairs = np.array([1, 0, 1, 2])
    same = (pairs[:, None] == pairs[None, :]).astype("float64")
    same /= same.sum(1, keepdims=True)
    sim = V @ (0.5 * V).T
    logp = sim - sim.max(1, keepdims=True) - np.log(np.exp(sim - sim.max(1, keepdims=True)).sum(1, keepdims=True))
    ce = -(same * logp).sum(1, keepdims=True)
    l2 = (np.square(V).sum(1).mean() + np.square(0.5 * V).sum(1).mean()) * 0.25 * 0.002
    np.testing.assert_allclose(got[6], l2 + (same * ce).sum(0).mean(), rtol=1e-5)


def test_bad_arguments_are_value_errors_as_in_paddle():
    """Paddle 2.6's own tests (test_glu, test_cosine_embedding_loss) expect ValueErrors here."""
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [None, 3, 4])
        with pytest.raises(ValueError, match="axis=256 is out of range"):
            F.glu(x, axis=256)
        for not_float, message in (
            (1, "glu: x must be Variable, got int"),
            (
                paddle.static.data("i", [2, 4], "int32"),
                "glu: x 'i' is int32; it must be one of float16, float32, float64",
            ),
        ):
            with pytest.raises(TypeError, match=message):
                paddle.nn.GLU()(not_float)
        with pytest.raises(ValueError, match="margin=2"):
            F.cosine_embedding_loss(x, x, paddle.static.data("l", [None], "int64"), margin=2)
        with pytest.raises(ValueError, match="margin=2"):
            paddle.nn.CosineEmbeddingLoss(margin=2)


def test_binary_cross_entropy_refuses_an_input_outside_0_1_as_paddle():
    """binary_cross_entropy is Paddle's bce_loss op, which refuses a probability outside [0, 1] (a composed
    form gave nan there, without a word); its weight must be a Tensor, as in Paddle 2.6."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        p, t = paddle.static.data("p", [4, 5]), paddle.static.data("t", [4, 5])
        loss = F.binary_cross_entropy(p, t)
        with pytest.raises(ValueError, match="weight is not a Tensor"):
            F.binary_cross_entropy(p, t, weight=np.ones(5, "float32"))
    assert [op.type for op in main.global_block().ops] == ["bce_loss", "reduce_mean"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(Scope()):
        exe.run(startup)
        with pytest.raises(PeError, match=r"X holds a value outside \[0, 1\]"):
            exe.run(main, feed={"p": P + 1.0, "t": T}, fetch_list=[loss])


def test_paddle26_module_attributes_and_clip_by_norm():
    """Paddle 2.6's op tests reach functions through module attributes (``paddle.nn.functional.vision.affine_grid``,
    ``paddle.nn.clip.clip_by_norm``, not in its ``__all__``)."""
    assert paddle.nn.functional.vision.affine_grid is F.affine_grid
    with pytest.raises(AttributeError, match="no attribute 'visions'"):
        paddle.nn.functional.visions
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 2])
        y = paddle.nn.clip.clip_by_norm(x, 1.0)
        with pytest.raises(TypeError, match="max_norm"):
            paddle.nn.clip.clip_by_norm(x, 1)
    exe = paddle.static.Executor(paddle.CPUPlace())
    (out,) = exe.run(main, feed={"x": np.array([[3, 0], [0, 4]], "float32")}, fetch_list=[y], scope=Scope())
    np.testing.assert_allclose(out, [[0.6, 0], [0, 0.8]], rtol=1e-6)


def test_paddle_tensor_linalg_holds_paddles_linalg_functions():
    """``paddle.tensor.linalg`` (as ``paddle.tensor``'s attribute and by its import path) holds the functions of
    Paddle 2.6's python/paddle/tensor/linalg.py, the same objects as ``paddle.*`` and ``paddle.linalg.*``
    (test_triangular_solve_op.py reaches ``paddle.tensor.linalg.triangular_solve``)."""
    import importlib

    by_path = importlib.import_module("pe_cli.paddle.tensor.linalg")
    assert paddle.tensor.linalg is by_path
    for name in ("matmul", "transpose", "dot", "bmm", "mv", "norm", "dist", "bincount", "histogram", "cdist"):
        assert getattr(by_path, name) is getattr(paddle, name), name
    for name in ("svd", "pinv", "matrix_power", "multi_dot", "triangular_solve", "cholesky_solve", "lstsq", "slogdet"):
        assert getattr(by_path, name) is getattr(paddle.linalg, name), name
    assert paddle.tensor.manipulation.reshape is paddle.reshape and paddle.tensor.logic is paddle.tensor
    assert paddle.tensor.search.kthvalue is paddle.kthvalue and paddle.tensor.manipulation.unbind is paddle.unbind
    # tensor/math.py's in-place forms, creation.py's create_parameter: paddle.tensor's and paddle's own
    assert (
        paddle.tensor.math.add_ is paddle.tensor.add_
        and paddle.tensor.creation.create_parameter is paddle.create_parameter
    )
    assert paddle.tensor.matrix_power is paddle.linalg.matrix_power and paddle.tensor.math.inverse is paddle.inverse
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        paddle.tensor.math.not_a_function

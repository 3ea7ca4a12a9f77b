"""The image layers of layers/image.py (and the pooling, convolution, normalization and activation
layers that used to sit beside them) as Fluid 1.8 users call them: shapes at build time, mistakes
reported there, and a trained-through gradient (numerics: their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError, ShapeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def test_shapes_at_build_time(prog):
    x = layers.data("x", [8, 4, 6])
    assert layers.pixel_shuffle(x, 2).shape == (-1, 2, 8, 12)
    assert layers.space_to_depth(x, 2).shape == (-1, 32, 2, 3)
    assert layers.shuffle_channel(x, 4).shape == (-1, 8, 4, 6)
    assert layers.maxout(x, 4).shape == (-1, 2, 4, 6)
    assert layers.lrn(x).shape == (-1, 8, 4, 6)
    with pytest.raises(ShapeError, match=r"must be a multiple of upscale_factor\^2 = 9"):
        layers.pixel_shuffle(x, 3)
    with pytest.raises(ShapeError, match="must be a multiple of groups = 3"):
        layers.maxout(x, 3)


def test_affine_channel_trains_its_scale_and_bias(prog):
    x = layers.data("x", [3, 2, 2])
    scale = layers.create_parameter([3], "float32", default_initializer=fluid.initializer.Constant(1.0))
    bias = layers.create_parameter([3], "float32", default_initializer=fluid.initializer.Constant(0.0))
    out = layers.affine_channel(x, scale, bias, act="relu")
    loss = layers.mean(out)
    fluid.optimizer.SGD(0.5).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    xv = np.ones((2, 3, 2, 2), np.float32)
    exe.run(prog, feed={"x": xv}, fetch_list=[loss], scope=scope)
    # d mean / d bias[c] = 1/3 for each channel (all outputs positive)
    np.testing.assert_allclose(scope.find_var(bias.name).get_tensor().__array__(), [-1 / 6] * 3, rtol=1e-5)


def test_image_resize_shapes_and_values(prog):
    x = layers.data("x", [1, 2, 3])
    up = layers.resize_nearest(x, scale=2)
    bi = layers.resize_bilinear(x, out_shape=[3, 5])
    dyn = layers.image_resize(x, out_shape=layers.data("size", [2], dtype="int32", append_batch_size=False))
    assert up.shape == (-1, 1, 4, 6) and bi.shape == (-1, 1, 3, 5) and dyn.shape == (-1, 1, -1, -1)
    xv = np.array([[[[0, 1, 2], [3, 4, 5]]]], np.float32)
    got_up, got_bi, got_dyn = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv, "size": np.array([2, 5], np.int32)}, fetch_list=[up, bi, dyn], scope=fluid.Scope()
    )
    np.testing.assert_array_equal(got_up[0, 0, 0], [0, 0, 1, 1, 2, 2])  # align_corners: int(k * 2/5 + 0.5)
    np.testing.assert_allclose(
        got_bi[0, 0], [[0, 0.5, 1, 1.5, 2], [1.5, 2, 2.5, 3, 3.5], [3, 3.5, 4, 4.5, 5]], rtol=1e-6
    )
    assert got_dyn.shape == (1, 1, 2, 5)
    with pytest.raises(PeError, match="TRILINEAR resizing takes a 5-D input"):
        layers.image_resize(x, out_shape=[2, 2], resample="TRILINEAR")
    vol = layers.resize_trilinear(layers.data("v", [2, 3, 4, 5]), out_shape=[6, 2, 5])
    vol_last = layers.resize_trilinear(layers.data("w", [3, 4, 5, 2]), scale=2.0, data_format="NDHWC")
    assert vol.shape == (-1, 2, 6, 2, 5) and vol_last.shape == (-1, 6, 8, 10, 2)


def test_adaptive_pool2d(prog):
    x = layers.data("x", [1, 5, 4])
    avg = layers.adaptive_pool2d(x, [2, 3], pool_type="avg")
    top = layers.adaptive_pool2d(x, 1)
    assert avg.shape == (-1, 1, 2, 3) and top.shape == (-1, 1, 1, 1)
    xv = np.arange(20, dtype=np.float32).reshape(1, 1, 5, 4)
    got_avg, got_top = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv}, fetch_list=[avg, top], scope=fluid.Scope()
    )
    # rows [0, 3) and [2, 5); columns [0, 2), [1, 3), [2, 4)
    np.testing.assert_allclose(
        got_avg[0, 0, 0], [xv[0, 0, 0:3, 0:2].mean(), xv[0, 0, 0:3, 1:3].mean(), xv[0, 0, 0:3, 2:4].mean()], rtol=1e-6
    )
    assert got_top.reshape(-1).tolist() == [19.0]
    with pytest.raises(ValueError, match="require_index=True needs pool_type='max'"):
        layers.adaptive_pool2d(x, 2, pool_type="avg", require_index=True)  # Fluid's ValueError


def test_adaptive_max_pool_is_max_pool_with_index_as_in_fluid(prog):
    """Fluid 1.8.5 builds max_pool2d_with_index / max_pool3d_with_index (adaptive) for max pooling,
    pool2d for avg; require_index returns the Mask: each maximum's flat position in its plane."""
    x = layers.data("x", [1, 5, 4])
    top, mask = layers.adaptive_pool2d(x, [2, 3], require_index=True)
    vol, where = layers.adaptive_pool3d(layers.data("v", [1, 2, 3, 2]), 1, require_index=True)
    assert [op.type for op in prog.global_block().ops] == ["max_pool2d_with_index", "max_pool3d_with_index"]
    xv = np.arange(20, dtype=np.float32).reshape(1, 1, 5, 4)[:, :, ::-1].copy()
    got = fluid.Executor(fluid.CPUPlace()).run(
        prog,
        feed={"x": xv, "v": np.ones((1, 1, 2, 3, 2), "float32")},
        fetch_list=[top, mask, vol, where],
        scope=fluid.Scope(),
    )
    assert got[0].reshape(-1).tolist() == [17, 18, 19, 9, 10, 11]  # rows [0, 3), [2, 5); cols [0, 2), [1, 3), [2, 4)
    assert got[1].reshape(-1).tolist() == [1, 2, 3, 9, 10, 11] and got[3].reshape(-1).tolist() == [0]


def test_image_resize_short_scales_the_short_side(prog):
    wide = layers.image_resize_short(layers.data("x", [3, 10, 25]), out_short_len=4)
    tall = layers.image_resize_short(layers.data("y", [3, 9, 6]), out_short_len=4, resample="NEAREST")
    assert wide.shape == (-1, 3, 4, 10) and tall.shape == (-1, 3, 6, 4)
    with pytest.raises(PeError, match="known height and width"):
        layers.image_resize_short(layers.data("z", [3, -1, 5]), 4)


def test_inplace_abn_is_batch_norm_then_its_activation(prog):
    """Fluid 1.8.5's layer: one inplace_abn op writing Y over its input, which the layer returns (a
    batch_norm of x built after it would read Y: the plain one is built first)."""
    x = layers.data("x", [2, 3, 3])
    plain = layers.leaky_relu(layers.batch_norm(x), alpha=0.1)
    abn = layers.inplace_abn(x, act="leaky_relu", act_alpha=0.1)
    op = prog.global_block().ops[-1]
    assert abn is x and op.type == "inplace_abn" and op.output("Y") == ["x"]
    assert op.output("SavedMean") == ["inplace_abn_0.tmp_0"] and op.output("SavedVariance") == ["inplace_abn_0.tmp_1"]
    names = sorted(p.name for p in prog.global_block().all_parameters())
    assert any(n.startswith("inplace_abn_0.") for n in names)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    xv = np.random.default_rng(0).normal(size=(4, 2, 3, 3)).astype(np.float32)
    got_abn, got_plain = exe.run(prog, feed={"x": xv}, fetch_list=[abn, plain], scope=scope)
    np.testing.assert_allclose(got_abn, got_plain, rtol=1e-6)
    assert (got_abn < 0).any()
    with pytest.raises(PeError, match="inplace_abn only support act"):
        layers.inplace_abn(x, act="relu")


def test_fsp_matrix_and_add_position_encoding(prog):
    x, y = layers.data("x", [2, 3, 4]), layers.data("y", [5, 3, 4])
    fsp = layers.fsp_matrix(x, y)
    seq = layers.data("s", [4, 6])
    enc = layers.add_position_encoding(seq, alpha=1.0, beta=0.0)
    assert fsp.shape == (-1, 2, 5) and enc.shape == (-1, 4, 6)
    rng = np.random.default_rng(1)
    xv, yv = rng.normal(size=(3, 2, 3, 4)).astype(np.float32), rng.normal(size=(3, 5, 3, 4)).astype(np.float32)
    sv = rng.normal(size=(3, 4, 6)).astype(np.float32)
    got_fsp, got_enc = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv, "y": yv, "s": sv}, fetch_list=[fsp, enc], scope=fluid.Scope()
    )
    want = np.einsum("nihw,njhw->nij", xv, yv) / 12
    np.testing.assert_allclose(got_fsp, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_enc, sv, rtol=1e-6)  # beta 0: the input itself
    assert prog.global_block().ops[0].type == "fsp"  # Fluid's op, as fluid.layers.fsp_matrix builds it
    with pytest.raises(PeError, match="the same height and width"):
        layers.fsp_matrix(x, layers.data("z", [5, 2, 4]))


def test_identity_affine_grid_samples_the_image_back(prog):
    x = layers.data("x", [2, 3, 4])
    theta = layers.data("theta", [2, 3])
    grid = layers.affine_grid(theta, out_shape=[1, 2, 3, 4])
    out = layers.grid_sampler(x, grid)
    assert grid.shape == (-1, 3, 4, 2) and out.shape == (-1, 2, 3, 4)
    xv = np.random.default_rng(2).normal(size=(1, 2, 3, 4)).astype(np.float32)
    identity = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    got = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv, "theta": identity}, fetch_list=[out], scope=fluid.Scope()
    )[0]
    np.testing.assert_allclose(got, xv, rtol=1e-5, atol=1e-6)


def test_pool3d_and_adaptive_pool3d(prog):
    x = layers.data("x", [2, 4, 5, 6])
    mx = layers.pool3d(x, pool_size=2, pool_stride=2)
    same = layers.pool3d(x, pool_size=3, pool_type="avg", pool_padding="SAME", pool_stride=2)
    last = layers.pool3d(layers.data("y", [4, 5, 6, 2]), pool_size=[2, 5, 3], data_format="NDHWC")
    ada = layers.adaptive_pool3d(x, [1, 2, 3], pool_type="avg")
    assert mx.shape == (-1, 2, 2, 2, 3) and same.shape == (-1, 2, 2, 3, 3)
    assert last.shape == (-1, 3, 1, 4, 2) and ada.shape == (-1, 2, 1, 2, 3)
    xv = np.random.default_rng(4).normal(size=(1, 2, 4, 5, 6)).astype(np.float32)
    got_mx, got_ada, got_last = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv, "y": xv.transpose(0, 2, 3, 4, 1)}, fetch_list=[mx, ada, last], scope=fluid.Scope()
    )
    np.testing.assert_allclose(got_mx[0, 1, 1, 1, 2], xv[0, 1, 2:4, 2:4, 4:6].max(), rtol=1e-6)
    np.testing.assert_allclose(got_ada[0, 0, 0, 1, 2], xv[0, 0, :, 2:5, 4:6].mean(), rtol=1e-5)
    np.testing.assert_allclose(got_last[0, 1, 0, 2, 0], xv[0, 0, 1:3, 0:5, 2:5].max(), rtol=1e-6)
    with pytest.raises(PeError, match="give pool_size"):
        layers.pool3d(x)


def test_similarity_focus_marks_one_per_row_and_column(prog):
    x = layers.data("x", [2, 3, 3])
    mask = layers.similarity_focus(x, axis=1, indexes=[0])
    assert mask.shape == (-1, 2, 3, 3) and mask.stop_gradient
    xv = np.zeros((1, 2, 3, 3), np.float32)
    xv[0, 0] = [[9, 8, 1], [7, 2, 3], [4, 6, 5]]
    got = fluid.Executor(fluid.CPUPlace()).run(prog, feed={"x": xv}, fetch_list=[mask], scope=fluid.Scope())[0]
    want = [[1, 0, 0], [0, 0, 1], [0, 1, 0]]  # 9 at (0, 0), then 6 at (2, 1), then 3 at (1, 2)
    assert got[0, 0].tolist() == want and got[0, 1].tolist() == want


def test_deformable_conv_with_zero_offsets_is_a_convolution(prog):
    x = layers.data("x", [2, 5, 5])
    offset = layers.data("offset", [18, 5, 5])
    mask = layers.data("mask", [9, 5, 5])
    out = layers.deformable_conv(
        x, offset, mask, num_filters=3, filter_size=3, padding=1, param_attr=fluid.ParamAttr(name="dw"), bias_attr=False
    )
    plain = layers.conv2d(x, 3, 3, padding=1, param_attr=fluid.ParamAttr(name="dw"), bias_attr=False)
    v1 = layers.deformable_conv(
        x,
        offset,
        None,
        num_filters=3,
        filter_size=3,
        padding=1,
        modulated=False,
        param_attr=fluid.ParamAttr(name="dw"),
        bias_attr=False,
    )
    assert out.shape == (-1, 3, 5, 5)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(fluid.default_startup_program(), scope=scope)
    xv = np.random.default_rng(9).normal(size=(2, 2, 5, 5)).astype(np.float32)
    feed = {"x": xv, "offset": np.zeros((2, 18, 5, 5), np.float32), "mask": np.ones((2, 9, 5, 5), np.float32)}
    got, want, got_v1 = exe.run(prog, feed=feed, fetch_list=[out, plain, v1], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_v1, want, rtol=1e-5, atol=1e-5)

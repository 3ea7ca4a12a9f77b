"""Layers whose Fluid 1.8 signatures pe now follows, called as Fluid's scripts call them (positional
arguments in Fluid's order): equal/not_equal/greater_*/less_equal (x, y, cond), fc (..., act, name),
logical_not (x, out, name), softplus (x, name), log_softmax (input, axis, dtype, name), roi_align /
roi_pool (..., rois_lod: the rois' LoD offsets), yolo_box (..., name, scale_x_y)."""

import inspect

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers
rng = np.random.default_rng(5)


def _run(main, feed, fetch, startup=None):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    if startup is not None:
        exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


def _guard():
    main, startup = fluid.Program(), fluid.Program()
    return main, startup, fluid.program_guard(main, startup)


@pytest.mark.parametrize("name", ["equal", "not_equal", "greater_than", "greater_equal", "less_equal"])
def test_compare_takes_cond_third(name):
    assert list(inspect.signature(getattr(layers, name)).parameters)[:3] == ["x", "y", "cond"]


def test_positional_calls_in_fluid_order():
    main, startup, guard = _guard()
    x_np = np.array([[1.0, -2.0, 3.0]], "float32")
    with guard, fluid.unique_name.guard():
        x = layers.data("x", [1, 3], dtype="float32", append_batch_size=False)
        y = layers.fill_constant([1, 3], "float32", 1.0)
        cond = layers.create_tensor("bool")
        eq = layers.greater_equal(x, y, cond)  # Fluid: (x, y, cond)
        mask = layers.create_tensor("bool")
        neg = layers.logical_not(eq, mask)  # Fluid: (x, out, name)
        sp = layers.softplus(x, "sp")  # Fluid: (x, name)
        ls = layers.log_softmax(layers.cast(x, "float32"), 1, "float64")
        out = layers.fc(x, 2, 1, None, None, None, "dense")  # Fluid: ..., act, name
    assert eq is cond and neg is mask and ls.dtype == "float64"
    assert main.global_block().has_var("dense.w_0")
    got = _run(main, {"x": x_np}, [cond, mask, sp, ls, out], startup)
    np.testing.assert_array_equal(got[0], x_np >= 1)
    np.testing.assert_array_equal(got[1], x_np < 1)
    np.testing.assert_allclose(got[2], np.log1p(np.exp(x_np)), rtol=1e-6)
    np.testing.assert_allclose(got[3], x_np - np.log(np.exp(x_np.astype("float64")).sum()), rtol=1e-9)
    with pytest.raises(TypeError, match=r"fc\(\) takes from 2 to 7 positional arguments but 8 were given"):
        layers.fc(x, 2, 1, None, None, None, "dense2", False)  # is_test only by keyword now
    with pytest.raises(TypeError, match="x"):
        layers.equal([1.0], x)


def test_roi_layers_take_fluids_rois_lod():
    main, startup, guard = _guard()
    boxes = np.array([[0, 0, 3, 3], [1, 1, 5, 4], [2, 0, 7, 5]], "float32")
    xv = rng.normal(size=(2, 2, 6, 8)).astype("float32")
    with guard, fluid.unique_name.guard():
        x = layers.data("x", [2, 2, 6, 8], dtype="float32", append_batch_size=False)
        rois = layers.data("rois", [3, 4], dtype="float32", append_batch_size=False)
        lod = layers.assign(np.array([0, 1, 3], "int64"))
        num = layers.assign(np.array([1, 2], "int32"))
        by_lod = [layers.roi_align(x, rois, 2, 2, 1.0, 2, None, lod), layers.roi_pool(x, rois, 2, 2, 1.0, lod)]
        by_num = [
            layers.roi_align(x, rois, 2, 2, 1.0, 2, rois_num=num),
            layers.roi_pool(x, rois, 2, 2, 1.0, rois_num=num),
        ]
        first = layers.roi_align(x, rois, 2, 2, 1.0, 2, rois_num=layers.assign(np.array([3, 0], "int32")))
    got = _run(main, {"x": xv, "rois": boxes}, by_lod + by_num + [first])
    np.testing.assert_array_equal(got[0], got[2])
    np.testing.assert_array_equal(got[1], got[3])
    assert not np.allclose(got[0][1:], got[4][1:])  # rois 1 and 2 are image 1's, not image 0's


def test_yolo_box_scale_x_y_stretches_the_centres():
    main, startup, guard = _guard()
    t = np.array([2.0, -1.0, 0.0, 0.0, 5.0, 0.0], "float32").reshape(1, 6, 1, 1)
    with guard, fluid.unique_name.guard():
        x = layers.data("x", [1, 6, 1, 1], dtype="float32", append_batch_size=False)
        size = layers.assign(np.array([[32, 32]], "int32"))
        boxes = [layers.yolo_box(x, size, [10, 10], 1, 0.01, 32, False, None, s)[0] for s in (1.0, 1.2)]
    got = _run(main, {"x": t}, boxes)
    sig = 1 / (1 + np.exp(-t[0, :2, 0, 0]))
    for s, b in zip((1.0, 1.2), got):
        cx, cy = (sig * s - 0.5 * (s - 1)) * 32
        np.testing.assert_allclose(b[0, 0], [cx - 5, cy - 5, cx + 5, cy + 5], rtol=1e-5)

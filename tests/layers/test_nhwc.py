"""conv2d, pool2d, conv2d_transpose and group_norm in NHWC (data_format="NHWC", as Fluid's layers take it and Paddle's NHWC models
are saved): the same network built NCHW and NHWC, with the same parameters, computes the same
values (transposed) and, trained one SGD step, the same parameters. The NHWC ops run the NCHW
kernels between transposes (pe_cli/kernels/layout.py)."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError


def _net(layout):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        shape = [None, 3, 8, 6] if layout == "NCHW" else [None, 8, 6, 3]
        x = fluid.data("x", shape)
        c = fluid.layers.conv2d(x, 4, 3, stride=2, padding=1, act="relu", data_format=layout)
        p = fluid.layers.pool2d(c, 2, "avg", pool_stride=1, data_format=layout)
        p = fluid.layers.conv2d_transpose(p, 2, filter_size=3, stride=2, padding=1, data_format=layout)
        p = fluid.layers.group_norm(p, 2, data_layout=layout)
        p = fluid.layers.transpose(p, [0, 3, 1, 2]) if layout == "NHWC" else p
        loss = fluid.layers.reduce_mean(fluid.layers.square(p))
        fluid.optimizer.SGD(0.5).minimize(loss)
    return main, startup, p, loss


def test_nhwc_conv_pool_conv_transpose_and_group_norm_compute_and_train_as_nchw():
    x = np.random.default_rng(0).normal(size=(2, 3, 8, 6)).astype("float32")
    results = {}
    for layout, feed in (("NCHW", x), ("NHWC", np.ascontiguousarray(x.transpose(0, 2, 3, 1)))):
        main, startup, out, loss = _net(layout)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        got = exe.run(main, feed={"x": feed}, fetch_list=[out, loss], scope=scope)
        params = {p.name: np.array(scope.get_array(p.name)) for p in main.global_block().all_parameters()}
        results[layout] = got, params
    (nchw, p1), (nhwc, p2) = results["NCHW"], results["NHWC"]
    for a, b in zip(nchw, nhwc):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert p1.keys() == p2.keys() and p1["conv2d_0.b_0"].shape == (4,) and p1["conv2d_transpose_0.b_0"].shape == (2,)
    for name in p1:
        np.testing.assert_allclose(p1[name], p2[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_a_layout_pe_does_not_have_is_refused_by_name():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 3, 8, 8])
        with pytest.raises(PeError, match="data_format='NCWH' must be 'NCHW' or 'NHWC'"):
            fluid.layers.conv2d(x, 4, 3, data_format="NCWH")

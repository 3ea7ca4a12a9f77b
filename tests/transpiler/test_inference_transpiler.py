"""fluid.InferenceTranspiler (pe_cli/transpiler/inference.py): conv2d + batch_norm (with or without the conv's bias add) folded into the
conv's filter and one bias add; the transpiled program computes what the original computes, and the
original parameters are left as they were."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError


def _trained(bias_attr, layout="NCHW"):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [2, 6, 6])  # [6, 6, 2] images in NHWC: the same numbers seen so
        conv = fluid.layers.conv2d(x, 4, 3, padding=1, bias_attr=bias_attr, data_format=layout)
        out = fluid.layers.batch_norm(conv, act="relu", data_layout=layout)
        loss = fluid.layers.mean(out)
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(0.5).minimize(loss)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    for _ in range(3):  # moves the running mean and variance away from 0 and 1
        exe.run(main, feed={"x": rng.normal(1.0, 2.0, (5, 2, 6, 6)).astype("float32")}, scope=scope)
    return test, out, scope, exe


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("bias_attr", [False, None], ids=["conv_without_bias", "conv_with_bias"])
def test_batch_norm_is_folded_into_the_conv(bias_attr, layout):
    test, out, scope, exe = _trained(bias_attr, layout)
    x = np.random.default_rng(1).normal(1.0, 2.0, (3, 2, 6, 6)).astype("float32")
    (want,) = exe.run(test, feed={"x": x}, fetch_list=[out], scope=scope)
    before = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in test.all_parameters()}
    folded = test.clone()
    fluid.InferenceTranspiler().transpile(folded, fluid.CPUPlace(), scope)
    types = [op.type for op in folded.global_block().ops]
    assert "batch_norm" not in types and types.count("elementwise_add") == 1 and "conv2d" in types
    (got,) = exe.run(folded, feed={"x": x}, fetch_list=[out.name], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert [op.type for op in test.global_block().ops].count("batch_norm") == 1  # the original is intact
    for name, value in before.items():
        np.testing.assert_array_equal(np.array(scope.find_var(name).get_tensor()), value)
    conv = next(op for op in folded.global_block().ops if op.type == "conv2d")
    assert conv.input("Filter")[0].endswith("_fuse_bn")


def test_a_parameter_missing_from_the_scope_is_named():
    test, _, _, exe = _trained(False)
    with pytest.raises(PeError, match="has no value in the scope"):
        fluid.InferenceTranspiler().transpile(test.clone(), fluid.CPUPlace(), fluid.Scope())

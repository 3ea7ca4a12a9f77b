"""What Paddle 2.6's own op_test.py (test/legacy_test, docs/OPTEST.md) imports and calls beside the
ops: under ``pe fluid`` its imports resolve (paddle.base.libpaddle, paddle.decomposition,
paddle.incubate.autograd.primapi, paddle.jit.dy2static.utils, paddle.distributed's placements,
paddle._C_ops refusing each eager op function), the
prim switches accept off and refuse on in one line, the eager tracer has no phi kernel signature (a
RuntimeError, after which the tests run the op itself), eager variables are ``paddle.Tensor``s, a
guard inside a guard keeps its variables, and one op run on a scope runs after paddle.disable_static()."""

import subprocess
import sys

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import FluidUnsupported
from pe_cli.fluid import core
from pe_cli.fluid.dygraph import base as dygraph_base
from pe_cli.fluid.op import Operator
from pe_cli.framework import static_mode
from pe_cli.paddle.jit.dy2static.utils import parse_arg_and_kwargs

OP_TEST_IMPORTS = """
import numpy
import paddle
from paddle import base
from paddle.autograd.ir_backward import grad as ir_grad
from paddle.base import Scope, core, unique_name
from paddle.base.framework import OpProtoHolder, _current_expected_place, canonicalize_attrs, use_pir_api
from paddle.base.framework import _dygraph_tracer, in_pir_mode
from paddle.decomposition import decompose
from paddle.incubate.autograd import primapi
from paddle.jit.dy2static.utils import parse_arg_and_kwargs
import paddle.distributed as dist
from paddle import _C_ops
assert not core.is_compiled_with_cinn() and not paddle.is_compiled_with_rocm()
try:
    _C_ops.p_norm(None)
except NotImplementedError as e:
    print("refused:", e)
assert type(_current_expected_place()) in (paddle.base.libpaddle.CPUPlace, paddle.base.libpaddle.CUDAPlace)
assert not isinstance(object(), paddle.base.libpaddle.pir.OpResult) and not use_pir_api()
assert canonicalize_attrs({"axis": 1}, OpProtoHolder.instance().get_op_proto("concat")) == {"axis": 1}
try:
    decompose(None, [])
except NotImplementedError as e:
    print("refused:", e)
print("imported")
"""


def test_op_test_imports_resolve_under_pe_fluid(tmp_path):
    script = tmp_path / "imports.py"
    script.write_text(OP_TEST_IMPORTS)
    out = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "imported" in out.stdout
    assert "refused: paddle.decomposition.decompose: Paddle 2.6's primitive-op decompositions" in out.stdout
    assert "refused: paddle._C_ops.p_norm: Paddle's eager op functions run in dygraph mode" in out.stdout


def test_prim_switches_accept_off_and_refuse_on():
    core._set_prim_all_enabled(False)
    core._set_prim_forward_enabled(False)
    core.set_prim_eager_enabled(False)
    assert not core._is_all_prim_enabled()
    with pytest.raises(FluidUnsupported, match=r"_set_prim_forward_enabled\(True\): Paddle 2.6's primitive-op"):
        core._set_prim_forward_enabled(True)
    core.set_autotune_range(1, 2)  # GPU kernel autotuning: nothing to tune in pe, no value changes


def test_no_kernel_signature_eager_tensors_and_nested_guards():
    with dygraph_base.guard():
        with pytest.raises(RuntimeError, match="concat: pe has no phi kernel signatures"):
            fluid.framework._dygraph_tracer()._get_kernel_signature("concat", {}, {}, {})
        x = dygraph_base.to_variable(np.arange(6.0).reshape(2, 3))
        assert isinstance(x, paddle.Tensor)
        with dygraph_base.guard():  # Paddle's op tests make the inputs in one guard and use them in another
            out = fluid.layers.transpose(x, [-1, 0])
        np.testing.assert_array_equal(out.numpy(), np.arange(6.0).reshape(2, 3).T)
    assert not isinstance(fluid.Program().global_block().create_var(name="v", shape=[1]), paddle.Tensor)
    with pytest.raises(FluidUnsupported, match="paddle.Tensor: pe runs static graphs only"):
        paddle.Tensor([1.0])


def test_to_tensor_in_a_dygraph_guard_keeps_float64_values(paddle2):
    """Within ``paddle.base.dygraph.guard()`` (test_conj_op.py's real-number case) paddle.to_tensor of a float64 array
    is an eager tensor holding its values, as Paddle 2.6's; a static program's assign rounds them through float32 (as
    Paddle 2.6's static assign does). pe rounded both before 2026-11-30, so conj of it differed from np.conj."""
    value = np.random.default_rng(4).random((2, 3))
    with dygraph_base.guard():
        x = paddle.to_tensor(value)
        assert x.dtype == "float64" and np.array_equal(x.numpy(), value)
        assert np.array_equal(paddle.conj(x).numpy(), value)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        rounded = paddle.to_tensor(value)
    (got,) = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[rounded])
    assert got.dtype == np.float64 and np.array_equal(got, value.astype(np.float32).astype(np.float64))


def test_one_op_on_a_scope_runs_after_disable_static(monkeypatch):
    """op_test.py's numeric gradients run Operator on a scope; a test that left static mode before
    (paddle.disable_static() without enable_static()) does not stop that in Paddle."""
    scope = fluid.core.Scope()
    scope.var("x").get_tensor().set(np.array([1.0, -2.0], "float32"), fluid.CPUPlace())
    monkeypatch.setattr(static_mode, "_entered", True)
    monkeypatch.setattr(static_mode, "_left_at", "test_x_op.py:40")  # paddle.disable_static() there
    Operator("scale", X="x", Out="y", scale=3.0).run(scope, fluid.CPUPlace())
    np.testing.assert_array_equal(np.array(scope.find_var("y").get_tensor()), [3.0, -6.0])


def test_base_framework_says_dygraph_after_disable_static(monkeypatch):
    """Paddle 2.6's ``paddle.base.framework.in_dygraph_mode()`` is True after ``paddle.disable_static()``;
    op_test.py's static check runs in ``static_guard()``, which calls ``paddle.enable_static()`` only when
    it finds dygraph mode: answering False left pe refusing the static check's own program."""
    monkeypatch.setattr(static_mode, "_entered", True)
    monkeypatch.setattr(static_mode, "_left_at", None)
    assert not fluid.framework.in_dygraph_mode()
    monkeypatch.setattr(static_mode, "_left_at", "test_x_op.py:40")  # paddle.disable_static() there
    assert fluid.framework.in_dygraph_mode() and paddle.in_dynamic_mode()
    paddle.enable_static()
    assert not fluid.framework.in_dygraph_mode() and not paddle.in_dynamic_mode()


def test_base_framework_says_dygraph_before_enable_static_in_a_paddle2_program(monkeypatch):
    """A Paddle 2.x program starts in eager mode (``pe fluid`` tells one by its source, fluid/version.py); a
    Fluid 1.8 program's ``fluid.framework.in_dygraph_mode()`` is False outside ``dygraph.guard()``."""
    from pe_cli.fluid import version

    monkeypatch.setattr(static_mode, "_entered", False)
    monkeypatch.setattr(static_mode, "_left_at", None)
    monkeypatch.setattr(version, "paddle2", False)
    assert not fluid.framework.in_dygraph_mode()
    monkeypatch.setattr(version, "paddle2", True)
    assert fluid.framework.in_dygraph_mode()
    monkeypatch.setattr(static_mode, "_entered", True)
    assert not fluid.framework.in_dygraph_mode()


def test_parse_arg_and_kwargs():
    def api(x, axis=0, name=None):
        pass

    assert parse_arg_and_kwargs(api) == (["x", "axis", "name"], {"axis": 0, "name": None})


def test_op_protos_type_attributes_whose_default_tells_none():
    """op_test.py's Operator writes each attribute by its proto's type: clip's min/max (no default)
    are FLOAT and split's sections (default []) INTS, as Paddle 2.6.2's protos say (a STRING type made
    writing a float fail)."""
    from pe_cli.fluid.framework import OpProtoHolder
    from pe_cli.framework.operator import AttrType

    ops = ("clip", "split", "conv2d_transpose", "cast", "fill_constant", "reshape2", "fold", "assign_value")
    types = {t: {a.name: a.type for a in OpProtoHolder.instance().get_op_proto(t).attrs} for t in ops}
    assert types["clip"]["min"] == types["clip"]["max"] == AttrType.FLOAT
    assert types["split"]["sections"] == AttrType.INTS
    # an empty list is INTS, a dtype INT, as Paddle 2.6.2 declares them (op.py's numeric gradients wrote
    # conv2d_transpose's output_size into a STRINGS field: "bad argument type for built-in operation")
    assert types["conv2d_transpose"]["output_size"] == types["conv2d_transpose"]["output_padding"] == AttrType.INTS
    assert types["reshape2"]["shape"] == types["fold"]["kernel_sizes"] == AttrType.INTS
    assert types["cast"]["out_dtype"] == types["cast"]["in_dtype"] == types["fill_constant"]["dtype"] == AttrType.INT
    assert types["fill_constant"]["shape"] == types["assign_value"]["int64_values"] == AttrType.LONGS
    assert types["assign_value"]["fp32_values"] == AttrType.FLOATS


def test_complex_product_and_quotient_gradients_take_the_conjugate():
    """Paddle 2.6's complex gradients: dX = dOut * conj(Y), dY = dOut * conj(X) for a product (what
    test_elementwise_mul_op.py's TestComplex* numeric gradients agree with), dX = dOut / conj(Y),
    dY = -dOut * conj(X / Y / Y) for a quotient (test_elementwise_div_op.py's references), and
    dOut @ conj(Y)^T, conj(X)^T @ dOut for matmul(_v2) (test_matmul_v2_op.py's TestComplexMatMulOp). pe's
    CPU kernels gave dOut * Y, a wrong gradient without a word."""
    rng = np.random.RandomState(7)
    x, y, d = (rng.uniform(-1, 1, (2, 3)) + 1j * rng.uniform(-1, 1, (2, 3)) for _ in range(3))
    scope = fluid.core.Scope()
    for name, value in {"x": x, "y": y, "d": d, "o": x / y}.items():
        scope.var(name).get_tensor().set(value, fluid.CPUPlace())
    grads = {"X@GRAD": "dx", "Y@GRAD": "dy"}
    Operator("elementwise_mul_grad", X="x", Y="y", **{"Out@GRAD": "d"}, **grads, axis=-1).run(scope, fluid.CPUPlace())
    got = [np.array(scope.find_var(n).get_tensor()) for n in ("dx", "dy")]
    np.testing.assert_allclose(got[0], d * np.conj(y))
    np.testing.assert_allclose(got[1], d * np.conj(x))
    Operator("elementwise_div_grad", X="x", Y="y", Out="o", **{"Out@GRAD": "d"}, **grads, axis=-1).run(
        scope, fluid.CPUPlace()
    )
    got = [np.array(scope.find_var(n).get_tensor()) for n in ("dx", "dy")]
    np.testing.assert_allclose(got[0], d / np.conj(y))
    np.testing.assert_allclose(got[1], -d * np.conj(x / y / y))
    scope.var("w").get_tensor().set(np.ascontiguousarray(y.T), fluid.CPUPlace())  # [3, 2]: x @ w is [2, 2]
    scope.var("e").get_tensor().set(d[:, :2].copy(), fluid.CPUPlace())
    Operator("matmul_grad", X="x", Y="w", **{"Out@GRAD": "e"}, **grads, transpose_X=False, transpose_Y=False).run(
        scope, fluid.CPUPlace()
    )
    got = [np.array(scope.find_var(n).get_tensor()) for n in ("dx", "dy")]
    np.testing.assert_allclose(got[0], d[:, :2] @ np.conj(y))  # dOut @ conj(W)^T
    np.testing.assert_allclose(got[1], np.conj(x).T @ d[:, :2])  # conj(X)^T @ dOut

"""Paddle 2.6's spellings that its own static-mode unit tests import (docs/COMPAT.md, "Paddle 2.6 unit
tests, run unchanged"): ``paddle.base`` (2.6's name for ``paddle.fluid``), ``paddle.pir_utils``,
``paddle.framework``, ``paddle.utils``, Variable's tensor methods, ``paddle.static.nn.control_flow``, ``paddle.tensor``'s arrays,
and ``paddle.base.data_feeder``'s argument checks. One ``pe fluid`` script
checks them the way those tests use them."""

from paths import REPO
import os
import subprocess
import sys

SCRIPT = r'''
import numpy as np
import paddle
from paddle import base
from paddle.base import core, framework
from paddle.base.backward import append_backward
from paddle.base.data_feeder import check_variable_and_dtype, convert_dtype
from paddle.pir_utils import IrGuard, test_with_pir_api
paddle.enable_static()
assert base is paddle.fluid and framework is paddle.fluid.framework and core is paddle.fluid.core
assert not paddle.framework.in_pir_mode() and not paddle.framework.in_dynamic_mode()
assert convert_dtype(core.VarDesc.VarType.FP32) == "float32"

programs = []

@test_with_pir_api
def build(scale):
    main = paddle.static.default_main_program()
    programs.append(main)
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    y = paddle.sum(x * scale)
    append_backward(y)
    grad, = paddle.static.Executor(base.CPUPlace()).run(
        main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[x.name + "@GRAD"])
    np.testing.assert_allclose(grad, np.full((2, 3), scale))

outer = paddle.static.default_main_program()
build(3.0)
# twice, the second time on fresh default programs; the outer ones come back afterwards
assert programs[0] is outer and programs[1] is not outer
assert paddle.static.default_main_program() is outer
with IrGuard():
    assert paddle.static.default_main_program() is not outer

paddle.framework.random._manual_program_seed(7)
assert paddle.static.default_main_program().random_seed == 7
assert paddle.static.default_startup_program().random_seed == 7
from paddle.base.framework import _dygraph_guard
from paddle.static.nn.control_flow import case
from paddle.base.wrapped_decorator import signature_safe_contextmanager
assert case is paddle.static.nn.case and not core.is_compiled_with_rocm()
assert core.DataType.FLOAT32 == core.VarDesc.VarType.FP32 == "float32"
old = paddle.utils.deprecated(update_to="paddle.new", since="2.0")(lambda v: v + 1)
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert old(1) == 2 and "paddle.new" in str(caught[0].message)

@signature_safe_contextmanager
def scoped():
    """doc"""
    yield 5
with scoped() as five:
    assert five == 5 and scoped.__doc__ == "doc"
assert paddle.utils.convert_to_list(3, 2, "stride") == [3, 3]
assert paddle.utils.map_structure(lambda v: v * 2, {"a": [1, 2]}) == {"a": [2, 4]}
arrays = paddle.static.Program()
with _dygraph_guard(None), paddle.static.program_guard(arrays):    # static mode: what pe always runs
    a = paddle.tensor.fill_constant([2], "float32", 1.5)
    array = paddle.tensor.create_array("float32", [a, a * 2])
    second = paddle.tensor.array_read(array, paddle.tensor.fill_constant([1], "int64", 1))
    length = paddle.tensor.array_length(array)
    z = paddle.static.data("z", [2, 3], "float32")
    methods = z.reshape([3, 2]).sum(axis=0).astype("float64")      # 2.x's tensor methods
assert (z.dim(), z.ndim, methods.dtype) == (2, 2, "float64")
n, v, m = paddle.static.Executor(base.CPUPlace()).run(
    arrays, feed={"z": np.arange(6, dtype="float32").reshape(2, 3)}, fetch_list=[length, second, methods])
assert int(n) == 2 and v.tolist() == [3.0, 3.0] and m.tolist() == [6.0, 9.0]
for bad in (lambda: paddle.utils.convert_to_list([1, 2, 3], 2, "stride"),
            lambda: paddle.tensor.create_array("float32", [1.0])):
    try:
        bad()
        raise SystemExit("no error")
    except (ValueError, TypeError) as e:
        print("TypeError" if isinstance(e, TypeError) else "ValueError", e)
try:
    check_variable_and_dtype(paddle.static.data("i", [2], "int32"), "x", ["float32"], "my_op")
except TypeError as e:
    print("TypeError" if isinstance(e, TypeError) else "not a TypeError", e)
'''


def test_paddle_base_pir_utils_and_framework_resolve_under_pe_fluid(tmp_path):
    script = tmp_path / "two_six.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "ValueError The stride's length must be 2. Received: [1, 2, 3]", lines
    assert lines[1].startswith("TypeError create_array: initialized_list[0] must be a Variable"), lines
    assert lines[2].startswith("TypeError my_op: x 'i' is int32"), lines

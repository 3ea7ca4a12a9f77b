"""Paddle 2.6's spellings that its own static-mode unit tests import (docs/COMPAT.md, "Paddle 2.6 unit
tests, run unchanged"): ``paddle.base`` (2.6's name for ``paddle.fluid``), ``paddle.pir_utils``,
``paddle.framework``, and ``paddle.base.data_feeder``'s argument checks. One ``pe fluid`` script
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
try:
    check_variable_and_dtype(paddle.static.data("i", [2], "int32"), "x", ["float32"], "my_op")
except TypeError as e:
    print("TypeError", e)
'''


def test_paddle_base_pir_utils_and_framework_resolve_under_pe_fluid(tmp_path):
    script = tmp_path / "two_six.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-m", "pe_cli", "fluid", str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("TypeError my_op: x 'i' is int32"), proc.stdout

"""``paddle.amp`` in a static 2.x program (issue 96) follows Paddle 2.6.2, measured on its CPU wheel: in static
mode ``auto_cast``, ``decorate``, ``GradScaler`` and the operator statistics raise Paddle's own AssertionError
(they are dygraph-only there), ``is_float16_supported`` / ``is_bfloat16_supported`` answer False, and the op
lists are Paddle's; what pe lacks (the tensor checker, the accuracy comparison of dumps) refuses in one line
naming itself. Run as a user's script under ``pe fluid``, as Paddle's import paths resolve there."""

import os
import subprocess
import sys

from paths import REPO

SCRIPT = r"""
import numpy as np
import paddle
import paddle.amp.auto_cast, paddle.amp.grad_scaler, paddle.amp.debugging, paddle.amp.amp_lists

paddle.enable_static()
x = paddle.static.data("x", [4, 8], "float32")
lin = paddle.nn.Linear(8, 3)
loss = paddle.mean(lin(x))
for name, call in (
    ("auto_cast", lambda: paddle.amp.auto_cast()),
    ("GradScaler", lambda: paddle.amp.GradScaler(init_loss_scaling=1024)),
    ("decorate", lambda: paddle.amp.decorate(models=lin, level="O2")),
    ("stats", lambda: paddle.amp.debugging.enable_operator_stats_collection()),
    ("checker", lambda: paddle.amp.debugging.enable_tensor_checker(None)),
):
    try:
        call()
        print(name, "ran")
    except AssertionError as e:
        print(name, "AssertionError", e)
    except NotImplementedError as e:
        print(name, "refused", e)
print("fp16", paddle.amp.is_float16_supported(), paddle.amp.is_bfloat16_supported())
print("O2 black", sorted(paddle.amp.black_list()["float16"]["O2"]))
print("white", sorted(paddle.amp.white_list()["float16"]["O1"]))
print("state", [s.value for s in paddle.amp.grad_scaler.OptimizerState])
"""


def test_paddle_amp_in_a_static_program_is_paddle_262s(tmp_path):
    script = tmp_path / "amp_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    dyn = "in dynamic graph mode, please call 'paddle.disable_static()' to enter dynamic graph mode."
    assert f"auto_cast AssertionError We only support 'amp_guard()' {dyn}" in out
    assert f"GradScaler AssertionError We only support '__init__()' {dyn}" in out
    assert f"decorate AssertionError We only support 'amp_decorate()' {dyn}" in out
    assert f"stats AssertionError We only support 'enable_operator_stats_collection()' {dyn}" in out
    assert any(line.startswith("checker refused paddle.amp.debugging.enable_tensor_checker: ") for line in out)
    assert "fp16 False False" in out
    o2 = "bicubic_interp_v2 bilinear_interp_v2 linear_interp_v2 lookup_table lookup_table_v2 nearest_interp_v2 "
    assert f"O2 black {sorted((o2 + 'scatter trilinear_interp_v2').split())}" in out
    white = "conv2d einsum fake_quantize_dequantize_abs_max fake_quantize_dequantize_moving_average_abs_max "
    white += "fused_attention fused_feedforward fused_gemm_epilogue matmul matmul_v2 max_pool2d_with_index mul"
    assert f"white {white.split()}" in out
    assert "state [0, 1, 2]" in out

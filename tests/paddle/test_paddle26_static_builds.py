"""Static Paddle 2.x programs pe refused before issue 96, built by pe's paddle face: tensor-valued arguments
(``paddle.gather(axis=Tensor)``, ``F.interpolate(size=Tensor or [Tensor, int])``,
``F.one_hot(num_classes=Tensor)``, ``paddle.linspace`` of Tensors, ``paddle.reshape(shape=Tensor or
[Tensor, ...])``, ``paddle.topk(k=Tensor)``), ``paddle.unique``'s return_index / return_inverse /
return_counts with and without axis, ``paddle.linalg.norm`` of p 0, inf, -inf, ``paddle.cast`` to and from
int16, uint8, int8, bool and float16, ``F.grid_sample``'s nearest mode and border / reflection padding, and
``paddle.vision.ops``' yolo_box, deform_conv2d and DeformConv2D. The programs of
tools/paddle26_saved_models.py's ``static_tensor_args``, ``static_tensor_feeds``, ``static_unique_norm``,
``static_cast``, ``static_grid_sample`` and ``static_vision_ops``, built here, give the outputs Paddle 2.6.2
recorded (tests/data/paddle26_saved/<case>/record.npz); the models Paddle saved of them load in
tests/io/test_paddle26_saved_models.py. Through ``pe fluid``, a script giving them runs."""

from paths import REPO
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.paddle as paddle

_spec = importlib.util.spec_from_file_location(
    "paddle26_saved_models", os.path.join(REPO, "tools", "paddle26_saved_models.py")
)
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)


def _recorded(case):
    return dict(np.load(os.path.join(REPO, "tests", "data", "paddle26_saved", case, "record.npz")))


@pytest.mark.parametrize(
    "case",
    [
        "static_tensor_args",
        "static_tensor_feeds",
        "static_unique_norm",
        "static_cast",
        "static_grid_sample",
        "static_vision_ops",
        "static_graph_message_passing",
        "static_graph_reindex",
        "static_graph_sampling",
    ],
)
def test_programs_built_by_pe_give_paddles_outputs(case):
    rec = _recorded(case)
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds, outs, _ = recorder.STATIC[case](paddle)
    feeds = feeds if isinstance(feeds, list) else [feeds]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        got = exe.run(main, feed={f.name: rec["in:" + f.name] for f in feeds}, fetch_list=outs)
    assert len(got) == sum(k.startswith("out:") for k in rec)
    for i, value in enumerate(got):
        want = rec[f"out:{i}"]
        assert np.asarray(value).dtype == want.dtype, f"output {i}"
        # float32 rounding, as test_paddle26_saved_models.py compares (deform_conv2d's taps summed in another
        # order: 1.6e-6 at an output of 0.06)
        np.testing.assert_allclose(np.asarray(value), want, rtol=1e-5, atol=1e-5, err_msg=f"{case}: output {i}")


SCRIPT = """
import numpy as np
import paddle
import paddle.nn.functional as F
paddle.enable_static()
x = paddle.static.data("x", [2, 3, 4, 5], "float32")
k = paddle.static.data("k", [1], "int32")
out = [paddle.topk(x, k)[1], paddle.reshape(x, [k, -1]), F.one_hot(paddle.argmax(x, -1), k + 3)]
exe = paddle.static.Executor(paddle.CPUPlace())
feed = {"x": np.arange(120, dtype="float32").reshape(2, 3, 4, 5) % 7, "k": np.array([2], "int32")}
idx, shaped, hot = exe.run(feed=feed, fetch_list=out)
print(idx.shape, idx[0, 0, 0].tolist(), shaped.shape, hot.shape, hot.sum())
"""


def test_a_script_with_tensor_arguments_runs_under_pe_fluid(tmp_path):
    script = tmp_path / "tensor_args.py"
    script.write_text(SCRIPT)
    run = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    assert run.returncode == 0, run.stderr
    # Paddle 2.6.2 prints: (2, 3, 4, 2) [4, 3] (2, 60) (2, 3, 4, 5) 24.0
    assert run.stdout.strip().splitlines()[-1] == "(2, 3, 4, 2) [4, 3] (2, 60) (2, 3, 4, 5) 24.0"


def test_a_feed_that_is_an_ops_output_is_where_the_saved_model_starts(tmp_path):
    """``save_inference_model`` with an op's output as its feed (``static_feed_op_output``): as Paddle 2.6.2
    saves it, the program pruned to start at that variable (Paddle's ops: matmul_v2, relu, scale; no scale of
    x), and fed there it gives Paddle's outputs."""
    case = "static_feed_op_output"
    rec = _recorded(case)
    with open(os.path.join(REPO, "tests", "data", "paddle26_saved", case, "record.json")) as f:
        meta = json.load(f)
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds, outs, _ = recorder.STATIC[case](paddle)
    exe = paddle.static.Executor(paddle.CPUPlace())
    prefix = str(tmp_path / "model")
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        paddle.static.save_inference_model(prefix, feeds, outs, exe, program=main)
        program, names, fetches = paddle.static.load_inference_model(prefix, exe)
        assert names == [feeds[0].name]
        assert sorted({op.type for op in program.global_block().ops} - {"feed", "fetch"}) == meta["ops"]
        got = exe.run(program, feed={names[0]: rec["in:" + meta["feeds"][0]]}, fetch_list=fetches)
    np.testing.assert_allclose(got[0], rec["out:0"], rtol=1e-5, atol=1e-6)

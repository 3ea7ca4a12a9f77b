"""paddle.vision.models built in static mode by pe (issue 86, item 3): each architecture, scaled down,
with the same seeded weights set through its structured parameter names, gives Paddle 2.6.2's outputs
(tests/data/paddle_vision/models_paddle.json, recorded by tools/paddle_vision_oracle.py) to float32
rounding, run by ``pe fluid`` on the same script; Paddle's module paths import (mobilenetv2,
paddle.nn.layer.conv); ``pretrained=True`` is one line (pe downloads nothing)."""

import json
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "paddle_vision")


def _pe_fluid(tmp_path, script, *args):
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=600,
        cwd=tmp_path,
    )


def test_every_architecture_gives_paddles_outputs(tmp_path):
    proc = _pe_fluid(tmp_path, os.path.join(DATA, "models_case.py"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    with open(os.path.join(DATA, "models_paddle.json"), encoding="utf-8") as f:
        want = json.load(f)
    assert sorted(got) == sorted(want)
    for name, values in want.items():
        values = np.array(values)
        np.testing.assert_allclose(got[name], values, rtol=0, atol=2e-6 * np.abs(values).max() + 1e-6, err_msg=name)


def test_paddles_module_paths_and_pretrained_weights(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import paddle\nfrom paddle.vision.models.mobilenetv2 import MobileNetV2, InvertedResidual\n"
        "from paddle.vision.models.resnet import BottleneckBlock, ResNet\nfrom paddle.nn.layer.conv import Conv2D\n"
        "from paddle.nn.layer.norm import BatchNorm2D\nfrom paddle.nn.layer.layers import Layer\n"
        "import paddle.vision.models.mobilenetv1 as v1\nfrom paddle.vision.models import vgg16\n"
        "print(issubclass(MobileNetV2, Layer), Conv2D is paddle.nn.Conv2D, BatchNorm2D is paddle.nn.BatchNorm2D,\n"
        "      v1.MobileNetV1 is paddle.vision.models.MobileNetV1)\n"
        "paddle.enable_static()\nvgg16(pretrained=True)\n"
    )
    proc = _pe_fluid(tmp_path, script)
    assert proc.stdout.split() == ["True"] * 4, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(
        "pe fluid: prog.py:12: error: paddle.vision.models.vgg16(pretrained=True): pe downloads nothing"
    ), lines[0]


def test_fluid_style_batch_norm_ignores_eval_in_static_mode_as_paddle():
    """Paddle 2.6.2 (checked on the wheel): nn.BatchNorm builds its batch_norm op from is_test alone, so
    after eval() it still normalizes by the batch (DenseNet's layers are these); BatchNorm2D follows eval()."""
    from pe_cli import paddle

    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 3, 4, 4])
        for layer in (
            paddle.nn.BatchNorm(3, act="relu"),
            paddle.nn.BatchNorm2D(3),
            paddle.nn.BatchNorm(3, is_test=True),
        ):
            layer.eval()
            layer(x)
    assert [op.attr("is_test") for op in main.global_block().ops if op.type == "batch_norm"] == [False, True, True]

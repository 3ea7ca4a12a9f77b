"""The bundled Transformer config (configs/mnist_rows_transformer.yaml: a 2-layer `transformer_encoder`
over MNIST's 28 rows) learns under `pe train`: a short run (40 steps of the 8,000 training images)
classifies the held-out images far above chance (10%). The full run's figure is in the config."""

import json

from tests.cli.test_helpers import pe

CONFIG = "configs/mnist_rows_transformer.yaml"


def test_the_transformer_config_learns_in_a_short_run(tmp_path):
    proc = pe(
        "train",
        CONFIG,
        "--max-steps",
        "40",
        "data.eval.limit=500",
        "output.curves=false",
        "--out",
        tmp_path / "run",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    ckpt = tmp_path / "run" / "ckpt" / "step-40"  # the encoder's 2 layers, by Paddle's sublayer names
    assert (ckpt / "encoder.layers.1.self_attn.q_proj.w_0.npy").exists()
    result = json.loads((tmp_path / "run" / "eval.json").read_text())
    assert result["samples"] == 500 and result["step"] == 40
    assert result["metrics"]["acc"] > 0.5, result["metrics"]

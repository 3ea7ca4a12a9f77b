"""`pe export` (issue 18, item 4), through real `pe` processes: the ONNX file passes onnx's checker,
runs in onnxruntime and matches pe's own outputs within 1e-5 (LeNet-5 and the batch-norm CNN); the
inference directory loads back with fluid.io; an op without an ONNX mapping is named."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.config import load_config, load_model
from pe_cli.data.idx import read_idx
from pe_cli.data.transforms import apply_transforms
from pe_cli.base.errors import PeError
from pe_cli.run.build import build_programs
from pe_cli.run.inference import load_inference
from tests.cli.test_helpers import pe


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    out = {}
    for name in ("cnn_bn", "lenet"):
        proc = pe(
            "train",
            f"configs/mnist_{name}.yaml",
            "--max-steps",
            "4",
            "--out",
            root / name,
            "-q",
            "data.eval.limit=200",
            "output.curves=false",
        )
        assert proc.returncode == 0, proc.stderr
        out[name] = root / name
    out["images"] = read_idx("data/mnist/t10k-images-idx3-ubyte.gz")[8000:8064]
    return out


@pytest.mark.parametrize("name", ["cnn_bn", "lenet"])
def test_export_onnx_runs_in_onnxruntime_as_pe_does(runs, name, tmp_path):
    import onnx
    import onnxruntime as ort

    path = tmp_path / f"{name}.onnx"
    proc = pe("export", f"configs/mnist_{name}.yaml", "-c", runs[name], "--onnx", path)
    assert proc.returncode == 0, proc.stderr
    onnx.checker.check_model(onnx.load(str(path)))
    cfg = load_config(f"configs/mnist_{name}.yaml")
    images = apply_transforms(runs["images"], cfg.data["data"]["transforms"]["image"]).astype(np.float32)[:, None]
    want = load_inference(cfg, runs[name]).run({"image": images})
    assert "preprocessing in the graph: image" in proc.stdout  # data.transforms' scale: raw pixels go in
    raw = runs["images"].astype(np.float32)[:, None]
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": raw})[0]
    assert got.shape == want.shape == (64, 10)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", ["cnn_bn", "lenet"])
def test_export_inference_dir_loads_back(runs, name, tmp_path):
    """batch_norm's test-mode outputs are kept too (they made load_inference_model fail before)."""
    proc = pe("export", f"configs/mnist_{name}.yaml", "-c", runs[name], "--inference-dir", tmp_path / "infer")
    assert proc.returncode == 0, proc.stderr
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, targets = fluid.io.load_inference_model(str(tmp_path / "infer"), exe)
        out = exe.run(program, feed={feeds[0]: np.zeros((3, 1, 28, 28), np.float32)}, fetch_list=targets)[0]
    assert feeds == ["image"] and out.shape == (3, 10)


def test_export_refuses_clearly(runs, tmp_path):
    proc = pe("export", "configs/mnist_lenet.yaml", "-c", runs["lenet"])
    assert proc.returncode == 2 and "give --onnx FILE and/or --inference-dir DIR" in proc.stderr
    proc = pe(
        "export", "configs/mnist_lenet.yaml", "-c", runs["lenet"], "--onnx", tmp_path / "x.onnx", "--output", "loss"
    )
    assert proc.returncode == 2 and "needs the label feed 'label'" in proc.stderr


def test_an_op_without_onnx_mapping_is_named():
    from pe_cli.export.onnx_model import onnx_model

    class Unpruned:  # the whole test program: the loss and metric ops have no ONNX mapping
        program, inputs = build_programs(load_model("models/mlp.yaml"), with_optimizer=False).test, ["image"]

    with pytest.raises(PeError, match="op 'softmax_with_cross_entropy' of layer .* has no ONNX mapping"):
        onnx_model(Unpruned)

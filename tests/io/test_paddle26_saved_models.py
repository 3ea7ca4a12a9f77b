"""Models Paddle 2.6.2 saved (tests/data/paddle26_saved/, recorded by tools/paddle26_saved_models.py on the
oracle: ``paddle.jit.save`` of paddle.nn blocks and narrow paddle.vision.models, and
``paddle.static.save_inference_model``) load in pe and give Paddle's outputs, to float32 rounding, through
``paddle.static.load_inference_model(PREFIX)`` and ``pe infer PREFIX``. A model holding an op type pe lacks
is refused in one line naming it (a recorded model with its LSTM's op renamed to one pe lacks)."""

from paths import REPO
import json
import os
import subprocess
import sys

import numpy as np
import pytest


# PE_PADDLE26_SAVED: another recording's directory (the full-size architectures, tools/paddle26_saved_models.py --full)
ROOT = os.environ.get("PE_PADDLE26_SAVED") or os.path.join(REPO, "tests", "data", "paddle26_saved")
CASES = sorted(d for d in os.listdir(ROOT) if os.path.isfile(os.path.join(ROOT, d, "record.json")))
# float32 rounding, as tests/io/test_fluid_saved_models.py compares Fluid's: what Paddle's and pe's kernels differ
# by in summation order (grid_sample's bilinear weights from affine_grid's coordinates: 1.2e-6 at an output of
# 3.7e-3; a bicubic resize's 16 taps 2e-7)
RTOL, ATOL = 1e-5, 1e-5


def _params(case):
    return pytest.param(case, id=case)


def _record(case):
    d = os.path.join(ROOT, case)
    with open(os.path.join(d, "record.json")) as f:
        meta = json.load(f)
    return meta, dict(np.load(os.path.join(d, "record.npz")))


def _load_and_run(case):
    import pe_cli.paddle as paddle

    meta, rec = _record(case)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(ROOT, case, "model"), exe)
        assert feeds == meta["feeds"]
        got = exe.run(program, feed={f: rec["in:" + f] for f in feeds}, fetch_list=fetches)
    return rec, got


@pytest.mark.parametrize("case", [_params(c) for c in CASES])
def test_paddle26_saved_model_gives_paddles_outputs(case):
    rec, got = _load_and_run(case)
    assert len(got) == sum(k.startswith("out:") for k in rec)
    for i, value in enumerate(got):
        want = rec[f"out:{i}"]
        assert np.asarray(value).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(value), want, rtol=RTOL, atol=ATOL, err_msg=f"{case}: output {i}")


def test_the_recorded_cases_are_there():
    """The recorder's cases, every kind the issue names (a lost directory would drop a case silently)."""
    for case in (
        "linear",
        "conv_bn",
        "conv_nhwc",
        "layer_norm",
        "max_pool",
        "avg_pool_ceil_inclusive",
        "avg_pool_ceil_pad_inclusive",
        "avg_pool3d_ceil_inclusive",
        "adaptive_avg_pool",
        "adaptive_max_pool",
        "pixel_shuffle",
        "pixel_shuffle_nhwc",
        "upsample_bilinear",
        "upsample_bicubic",
        "upsample_nearest",
        "gather_axis",
        "gather_axis_tensor",
        "lstm_seq_len",
        "gru_seq_len",
        "transformer_encoder",
        "multihead_attention",
        "lenet",
        "static_fc",
        "static_float64",
        "static_activations_2x",
    ):
        assert case in CASES
    assert sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(ROOT) for f in fs) < 4 << 20


def test_float64s_attribute_of_a_paddle26_startup_program():
    """framework.proto's FLOAT64S: the startup program Paddle 2.6.2 wrote for a float64 parameter with an
    Assign initializer holds its values in fp64_values; pe runs it to the same float64 values."""
    import pe_cli.paddle as paddle

    with open(os.path.join(ROOT, "static_float64", "startup.pdmodel"), "rb") as f:
        startup = paddle.static.Program.parse_from_string(f.read())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        w = np.array(scope.find_var("w64").get_tensor())
    np.testing.assert_array_equal(w, np.array([1 / 3, 2**-40, 1e300]))


@pytest.mark.parametrize("case", ["linear", "pixel_shuffle_nhwc", "avg_pool_ceil_inclusive", "static_fc"])
def test_pe_infer_takes_a_saved_prefix(case, tmp_path):
    """``pe infer PREFIX`` loads PREFIX.pdmodel / PREFIX.pdiparams, as paddle.jit.load takes the prefix."""
    meta, rec = _record(case)
    data = tmp_path / "in.npz"
    np.savez(data, **{f: rec["in:" + f] for f in meta["feeds"]})
    out = tmp_path / "out.npz"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pe_cli",
            "infer",
            os.path.join(ROOT, case, "model"),
            "--data",
            str(data),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    got = np.load(out)
    assert len(got.files) == 1
    np.testing.assert_allclose(got[got.files[0]], rec["out:0"], rtol=RTOL, atol=ATOL)


def test_pe_infer_names_the_missing_op_in_one_line(tmp_path):
    """lstm_seq_len's model with its ``rnn`` op renamed ``multi_gru`` (an op type of Paddle 2.6.2 that its
    oneDNN passes write, which pe lacks)."""
    from pe_cli.base.fluid_proto import parse_program_desc

    meta, rec = _record("lstm_seq_len")
    source = os.path.join(ROOT, "lstm_seq_len", "model")
    with open(source + ".pdmodel", "rb") as f:
        desc = parse_program_desc(f.read(), "model.pdmodel")
    renamed = [op for op in desc.blocks[0].ops if op.type == "rnn"]
    assert renamed, "the recorded model holds no rnn op"
    renamed[0].type = "multi_gru"
    prefix = tmp_path / "model"
    (tmp_path / "model.pdmodel").write_bytes(desc.SerializeToString())
    with open(source + ".pdiparams", "rb") as f:
        (tmp_path / "model.pdiparams").write_bytes(f.read())
    data = tmp_path / "in.npz"
    np.savez(data, **{f: rec["in:" + f] for f in meta["feeds"]})
    run = subprocess.run(
        [sys.executable, "-m", "pe_cli", "infer", str(prefix), "--data", str(data), "-o", str(tmp_path / "out.npz")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "model.pdmodel: block 0 op" in run.stderr and "pe has no op 'multi_gru'" in run.stderr


@pytest.mark.parametrize("case", ["avg_pool_ceil_inclusive", "static_activations_2x"])
def test_a_model_pe_saves_again_keeps_paddle26s_meaning(case, tmp_path):
    """A Paddle 2.6.2 model whose ops compute otherwise than Fluid 1.8's (pool2d's inclusive ceil-mode
    divisor, leaky_relu's alpha > 1) saved again by pe (save_inference_model) still gives Paddle's outputs
    when read back: pe writes Paddle 2.6.2's program version for it, not Fluid 1.8.5's."""
    import pe_cli.paddle as paddle

    meta, rec = _record(case)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(ROOT, case, "model"), exe)
        block = program.global_block()
        paddle.static.save_inference_model(
            str(tmp_path / "again"), [block.var(f) for f in feeds], fetches, exe, program=program
        )
    data = tmp_path / "in.npz"
    np.savez(data, **{f: rec["in:" + f] for f in meta["feeds"]})
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pe_cli",
            "infer",
            str(tmp_path / "again"),
            "--data",
            str(data),
            "-o",
            str(tmp_path / "out.npz"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    got = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(got[got.files[0]], rec["out:0"], rtol=RTOL, atol=ATOL)

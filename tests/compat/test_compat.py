"""Fluid scripts after Paddle's own tests (tests/compat/*.py, each naming its source on line 1), run
through `pe fluid` as a user would. A script failing on a gap another issue owns is a strict xfail
whose reason is its first error, so the list stays honest and turns into a pass when that is fixed.
docs/COMPAT.md is the same table."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# script (with args) -> its first error today
XFAIL = {}
# a module named with a leading underscore is a helper the scripts import (as Paddle's tests import
# parallel_executor_test_base.py), not a case
SCRIPTS = sorted(f for f in os.listdir(HERE) if f.endswith(".py") and not f.startswith("_") and f != "test_compat.py")
ARGS = {
    "fluid_recognize_digits.py": ["mlp", "conv"],
    "fluid_understand_sentiment.py": ["conv", "lstm"],
    "fluid_image_classification.py": ["resnet", "vgg"],
}
CASES = [c for f in SCRIPTS for c in ([f"{f} {a}" for a in ARGS[f]] if f in ARGS else [f])]


def test_every_script_names_its_source():
    for f in SCRIPTS:
        with open(os.path.join(HERE, f)) as fh:
            first = fh.readline()
        assert first.startswith("# after: PaddlePaddle/Paddle ") and " @ " in first, f


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=XFAIL[c], strict=True, raises=AssertionError))
        if c in XFAIL
        else c
        for c in CASES
    ],
)
def test_script_runs_under_pe_fluid(case, tmp_path):
    script, *args = case.split()
    env = dict(os.environ, PYTHONPATH=ROOT, HOME=str(tmp_path), CPU_NUM="1")
    # as a user runs it: not under the numba CUDA simulator tests/conftest.py turns on for the kernel
    # tests, so fluid.core.is_compiled_with_cuda() tells whether this machine has a GPU, and the
    # scripts' GPU branches (Fluid's `if core.is_compiled_with_cuda()`) run only where one is
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", os.path.join(HERE, script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        # a hang's bound, not a speed check: fluid_dyn_rnn.py runs ~490,000 ops (26 s alone, warm) and
        # passed 60 s on a 2-core host beside the suite's other workers
        timeout=240,
    )
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("ok"), proc.stderr[-2000:]


def test_importing_pe_installs_no_hook():
    code = (
        "import pe_cli, pe_cli.fluid, pe_cli.cli.main, importlib.util, sys; print(importlib.util.find_spec('paddle'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "None", out.stdout + out.stderr


def test_unsupported_name_is_one_line(tmp_path):
    script = tmp_path / "uses_missing.py"
    script.write_text("import paddle.fluid as fluid\nfluid.enable_dygraph()\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "pe fluid: uses_missing.py:2: not supported by pe: fluid.enable_dygraph: pe runs static graphs only (Program "
        "+ Executor); dygraph (imperative) mode is not part of it: build a Program and run it with an Executor"
    ]

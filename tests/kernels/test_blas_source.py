"""Which BLAS pe's loops call (kernels/cpu/runtime/cblas.py): PE_BLAS=numpy or mkl chooses, auto takes the one
measured faster on this CPU where the ``mkl`` wheel is installed (``make`` installs it on x86-64
Linux; tests/kernels/test_measured_choices.py). Each
choice trains the same MLP to the same losses, MKL runs on its sequential layer (no second OpenMP
runtime beside numba's), and a wrong value is a one-line error.

Each run is a fresh process: the source is chosen once per process."""

import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import pe_cli.fluid as fluid
    from pe_cli.kernels.cpu.runtime import cblas as _cblas

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [784])
        label = fluid.layers.data("label", [1], dtype="int64")
        h = fluid.layers.fc(x, 256, act="relu", param_attr=fluid.ParamAttr(initializer=fluid.initializer.Uniform(-0.05, 0.05, seed=1)))
        logits = fluid.layers.fc(h, 10, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Uniform(-0.05, 0.05, seed=2)))
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.Momentum(0.05, momentum=0.9).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    feed = {"x": rng.random((64, 784), dtype=np.float32), "label": rng.integers(0, 10, (64, 1))}
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0][0]) for _ in range(4)]
    libs = sorted({line.split()[-1].rsplit("/", 1)[-1] for line in open("/proc/self/maps")
                   if ".so" in line and ("mkl" in line or "iomp" in line)})
    print(json.dumps({"source": _cblas.source(), "losses": losses, "libs": libs}))
""")


def _mkl_installed():
    try:
        metadata.distribution("mkl")
        return True
    except metadata.PackageNotFoundError:
        return False


def _train(blas, threads):
    env = dict(os.environ, PE_BLAS=blas, PE_DEVICE_THREADS=str(threads), PE_COMPILE_HELPER="0")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
@pytest.mark.skipif(not _mkl_installed(), reason="the mkl wheel exists for x86-64 Linux only")
def test_mkl_and_numpys_blas_train_the_mlp_to_the_same_losses():
    numpy_runs = [_train("numpy", t) for t in (1, 2)]
    mkl_runs = [_train("mkl", t) for t in (1, 2)]
    assert {r["source"] for r in numpy_runs} == {"numpy's BLAS"}
    assert {r["source"] for r in mkl_runs} == {"MKL"}
    assert all(not r["libs"] for r in numpy_runs)  # numpy's choice never loads MKL
    for run in mkl_runs:  # sequential MKL, no Intel OpenMP
        assert any(n.startswith("libmkl_sequential") for n in run["libs"]), run["libs"]
        assert not any("iomp" in n for n in run["libs"]), run["libs"]
    reference = numpy_runs[0]["losses"]
    assert reference[-1] < reference[0]  # it trains
    for run in numpy_runs[1:] + mkl_runs:
        assert run["losses"] == pytest.approx(reference, rel=1e-5, abs=1e-6)


PLANNED = textwrap.dedent("""
    import hashlib, json, os
    import numpy as np
    import pe_cli.fluid as fluid
    from pe_cli.kernels.cpu.runtime import cblas as _cblas

    def train(planned):
        os.environ["PE_PLANNED_STEP"] = "1" if planned else "0"
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 7
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = fluid.layers.data("x", [13])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.fc(x, 32, act="relu")  # (products of under a million multiply-adds: numpy's)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), label))
            fluid.optimizer.Momentum(0.05, momentum=0.9).minimize(loss)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        rng = np.random.default_rng(0)
        feed = {"x": rng.standard_normal((64, 13)).astype(np.float32), "label": rng.integers(0, 10, (64, 1))}
        losses = [exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0].tobytes().hex() for _ in range(5)]
        params = {p.name: hashlib.sha256(np.array(scope.get_array(p.name)).tobytes()).hexdigest()
                  for p in main.all_parameters()}
        plans = [p for plan in exe._plans.values() for _, cache in plan.planned.values()
                 for p in cache.values() if not isinstance(p, int)]
        return {"losses": losses, "params": params,
                "launched": [[p.planned_ops, len(p.plan.steps)] for p in plans]}

    print(json.dumps({"source": _cblas.source(), "planned": train(True), "op_by_op": train(False)}))
""")


@pytest.mark.skipif(not _mkl_installed(), reason="the mkl wheel exists for x86-64 Linux only")
@pytest.mark.parametrize("blas", ["numpy", "mkl"])
def test_planned_steps_launch_small_products_with_numpys_bits_whatever_the_blas(blas):
    """A product too small to split is numpy's matmul op by op, whichever BLAS the loops call; a planned step
    launches numpy's own GEMM for it (cblas.numpy_gemm): every op launched, the op-by-op bits, under MKL too."""
    env = dict(os.environ, PE_BLAS=blas, PE_SEGMENT_COMPILE_AFTER="0")
    out = subprocess.run([sys.executable, "-c", PLANNED], capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout.splitlines()[-1])
    assert run["source"] == {"numpy": "numpy's BLAS", "mkl": "MKL"}[blas]
    (launched, ops), *rest = run["planned"]["launched"]
    assert not rest and launched == ops  # every op launched
    assert run["planned"]["losses"] == run["op_by_op"]["losses"]
    assert run["planned"]["params"] == run["op_by_op"]["params"]
    assert not run["op_by_op"]["launched"]


def test_a_wrong_pe_blas_is_a_one_line_error(tmp_path):
    env = dict(os.environ, PE_BLAS="openblas")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pe_cli",
            "train",
            "configs/mnist_mlp.yaml",
            "--max-steps",
            "1",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=os.path.join(os.path.dirname(__file__), "..", ".."),
    )
    assert out.returncode != 0
    assert "PE_BLAS='openblas': give auto, mkl or numpy (or unset it)" in out.stderr
    assert "Traceback" not in out.stderr

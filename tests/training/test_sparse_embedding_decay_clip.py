"""Row-sparse embedding gradients with the rest of training: weight decay and gradient clipping
densify the gradient as Fluid 1.8 does (its regularizer sums the sparse gradient with a dense decay
term into a dense gradient), so a sparse model trains to the dense model's parameters; checkpoints
hold the dense parameter, so save / load / continue equals training straight through."""

from paths import REPO, TESTS
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from tests.transpiler.test_distributed import MPIEXEC, _env, needs_mpi
from tests.training.test_sparse_embedding import batches, build, train

WORKER = os.path.join(TESTS, "sparse_dist_worker.py")


@pytest.mark.parametrize("extra", ["l2decay", "l1decay", "clip_global_norm", "clip_by_value", "clip_by_norm"])
def test_regularizers_and_clips_give_the_dense_result(extra):
    make = {
        "l2decay": lambda: fluid.optimizer.SGD(0.5, regularization=fluid.regularizer.L2Decay(0.01)),
        "l1decay": lambda: fluid.optimizer.Adagrad(0.05, regularization=fluid.regularizer.L1Decay(0.001)),
        "clip_global_norm": lambda: fluid.optimizer.SGD(0.5, grad_clip=fluid.clip.GradientClipByGlobalNorm(0.05)),
        "clip_by_value": lambda: fluid.optimizer.Adam(0.05, grad_clip=fluid.clip.GradientClipByValue(0.01, -0.01)),
        "clip_by_norm": lambda: fluid.optimizer.SGD(0.5, grad_clip=fluid.clip.GradientClipByNorm(0.02)),
    }[extra]
    dense, dense_losses = train(False, make)
    sparse, sparse_losses = train(True, make)
    np.testing.assert_allclose(sparse_losses, dense_losses, rtol=1e-6)
    for k in dense:
        np.testing.assert_allclose(sparse[k], dense[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_checkpoint_resume_equals_straight_training(tmp_path):
    data = batches(6)
    make = lambda: fluid.optimizer.Adam(0.05, lazy_mode=True)  # noqa: E731 -- moments are persistables too
    straight, _ = train(True, make, data)
    main, startup, loss = build(True, make)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for feed in data[:3]:
            exe.run(main, feed=feed, fetch_list=[loss])
        fluid.io.save_persistables(exe, str(tmp_path), main)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        fluid.io.load_persistables(exe, str(tmp_path), main)
        for feed in data[3:]:
            exe.run(main, feed=feed, fetch_list=[loss])
        resumed = {k: np.array(scope.find_var(k).get_tensor()) for k in straight}
    for k in straight:
        np.testing.assert_array_equal(resumed[k], straight[k], err_msg=k)


@needs_mpi
def test_two_processes_densify_and_match_one_process(tmp_path):
    """Between processes the sparse gradient is summed densified (a dense buffer per process) and comes
    back row-sparse with every row: 2 processes x 1 device match 1 process on the whole batches, sparse
    Adam's Fluid 1.8.5 bias correction included (docs/SPARSE.md)."""
    out = tmp_path / "sparse"
    done = subprocess.run(
        [MPIEXEC, "-n", "2", sys.executable, WORKER, "2", str(out)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = [dict(np.load(f"{out}.{r}.npz")) for r in range(2)]
    one, one_losses = train(True, lambda: fluid.optimizer.Adam(0.05), batches(4))
    np.testing.assert_allclose(np.mean([r["losses"] for r in runs], axis=0), one_losses, rtol=1e-5)
    for k in one:
        np.testing.assert_array_equal(runs[0][k], runs[1][k], err_msg=k)
        np.testing.assert_allclose(runs[0][k], one[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_yaml_embedding_is_sparse_trains_like_dense(tmp_path):
    """`is_sparse: true` on a YAML embedding layer: `pe train` of the bundled CTR model gives the
    dense model's training losses under Adam (every row updates either way), and different ones with
    `optimizer.lazy_mode=true` (only the rows of each batch move), which a dense gradient ignores."""
    from tests.cli.test_helpers import pe

    model = open(os.path.join(REPO, "models", "ctr.yaml")).read()
    assert "size: [1000, 8]}" in model
    config = open(os.path.join(REPO, "configs", "ctr.yaml")).read().replace("../data/", f"{REPO}/data/")
    losses = {}
    for sparse, lazy in ((False, False), (True, False), (True, True)):
        folder = tmp_path / f"sparse{sparse}-lazy{lazy}"
        folder.mkdir()
        (folder / "ctr.yaml").write_text(
            model.replace("size: [1000, 8]}", f"size: [1000, 8], is_sparse: {str(sparse).lower()}}}")
        )
        (folder / "run.yaml").write_text(config.replace("../models/ctr.yaml", "ctr.yaml"))
        proc = pe(
            "train",
            folder / "run.yaml",
            "data.train.limit=640",
            "epochs=1",
            "fetch.every=5",
            f"optimizer.lazy_mode={str(lazy).lower()}",
            "output.curves=false",
            "--out",
            folder / "run",
            "-q",
        )
        assert proc.returncode == 0, proc.stderr
        rows = [json.loads(line) for line in open(folder / "run" / "metrics.jsonl")]
        losses[sparse, lazy] = [r["loss"] for r in rows if r["phase"] == "train"]
    assert len(losses[True, False]) >= 4
    np.testing.assert_allclose(losses[True, False], losses[False, False], rtol=1e-5)
    assert not np.allclose(losses[True, True], losses[False, False], rtol=1e-5)

"""Row-sparse embedding gradients with the rest of training: weight decay and gradient clipping
densify the gradient as Fluid 1.8 does (its regularizer sums the sparse gradient with a dense decay
term into a dense gradient), so a sparse model trains to the dense model's parameters; checkpoints
hold the dense parameter, so save / load / continue equals training straight through."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from tests.test_sparse_embedding import batches, build, train


@pytest.mark.parametrize("extra", ["l2decay", "l1decay", "clip_global_norm", "clip_by_value", "clip_by_norm"])
def test_regularizers_and_clips_give_the_dense_result(extra):
    make = {"l2decay": lambda: fluid.optimizer.SGD(0.5, regularization=fluid.regularizer.L2Decay(0.01)),
            "l1decay": lambda: fluid.optimizer.Adagrad(0.05, regularization=fluid.regularizer.L1Decay(0.001)),
            "clip_global_norm": lambda: fluid.optimizer.SGD(0.5, grad_clip=fluid.clip.GradientClipByGlobalNorm(0.05)),
            "clip_by_value": lambda: fluid.optimizer.Adam(0.05, grad_clip=fluid.clip.GradientClipByValue(0.01, -0.01)),
            "clip_by_norm": lambda: fluid.optimizer.SGD(0.5, grad_clip=fluid.clip.GradientClipByNorm(0.02))}[extra]
    dense, dense_losses = train(False, make)
    sparse, sparse_losses = train(True, make)
    np.testing.assert_allclose(sparse_losses, dense_losses, rtol=1e-6)
    for k in dense:
        np.testing.assert_allclose(sparse[k], dense[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_checkpoint_resume_equals_straight_training(tmp_path):
    data = batches(6)
    make = lambda: fluid.optimizer.Adam(0.05, lazy_mode=True)   # noqa: E731 -- moments are persistables too
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

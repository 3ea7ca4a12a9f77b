# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_drop_scope.py @ 02c53c2deaa4a3752e53a80f278729600eaa084a
# Re-written for pe (same API calls, same facts), run with `pe fluid` (fluid.layers.mean for
# paddle.mean). Facts: a training ParallelExecutor (num_iteration_per_drop_scope 10) and a test one
# sharing its variables, on CPU_NUM=2 devices, each need no new local execution scopes after a run
# (ParallelExecutor._need_create_local_exe_scopes() is False) and need them again once
# drop_local_exe_scopes() has dropped them. The CUDA case runs where CUDA is.
import os

import numpy

import paddle.fluid as fluid


def check_drop_scope(use_cuda=True):
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    if not use_cuda:
        os.environ["CPU_NUM"] = str(2)
    train_program, startup_program = fluid.Program(), fluid.Program()
    with fluid.program_guard(train_program, startup_program):
        data = fluid.layers.data(name="X", shape=[1], dtype="float32")
        hidden = fluid.layers.fc(input=data, size=10)
        loss = fluid.layers.mean(hidden)
        test_program = fluid.default_main_program().clone(for_test=True)
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
    exe = fluid.Executor(place)
    exe.run(startup_program)
    exec_strateg = fluid.ExecutionStrategy()
    exec_strateg.num_iteration_per_drop_scope = 10
    train_exe = fluid.ParallelExecutor(
        use_cuda=use_cuda, main_program=train_program, loss_name=loss.name, exec_strategy=exec_strateg
    )
    test_exe = fluid.ParallelExecutor(
        use_cuda=use_cuda, main_program=test_program, share_vars_from=train_exe, exec_strategy=exec_strateg
    )
    x = numpy.random.random(size=(10, 1)).astype("float32")
    train_exe.run(feed={"X": x}, fetch_list=[loss.name])
    test_exe.run(feed={"X": x}, fetch_list=[loss.name])
    assert train_exe._need_create_local_exe_scopes() == False  # noqa: E712 -- as Paddle writes it
    assert test_exe._need_create_local_exe_scopes() == False  # noqa: E712
    # drop the local execution scopes now
    train_exe.drop_local_exe_scopes()
    test_exe.drop_local_exe_scopes()
    assert train_exe._need_create_local_exe_scopes()
    assert test_exe._need_create_local_exe_scopes()


check_drop_scope(use_cuda=False)
if fluid.core.is_compiled_with_cuda():
    check_drop_scope(use_cuda=True)
print("ok")

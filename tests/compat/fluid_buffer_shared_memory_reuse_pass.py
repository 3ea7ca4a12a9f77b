# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_buffer_shared_memory_reuse_pass.py @ 02c53c2deaa4a3752e53a80f278729600eaa084a
# Re-written for pe (same API calls, same facts), run with `pe fluid`: Program.random_seed for 2.x's
# paddle.seed, np.random.randint for the deprecated random_integers. Facts: simple_fc_net (simple_nets.py,
# in _parallel_executor_base.py) trained with Adam, each run fetching one non-persistable variable
# (feeds, temporaries, gradients), gives exactly the same fetched values, run after run, whether run
# by an Executor as a Program or as a CompiledProgram on one place with BuildStrategy.memory_optimize and
# enable_inplace each off and on; on 4 CPU places the four strategies' CompiledPrograms agree exactly too.
# Paddle fetches 4 randomly drawn variables; here 12 are (of more than 20), to keep the run short.
# The CUDA cases run where CUDA is.
import random

import numpy as np

import paddle.fluid as fluid
from _parallel_executor_base import simple_fc_net

batch_size = 32
FETCHED = 12
np.random.seed(3)
feed_dict = {
    "image": np.random.random([batch_size, 784]).astype("float32"),
    "label": np.random.randint(low=0, high=10, size=[batch_size, 1]).astype("int64"),
}


class InplaceTest:
    def __init__(self, use_cuda, fuse_all_optimizer_ops=False):
        self.use_cuda = use_cuda
        self.fuse_all_optimizer_ops = fuse_all_optimizer_ops
        if self.use_cuda and fluid.core.is_compiled_with_cuda():
            self.device_count = fluid.core.get_cuda_device_count()
        else:
            self.device_count = 4
        assert batch_size % self.device_count == 0

    def build_program_and_scope(self):
        self.place = fluid.CUDAPlace(0) if self.use_cuda else fluid.CPUPlace()
        startup_program, main_program = fluid.Program(), fluid.Program()
        startup_program.random_seed = main_program.random_seed = 1
        scope = fluid.Scope()
        with fluid.program_guard(main_program, startup_program):
            with fluid.unique_name.guard():
                loss = simple_fc_net()
                fluid.optimizer.Adam(learning_rate=1e-3).minimize(loss)
                with fluid.scope_guard(scope):
                    exe = fluid.Executor(fluid.CUDAPlace(0) if self.use_cuda else fluid.CPUPlace())
                    exe.run(startup_program)
        return main_program, scope, exe, loss

    def is_invalid_test(self):
        return self.use_cuda and not fluid.core.is_compiled_with_cuda()

    def get_all_vars(self, program):
        return [name for name, var in program.global_block().vars.items() if 0 not in var.shape and not var.persistable]

    def compiled_programs(self, places):
        scopes, compiled = [], []
        for memory_optimize in [False, True]:
            for enable_inplace in [False, True]:
                prog, scope, _, loss = self.build_program_and_scope()
                scopes.append(scope)
                build_strategy = fluid.BuildStrategy()
                build_strategy.memory_optimize = memory_optimize
                build_strategy.enable_inplace = enable_inplace
                build_strategy.fuse_all_optimizer_ops = self.fuse_all_optimizer_ops
                compiled.append(
                    fluid.CompiledProgram(prog).with_data_parallel(
                        loss_name=loss.name, build_strategy=build_strategy, places=places
                    )
                )
        return scopes, compiled

    def check_single_card_fetch_var(self):
        if self.is_invalid_test():
            return
        prog1, scope1, exe, loss1 = self.build_program_and_scope()
        scopes, compiled_programs = self.compiled_programs(self.place)
        repeated_var_names = self.get_all_vars(prog1)
        random.shuffle(repeated_var_names)
        assert len(repeated_var_names) > 20, repeated_var_names
        for fetch_var in repeated_var_names[:FETCHED]:
            for _ in range(2):
                with fluid.scope_guard(scope1):
                    (fetch_val1,) = exe.run(prog1, feed=feed_dict, fetch_list=[fetch_var])
                for scope, compiled_prog in zip(scopes, compiled_programs):
                    with fluid.scope_guard(scope):
                        (fetch_val2,) = exe.run(compiled_prog, feed=feed_dict, fetch_list=[fetch_var])
                        np.testing.assert_array_equal(fetch_val1, fetch_val2, err_msg=f"error var name: {fetch_var}")

    def check_multi_card_fetch_var(self):
        if self.is_invalid_test():
            return
        prog1, scope1, exe, loss1 = self.build_program_and_scope()
        places = fluid.cuda_places() if self.use_cuda else fluid.cpu_places(self.device_count)
        scopes, compiled_programs = self.compiled_programs(places)
        repeated_var_names = self.get_all_vars(prog1)
        random.shuffle(repeated_var_names)
        for fetch_var in repeated_var_names[:FETCHED]:
            for _ in range(2):
                fetch_vals = []
                for scope, compiled_prog in zip(scopes, compiled_programs):
                    with fluid.scope_guard(scope):
                        (fetch_val,) = exe.run(compiled_prog, feed=feed_dict, fetch_list=[fetch_var])
                        fetch_vals.append(fetch_val)
                for item in fetch_vals:
                    np.testing.assert_array_equal(fetch_vals[0], item, err_msg=f"error var name: {fetch_var}")


for use_cuda in (True, False):  # CUDAInplaceTest, CPUInplaceTest
    test = InplaceTest(use_cuda)
    test.check_multi_card_fetch_var()
    test.check_single_card_fetch_var()
print("ok")

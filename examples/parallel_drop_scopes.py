"""drop_local_exe_scopes (the third example of ParallelExecutor's Fluid page): each device keeps its
temporaries in a local scope between runs and drops them every num_iteration_per_drop_scope runs
(ExecutionStrategy, default 100); drop_local_exe_scopes() drops them at once.

    CPU_NUM=2 python examples/parallel_drop_scopes.py
"""

import os

import numpy

import pe_cli.fluid as fluid

os.environ.setdefault("CPU_NUM", str(2))

train_program = fluid.Program()
startup_program = fluid.Program()
with fluid.program_guard(train_program, startup_program):
    data = fluid.layers.data(name="X", shape=[1], dtype="float32")
    hidden = fluid.layers.fc(input=data, size=10)
    loss = fluid.layers.mean(hidden)

place = fluid.CPUPlace()
exe = fluid.Executor(place)
exe.run(startup_program)

exec_strategy = fluid.ExecutionStrategy()
exec_strategy.num_iteration_per_drop_scope = 100
parallel_exe = fluid.ParallelExecutor(
    use_cuda=False, main_program=train_program, loss_name=loss.name, exec_strategy=exec_strategy
)

x = numpy.random.random(size=(10, 1)).astype("float32")
(loss_data,) = parallel_exe.run(feed={"X": x}, fetch_list=[loss.name])

# Drop every device's temporaries now, rather than after 100 runs.
parallel_exe.drop_local_exe_scopes()

# The parameters live in the scope of the devices, not in the dropped local scopes: runs go on.
(loss_again,) = parallel_exe.run(feed={"X": x}, fetch_list=[loss.name])
assert numpy.allclose(loss_data, loss_again)
print(f"loss per device {loss_data}, after drop_local_exe_scopes() {loss_again}")

"""ParallelExecutor, the first example of its Fluid page: a train and a test executor on several CPU
devices sharing parameters (share_vars_from), fed a dict that is split over the devices.

    CPU_NUM=2 python examples/parallel_executor_train_test.py
"""

import os

import numpy

import pe_cli.fluid as fluid

use_cuda = False
place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
if not use_cuda:
    os.environ.setdefault("CPU_NUM", str(2))  # several CPU devices; the batch must have at least as many rows

exe = fluid.Executor(place)

train_program = fluid.Program()
startup_program = fluid.Program()
with fluid.program_guard(train_program, startup_program):
    data = fluid.layers.data(name="X", shape=[1], dtype="float32")
    hidden = fluid.layers.fc(input=data, size=10)
    loss = fluid.layers.mean(hidden)
    test_program = fluid.default_main_program().clone(for_test=True)
    fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)

exe.run(startup_program)

train_exe = fluid.ParallelExecutor(use_cuda=use_cuda, main_program=train_program, loss_name=loss.name)
# Without share_vars_from=train_exe the test executor would not use the trained parameters.
test_exe = fluid.ParallelExecutor(use_cuda=use_cuda, main_program=test_program, share_vars_from=train_exe)

train_data = numpy.random.random(size=(10, 1)).astype("float32")
for _ in range(5):
    (loss_data,) = train_exe.run(feed={"X": train_data}, fetch_list=[loss.name])

test_data = numpy.random.random(size=(10, 1)).astype("float32")
(test_loss,) = test_exe.run(feed={"X": test_data}, fetch_list=[loss.name])

# One loss per device, concatenated along dim 0.
assert loss_data.shape == (train_exe.device_count,) and test_loss.shape == (test_exe.device_count,)
# The test executor saw the trained parameters: the sequential Executor, on the parameters left in the
# global scope, computes the same loss on each device's part of the batch (10 samples: 5 and 5).
if test_exe.device_count == 2:
    halves = [
        exe.run(test_program, feed={"X": part}, fetch_list=[loss.name])[0][0] for part in (test_data[:5], test_data[5:])
    ]
    assert numpy.allclose(test_loss, halves, rtol=1e-5), (test_loss, halves)
print(f"devices: {train_exe.device_count}, train loss per device: {loss_data}, test loss per device: {test_loss}")

"""CompiledProgram(...).with_data_parallel (its Fluid page): a train and a test program compiled for
the same places, the test one sharing the train one's parameters, both run by a plain Executor.

    python examples/parallel_compiled_program.py      # places=[CPUPlace()] * 2, whatever CPU_NUM is
"""

import numpy

import pe_cli.fluid as fluid

use_cuda = False
place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
parallel_places = [fluid.CUDAPlace(0), fluid.CUDAPlace(1)] if use_cuda else [fluid.CPUPlace()] * 2

exe = fluid.Executor(place)
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    data = fluid.layers.data(name="X", shape=[1], dtype="float32")
    hidden = fluid.layers.fc(input=data, size=10)
    loss = fluid.layers.mean(hidden)
    test_program = main.clone(for_test=True)
    fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)

exe.run(startup)
compiled_train_prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=parallel_places)
# Without share_vars_from=compiled_train_prog the test program would use other parameters.
compiled_test_prog = fluid.CompiledProgram(test_program).with_data_parallel(
    share_vars_from=compiled_train_prog, places=parallel_places
)

train_data = numpy.random.random(size=(10, 1)).astype("float32")
for step in range(3):
    (loss_data,) = exe.run(compiled_train_prog, feed={"X": train_data}, fetch_list=[loss.name])
    print(f"step {step}: train loss per device {loss_data}")
test_data = numpy.random.random(size=(10, 1)).astype("float32")
(test_loss,) = exe.run(compiled_test_prog, feed={"X": test_data}, fetch_list=[loss.name])
print(f"test loss per device {test_loss}")
assert loss_data.shape == test_loss.shape == (2,)

# The trained parameters are in the global scope: a plain Executor on the test program agrees.
halves = [
    exe.run(test_program, feed={"X": part}, fetch_list=[loss.name])[0][0] for part in (test_data[:5], test_data[5:])
]
assert numpy.allclose(test_loss, halves, rtol=1e-5), (test_loss, halves)

# A CompiledProgram without with_data_parallel runs like its program.
(single,) = exe.run(fluid.CompiledProgram(test_program), feed={"X": test_data}, fetch_list=[loss.name])
assert single.shape == (1,)

"""The Executor example of the Fluid docs: X[N, 1] -> fc 10 -> assign -> mean, trained with Adam.

python examples/executor_basics.py
"""

import numpy

import pe_cli.fluid as fluid
from pe_cli.fluid import layers

main, startup = fluid.Program(), fluid.Program()
main.random_seed = startup.random_seed = 1
with fluid.program_guard(main, startup):
    data = layers.data(name="X", shape=[1], dtype="float32")
    hidden = layers.fc(input=data, size=10)
    out = layers.create_tensor(dtype="float32")
    layers.assign(hidden, out)
    loss = layers.mean(out)
    adam = fluid.optimizer.Adam()
    adam.minimize(loss)

cpu = fluid.core.CPUPlace()
exe = fluid.Executor(cpu)
exe.run(startup)

x = numpy.random.random(size=(10, 1)).astype("float32")
(first,) = exe.run(main, feed={"X": x}, fetch_list=[loss.name])
for _ in range(20):
    outs = exe.run(main, feed={"X": x}, fetch_list=[loss.name])
print(f"loss {float(first[0]):.4f} -> {float(outs[0][0]):.4f}")
assert outs[0][0] < first[0], "Adam should lower the mean of the output"

"""The two ways to feed a ParallelExecutor (its Fluid page, second example):

- a dict is split along dim 0 over the devices (10 samples on 2 devices: 5 and 5; 3 samples on 2
  devices: [0] and [1, 2] — the remainder goes to the last devices);
- a list gives one dict per device (exe.device_count of them), each copied to its device as is.

    CPU_NUM=2 python examples/parallel_feeds.py
"""

import os

import numpy

import pe_cli.fluid as fluid

os.environ.setdefault("CPU_NUM", str(2))
exe = fluid.Executor(fluid.CPUPlace())

train_program = fluid.Program()
startup_program = fluid.Program()
with fluid.program_guard(train_program, startup_program):
    data = fluid.layers.data(name="X", shape=[1], dtype="float32")
    hidden = fluid.layers.fc(input=data, size=10)
    loss = fluid.layers.mean(hidden)
    fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)

exe.run(startup_program)
train_exe = fluid.ParallelExecutor(use_cuda=False, main_program=train_program, loss_name=loss.name)
n = train_exe.device_count

# A dict: split over the devices; each device computes its own loss, fetched side by side.
x = numpy.random.random(size=(10, 1)).astype("float32")
(loss_data,) = train_exe.run(feed={"X": x}, fetch_list=[loss.name])
print(f"dict feed of 10 samples on {n} devices: losses {loss_data}")
assert loss_data.shape == (n,)

# A list: one dict per device; here the devices get 10 and 9 samples.
feeds = [{"X": numpy.random.random(size=(10 - i, 1)).astype("float32")} for i in range(n)]
(loss_data,) = train_exe.run(feed=feeds, fetch_list=[loss.name])
print(f"list feed of {[len(f['X']) for f in feeds]} samples: losses {loss_data}")

# Fetching the fed variable shows the split: the devices' parts concatenated back in order.
x3 = numpy.arange(2 * n + 1, dtype="float32").reshape(-1, 1)
(back,) = train_exe.run(feed={"X": x3}, fetch_list=["X"])
assert (back == x3).all()

# Mistakes are caught before anything runs.
for bad in ([{"X": x}] * (n + 1), [{"X": x}] * (n - 1) + ["X"], {"X": x[: n - 1]}):
    try:
        train_exe.run(feed=bad, fetch_list=[loss.name])
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
    else:
        raise AssertionError(f"feed={bad!r} should fail")

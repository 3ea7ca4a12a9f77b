# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_using_executor.py @ 74a2c33ce5e88ae7871a8aba9c99aba2070aee85
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid` on CPU_NUM=4 devices, in its
# Fluid 1.8 form (fluid.layers.mean). Smaller, to run in seconds: 64 inputs (not 1000), hidden [16, 8]
# (not [50, 30, 20]), batches of 8 (not 32), 3 iterations (not 10). Facts, for every combination of
# CPU / CUDA (where it is), Executor / CompiledProgram.with_data_parallel, double buffer on / off, py_reader /
# create_py_reader_by_data, and decorate_paddle_reader (or decorate_sample_list_generator) + start() /
# LoDTensorArrays pushed into reader.queue from a thread: exe.run gives the pushed batches in order
# (data parallel: each of the 4 devices reads a batch of its own, the fetch holding all their samples)
# and then raises fluid.core.EOFException.
import os
import threading

import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.unique_name as unique_name
from paddle.fluid import compiler

os.environ["CPU_NUM"] = "4"
IN_SIZE, HIDDEN, CLASSES, BATCH, ITERATIONS, CAPACITY = 64, [16, 8], 10, 8, 3, 50


def to_tensor_array(samples):
    """A minibatch (a list of samples) as the LoDTensorArray a py_reader's queue takes: one tensor per slot."""
    array = fluid.LoDTensorArray()
    for slot in zip(*samples):
        tensor = fluid.LoDTensor()
        tensor.set(np.array(slot), fluid.CPUPlace())
        array.append(tensor)
    return array


def push_all(queue, batch_reader):
    for batch in batch_reader():
        if batch == [None] or not queue.push(to_tensor_array(batch)):
            break
    queue.close()


def build(double_buffer, by_data):
    data = fluid.layers.data(name="data", dtype="float32", shape=[IN_SIZE])
    label = fluid.layers.data(name="label", dtype="int64", shape=[1])
    name = unique_name.generate("py_reader_name")
    if by_data:
        reader = fluid.layers.create_py_reader_by_data(
            capacity=CAPACITY, feed_list=[data, label], name=name, use_double_buffer=double_buffer
        )
    else:
        reader = fluid.layers.py_reader(
            capacity=CAPACITY,
            shapes=[data.shape, label.shape],
            dtypes=["float32", "int64"],
            name=name,
            use_double_buffer=double_buffer,
        )
    data, label = fluid.layers.read_file(reader)
    hidden = data
    for size in HIDDEN:
        hidden = fluid.layers.fc(
            hidden, size=size, act="tanh", bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=1.0))
        )
    predict = fluid.layers.fc(hidden, size=CLASSES, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    fluid.optimizer.Adam().minimize(loss)
    return data, label, loss, reader


def run_case(use_cuda, parallel, double_buffer, by_data, decorate):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        data, label, loss, reader = build(double_buffer, by_data)
        queue = reader.queue
        exe = fluid.Executor(fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace())
        exe.run(startup)
        program = main
        devices = 1
        if parallel:
            program = compiler.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
            devices = core.get_cuda_device_count() if use_cuda else int(os.environ["CPU_NUM"])
        step_samples = BATCH * devices
        expected = []  # per step: the [inputs, labels] of the samples all devices read

        def samples():
            for i in range(BATCH * ITERATIONS * devices):
                x = np.random.uniform(0, 1, size=(IN_SIZE,)).astype("float32")
                y = np.random.randint(0, CLASSES, size=(1,)).astype("int64")
                if i % step_samples == 0:
                    expected.append([x[None], y[None]])
                else:
                    expected[-1] = [
                        np.concatenate([expected[-1][0], x[None]]),
                        np.concatenate([expected[-1][1], y[None]]),
                    ]
                yield x, y
            if not decorate:
                yield None

        batches = paddle.batch(samples, batch_size=BATCH)
        if decorate:
            if by_data:
                reader.decorate_paddle_reader(batches)
            else:
                reader.decorate_sample_list_generator(batches)
            reader.start()
        else:
            pusher = threading.Thread(target=push_all, args=(queue, batches), daemon=True)
            pusher.start()
        got = []
        try:
            while True:
                got.append([np.array(v) for v in exe.run(program, fetch_list=[data.name, label.name])])
        except fluid.core.EOFException:
            pass
        queue.close()
        check(expected, got, parallel, double_buffer, step_samples)
        if decorate:
            reader.exited = True
            reader.thread.join()
        else:
            pusher.join()


def check(expected, got, parallel, double_buffer, step_samples):
    assert len(got) == len(expected) if not double_buffer else len(got) <= len(expected), (len(got), len(expected))
    for want, have in zip(expected, got):
        assert len(want) == len(have)
        if parallel and not double_buffer:  # the devices' batches, in some order: match rows
            left = list(range(step_samples))
            for i in range(step_samples):
                j = next(j for j in left if all((w[i] == h[j]).all() for w, h in zip(want, have)))
                left.remove(j)
        else:
            for w, h in zip(want, have):
                assert w.shape == h.shape
                if not parallel:
                    assert (w == h).all()


for use_cuda in [False, True] if core.is_compiled_with_cuda() else [False]:
    for parallel in (False, True):
        for double_buffer in (False, True):
            for by_data in (False, True):
                for decorate in (False, True):
                    run_case(use_cuda, parallel, double_buffer, by_data, decorate)
print("ok")

# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_push_pop.py @ 1bcbb26ebaf854d10aaf85f8b875473db8a16efb
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Facts: 20 batches of 10
# to 20 rows (float64 [-1, 3, 2, 1] and int64 [-1, 1] slots), made LoDTensorArrays of
# fluid.executor._as_lodtensor values and pushed into a py_reader's queue (one before each run, or all
# from another thread), come out of read_file's variables at exe.run unchanged and in order.
import threading

import numpy as np
import paddle.fluid as fluid

SHAPES, DTYPES = [(-1, 3, 2, 1), (-1, 1)], ["float64", "int64"]


def run(from_thread):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        place = fluid.CUDAPlace(0) if fluid.core.is_compiled_with_cuda() else fluid.CPUPlace()
        exe = fluid.Executor(place)
        reader = fluid.layers.py_reader(capacity=10, dtypes=DTYPES, lod_levels=[0, 0], shapes=SHAPES)
        queue = reader.queue
        outs = fluid.layers.read_file(reader)
        batches = []
        for _ in range(20):
            rows = np.random.randint(10, 21)
            array = fluid.LoDTensorArray()
            for shape, dtype in zip(SHAPES, DTYPES):
                values = np.random.uniform(0, 1000, size=(rows,) + shape[1:]).astype(dtype)
                array.append(fluid.executor._as_lodtensor(values, place))
            batches.append(array)
        exe.run(fluid.default_startup_program())
        fetched = []
        if from_thread:
            pusher = threading.Thread(target=lambda: [queue.push(b) for b in batches])
            pusher.start()
            for _ in batches:
                fetched.append(exe.run(fetch_list=list(outs)))
            pusher.join()
        else:
            for batch in batches:
                queue.push(batch)
                fetched.append(exe.run(fetch_list=list(outs)))
        queue.close()
    assert len(fetched) == len(batches)
    for batch, got in zip(batches, fetched):
        assert len(batch) == len(got)
        for tensor, value in zip(batch, got):
            assert (np.array(tensor) == value).all()


run(from_thread=False)
run(from_thread=True)
print("ok")

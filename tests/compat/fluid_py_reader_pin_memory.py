# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_pin_memory.py @ 12f70db6ebab7dc56aa2d8f8167153ae5fffa9d8
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Facts: a py_reader
# decorated with decorate_tensor_provider (minibatches of paddle.batch as LoDTensors set on
# core.CUDAPinnedPlace() where CUDA is, else core.CPUPlace()) and started gives exe.run the 5 batches
# of 2 samples in order, the image [2, 3, 2, 1] float32 and the label [2, 1] int64; reset() ends it.
import numpy as np
import paddle
import paddle.fluid as fluid
import paddle.fluid.core as core

PIN = fluid.core.is_compiled_with_cuda()
samples = [
    (np.random.uniform(0, 1, size=[3, 2, 1]).astype("float32"), np.random.randint(0, 10, dtype="int64"))
    for _ in range(10)
]


def sample_reader():
    yield from samples


def tensor_provider():
    for batch in paddle.batch(sample_reader, batch_size=2)():
        image, label = core.LoDTensor(), core.LoDTensor()
        place = core.CUDAPinnedPlace() if PIN else core.CPUPlace()
        image.set(np.array([s for s, _ in batch], dtype="float32"), place)
        label.set(np.array([[lab] for _, lab in batch], dtype="int64"), place)
        yield [image, label]


with fluid.program_guard(fluid.Program(), fluid.Program()):
    exe = fluid.Executor(fluid.CUDAPlace(0) if fluid.core.is_compiled_with_cuda() else fluid.CPUPlace())
    reader = fluid.layers.py_reader(
        capacity=10, dtypes=["float32", "int64"], lod_levels=[0, 0], shapes=[(-1, 3, 2, 1), (-1, 1)]
    )
    outs = fluid.layers.read_file(reader)
    expected = [
        [np.array([s for s, _ in b]), np.array([[lab] for _, lab in b])]
        for b in paddle.batch(sample_reader, batch_size=2)()
    ]
    reader.decorate_tensor_provider(tensor_provider)
    exe.run(fluid.default_startup_program())
    reader.start()
    fetched = [exe.run(fetch_list=list(outs)) for _ in expected]
    reader.reset()

assert len(fetched) == len(expected) == 5
for want, got in zip(expected, fetched):
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.shape == g.shape and (w == g).all()
print("ok")

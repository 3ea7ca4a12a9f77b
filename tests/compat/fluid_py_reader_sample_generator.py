# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_sample_generator.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Facts: a fluid.io.PyReader
# over [image 784 float32, label int64] (capacity 16, no double buffer), iterable (for data in reader():
# exe.run(feed=data)) or not (start(), exe.run until fluid.core.EOFException, reset()), decorated with
# decorate_sample_list_generator(paddle.batch(...), places=cpu_places()) or decorate_sample_generator(
# reader, 32, drop_last, places=cpu_places()), gives exactly paddle.batch's batches of a cached reader, in
# order, every epoch, with and without drop_last, for 165 (2 epochs), 160 (10), 200 and 159 (2) samples.
import os

import numpy as np
import paddle
import paddle.fluid as fluid

os.environ["CPU_NUM"] = "1"
BATCH = 32


def cached_samples(count):
    def samples():
        for _ in range(count):
            yield (np.random.random(size=[784]).astype("float32"), np.random.randint(0, 10, size=[1]).astype("int64"))

    return paddle.reader.cache(samples)


def run(reader, sample_generator, iterable, drop_last, epochs):
    image = fluid.layers.data(name="image", dtype="float32", shape=[784])
    label = fluid.layers.data(name="label", dtype="int64", shape=[1])
    py_reader = fluid.io.PyReader(feed_list=[image, label], capacity=16, iterable=iterable, use_double_buffer=False)
    batches = paddle.batch(reader, BATCH, drop_last)
    expected = [[np.array([s[0] for s in b]), np.array([s[1] for s in b])] for b in batches()]
    if sample_generator:
        py_reader.decorate_sample_generator(reader, BATCH, drop_last, places=fluid.cpu_places())
    else:
        py_reader.decorate_sample_list_generator(batches, places=fluid.cpu_places())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    for _ in range(epochs):
        got = []
        if py_reader.iterable:
            for data in py_reader():
                got.append(exe.run(feed=data, fetch_list=[image, label]))
        else:
            py_reader.start()
            try:
                while True:
                    got.append(exe.run(fetch_list=[image, label]))
            except fluid.core.EOFException:
                py_reader.reset()
        assert len(got) == len(expected), (len(got), len(expected))
        for (img, lbl), (want_img, want_lbl) in zip(got, expected):
            assert img.shape == want_img.shape and (img == want_img).all()
            assert lbl.shape == want_lbl.shape and (lbl == want_lbl).all()
        if not py_reader.iterable:
            break  # as Paddle's: the non-iterable reader is checked for one epoch


for count, epochs in ((165, 2), (160, 10), (200, 2), (159, 2)):
    reader = cached_samples(count)
    for sample_generator in (False, True):
        for iterable in (False, True):
            for drop_last in (False, True):
                with fluid.program_guard(fluid.Program(), fluid.Program()):
                    run(reader, sample_generator, iterable, drop_last, epochs)
print("ok")

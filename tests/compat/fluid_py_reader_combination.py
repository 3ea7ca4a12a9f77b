# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_py_reader_combination.py @ 12f70db6ebab7dc56aa2d8f8167153ae5fffa9d8
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. Facts: two iterable
# fluid.io.PyReaders over the same feed variables, each decorated with decorate_batch_generator(
# paddle.reader.cache(...), places=place), iterated side by side with their generators (zip) give each
# generator's batches unchanged in data[0]['image'] / ['label'], as many steps as the shorter one, ten
# epochs over, for 10 and 20, 20 and 10, 10 and 10 batches; _loader._reset() ends them.
import numpy as np
import paddle
import paddle.fluid as fluid


def batch_generator(count):
    def batches():
        for _ in range(count):
            yield (
                np.random.uniform(-1, 1, size=[count, 784]).astype("float32"),
                np.random.randint(0, 10, size=[count, 1]).astype("int64"),
            )

    return batches


def run(place, n1, n2):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        image = fluid.layers.data(name="image", dtype="float32", shape=[784])
        label = fluid.layers.data(name="label", dtype="int64", shape=[1])
        readers = [fluid.io.PyReader(feed_list=[image, label], capacity=16, iterable=True) for _ in range(2)]
        sources = [paddle.reader.cache(batch_generator(n)) for n in (n1, n2)]
        for reader, source in zip(readers, sources):
            reader.decorate_batch_generator(source, places=place)
        for _ in range(10):
            steps = 0
            for want1, data1, want2, data2 in zip(sources[0](), readers[0](), sources[1](), readers[1]()):
                for want, data in ((want1, data1), (want2, data2)):
                    np.testing.assert_array_equal(want[0], np.array(data[0]["image"]))
                    np.testing.assert_array_equal(want[1], np.array(data[0]["label"]))
                steps += 1
            assert steps == min(n1, n2), steps
        for reader in readers:
            if reader.iterable:
                reader._loader._reset()


places = [fluid.CUDAPlace(0), fluid.CPUPlace()] if fluid.is_compiled_with_cuda() else [fluid.CPUPlace()]
for n1, n2 in ((10, 20), (20, 10), (10, 10)):
    for place in places:
        run(place, n1, n2)
print("ok")

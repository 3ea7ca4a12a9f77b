# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_decoupled_py_reader.py @ 1286d127f6052ebd277362fda07e650295dadf00
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`, in its Fluid 1.8 form
# (Program.random_seed for paddle.seed, fluid.layers.mean for paddle.mean). Facts: an
# MLP trained with Adam on a fluid.io.PyReader (capacity 4) over paddle.batch(16) of 160 seeded samples,
# on [CPUPlace()] and (data parallel) [CPUPlace()] * 2, with and without double buffer: iterable, each
# step gives one feed per place whose image is a [16, 784] and label a [16, 1] LoDTensor on that place;
# and without double buffer, the iterable reader (exe.run(feed=d)) and the legacy one (start(), exe.run
# until fluid.core.EOFException, reset()) train to the same losses (within 1e-3).
import numpy as np
import paddle
import paddle.fluid as fluid

EPOCHS, BATCH, BATCHES, CLASSES = 5, 16, 10, 10


def samples():
    np.random.seed(1)
    for _ in range(BATCH * BATCHES):
        yield np.random.random([784]), np.random.randint(low=0, high=CLASSES)


def build(legacy, double_buffer):
    startup, main = fluid.Program(), fluid.Program()
    startup.random_seed = main.random_seed = 1
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        image = fluid.layers.data(name="image", shape=[784], dtype="float32")
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        reader = fluid.io.PyReader(
            feed_list=[image, label], capacity=4, iterable=not legacy, use_double_buffer=double_buffer
        )
        hidden = image
        for size in (10, 20, 30):
            hidden = fluid.layers.fc(
                hidden,
                size=size,
                act="tanh",
                bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=1.0)),
            )
        predict = fluid.layers.fc(hidden, size=CLASSES, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
        fluid.optimizer.Adam().minimize(loss)
    return startup, main, reader, loss


def train(legacy, data_parallel, places, double_buffer):
    with fluid.scope_guard(fluid.Scope()):
        startup, main, reader, loss = build(legacy, double_buffer)
        feed_places = places if double_buffer else fluid.cpu_places(len(places))
        reader.decorate_sample_list_generator(
            paddle.batch(samples, batch_size=BATCH), places=feed_places if reader.iterable else None
        )
        exe = fluid.Executor(place=places[0])
        exe.run(startup)
        program = fluid.CompiledProgram(main)
        if data_parallel:
            program = program.with_data_parallel(loss_name=loss.name, places=places)
        losses = []
        for _ in range(EPOCHS):
            if reader.iterable:
                for data in reader():
                    assert len(data) == len(places)
                    for feed, place in zip(data, feed_places):
                        assert feed["image"].shape() == [BATCH, 784] and feed["label"].shape() == [BATCH, 1]
                        assert feed["image"]._place()._equals(place) and feed["label"]._place()._equals(place)
                    losses.append(
                        np.mean(exe.run(program=program, feed=data, fetch_list=[loss], use_program_cache=True)[0])
                    )
            else:
                reader.start()
                try:
                    while True:
                        losses.append(np.mean(exe.run(program=program, fetch_list=[loss], use_program_cache=True)[0]))
                except fluid.core.EOFException:
                    reader.reset()
        return np.array(losses)


for data_parallel in (True, False):
    place_lists = [[fluid.CPUPlace()]] + ([[fluid.CPUPlace()] * 2] if data_parallel else [])
    if fluid.core.is_compiled_with_cuda():
        place_lists += [fluid.cuda_places()] if data_parallel else []
        place_lists += [[fluid.cuda_places()[0]]]
    for places in place_lists:
        for double_buffer in (False, True):
            iterable, legacy = (train(legacy, data_parallel, places, double_buffer) for legacy in (False, True))
            if not double_buffer:
                assert np.max(np.abs(iterable - legacy)) < 1e-3, (iterable, legacy)
print("ok")

# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_gradient_clip.py @ 03234917983186d60f37d01f8a8a884d1a9fa7b8
# Re-written for pe (same API calls and facts, in their Fluid 1.8 form: fluid.layers.mean/tanh; the
# float16 and dygraph cases are left out; fake_imdb_reader, a helper of Paddle's test folder, is a
# local reader of random word ids here), run with `pe fluid`.
import numpy as np
import paddle
import paddle.fluid as fluid


def fake_imdb_reader(word_dict_size, sample_num, lower_seq_len=100, upper_seq_len=200, class_dim=2):
    def __reader__():
        rng = np.random.RandomState(0)
        for _ in range(sample_num):
            length = rng.randint(lower_seq_len, upper_seq_len + 1)
            ids = rng.randint(0, word_dict_size, size=length).astype("int64").tolist()
            yield ids, rng.randint(0, class_dim)

    return __reader__


def bow_net(data, label, dict_dim, emb_dim=128, hid_dim=128, hid_dim2=96, class_dim=2):
    emb = fluid.layers.embedding(input=data, is_sparse=True, size=[dict_dim, emb_dim])
    bow = fluid.layers.sequence_pool(input=emb, pool_type="sum")
    bow_tanh = fluid.layers.tanh(bow)
    fc_1 = fluid.layers.fc(input=bow_tanh, size=hid_dim, act="tanh")
    fc_2 = fluid.layers.fc(input=fc_1, size=hid_dim2, act="tanh")
    prediction = fluid.layers.fc(input=[fc_2], size=class_dim, act="softmax")
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    return fluid.layers.mean(x=cost)


WORD_DICT_LEN, BATCH_SIZE = 5147, 2
train_data = paddle.batch(fake_imdb_reader(WORD_DICT_LEN, BATCH_SIZE * 100), batch_size=BATCH_SIZE)


def check_gradient_clip(clip_gradient, check_clip_result, place, dtype="float32"):
    prog, startup_program = fluid.Program(), fluid.Program()
    with fluid.program_guard(main_program=prog, startup_program=startup_program):
        image = fluid.data(name="a", shape=[-1, 784], dtype="float32")
        label = fluid.data(name="b", shape=[-1, 1], dtype="int64")
        if dtype != "float32":
            hidden = fluid.layers.fc(input=fluid.layers.cast(image, dtype), size=32, act="relu")
        else:
            hidden = fluid.layers.fc(input=image, size=32, act="relu")
        predict = fluid.layers.fc(input=hidden, size=10, act="softmax")
        cost = fluid.layers.cross_entropy(input=predict, label=label)
        avg_cost = fluid.layers.mean(cost)
    prog_clip = prog.clone()
    avg_cost_clip = prog_clip.block(0).var(avg_cost.name)
    p_g = fluid.backward.append_backward(loss=avg_cost)
    p_g_clip = fluid.backward.append_backward(loss=avg_cost_clip)
    p_g = sorted(p_g, key=lambda x: x[0].name)
    p_g_clip = sorted(p_g_clip, key=lambda x: x[0].name)
    with fluid.program_guard(main_program=prog_clip, startup_program=startup_program):
        p_g_clip = clip_gradient(p_g_clip)
    grad_list = [elem[1] for elem in p_g]
    grad_clip_list = [elem[1] for elem in p_g_clip]
    train_reader = paddle.batch(paddle.dataset.mnist.train(), batch_size=3)
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=[image, label], place=place)
    exe.run(startup_program)
    data = next(train_reader())
    out = exe.run(prog, feed=feeder.feed(data), fetch_list=grad_list)
    out_clip = exe.run(prog_clip, feed=feeder.feed(data), fetch_list=grad_clip_list)
    check_clip_result(out, out_clip)


def check_sparse_gradient_clip(backward_and_optimize, place):
    prog, startup_program = fluid.Program(), fluid.Program()
    with fluid.program_guard(main_program=prog, startup_program=startup_program):
        data = fluid.data(name="words", shape=[-1, 1], dtype="int64", lod_level=1)
        label = fluid.data(name="label", shape=[-1, 1], dtype="int64")
        cost = bow_net(data, label, WORD_DICT_LEN)
        backward_and_optimize(cost)
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=[data, label], place=place)
    exe.run(startup_program)
    data = next(train_data())
    val = exe.run(prog, feed=feeder.feed(data), fetch_list=[cost])[0]
    assert val.shape == (1,)
    assert not np.isnan(val)


# -- by global norm ---------------------------------------------------------------------------------
CLIP_NORM = 0.2


def check_global_norm(out, out_clip):
    global_norm = np.sqrt(sum(np.sum(np.square(v)) for v in out))
    scale = CLIP_NORM / np.maximum(CLIP_NORM, global_norm)
    for u, v in zip(out, out_clip):
        np.testing.assert_allclose(scale * u, v, rtol=1e-05, atol=1e-08)


def old_global_norm(params_grads):
    fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(clip_norm=CLIP_NORM))
    return fluid.clip.append_gradient_clip_ops(params_grads)


def new_global_norm(params_grads):
    return fluid.clip.GradientClipByGlobalNorm(clip_norm=CLIP_NORM)(params_grads)


check_gradient_clip(old_global_norm, check_global_norm, fluid.CPUPlace())
check_gradient_clip(new_global_norm, check_global_norm, fluid.CPUPlace())
check_gradient_clip(new_global_norm, check_global_norm, fluid.CPUPlace(), "float64")


def wrong_api_order(cost):
    clip = fluid.clip.GradientClipByGlobalNorm(clip_norm=5.0)
    fluid.clip.set_gradient_clip(clip)
    sgd_optimizer = fluid.optimizer.SGD(learning_rate=0.01, grad_clip=clip)
    sgd_optimizer.minimize(cost)
    fluid.clip.set_gradient_clip(clip)


check_sparse_gradient_clip(wrong_api_order, fluid.CPUPlace())

try:
    fluid.optimizer.SGD(learning_rate=0.1, grad_clip="test")
    raise AssertionError("grad_clip='test' was accepted")
except TypeError:
    pass

prog, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program=prog, startup_program=startup_program):
    clip = fluid.clip.GradientClipByGlobalNorm(CLIP_NORM)
    x = fluid.default_main_program().global_block().create_parameter(name="x", shape=[2, 3], dtype="float32")
    y = fluid.default_main_program().global_block().create_parameter(name="y", shape=[2, 3], dtype="float32")
    params_grads = clip([(x, None), (x, y), (y, x)])
    assert len(params_grads) == 2, "ClipByGlobalNorm: a None gradient must not be returned"
    ops = [op.type for op in x.block.ops]
assert ops == [
    "squared_l2_norm",
    "squared_l2_norm",
    "sum",
    "sqrt",
    "fill_constant",
    "elementwise_max",
    "elementwise_div",
    "elementwise_mul",
    "elementwise_mul",
], ops


# -- by norm and by value ---------------------------------------------------------------------------
def check_norm(out, out_clip):
    for u, v in zip(out, out_clip):
        norm = np.sqrt(np.sum(np.power(u, 2)))
        np.testing.assert_allclose(u * (CLIP_NORM / np.maximum(CLIP_NORM, norm)), v, rtol=1e-05, atol=1e-08)


check_gradient_clip(lambda pg: fluid.clip.GradientClipByNorm(clip_norm=CLIP_NORM)(pg), check_norm, fluid.CPUPlace())
MAX, MIN = 0.2, 0.1
check_gradient_clip(
    lambda pg: fluid.clip.GradientClipByValue(max=MAX, min=MIN)(pg),
    lambda out, out_clip: [
        np.testing.assert_allclose(np.clip(u, MIN, MAX), v, rtol=1e-06, atol=1e-08) for u, v in zip(out, out_clip)
    ],
    fluid.CPUPlace(),
)

for clip in (fluid.clip.GradientClipByNorm(CLIP_NORM), fluid.clip.GradientClipByValue(MAX, MIN)):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        block = fluid.default_main_program().global_block()
        x = block.create_parameter(name="x", shape=[2, 3], dtype="float32", need_clip=False)
        y = block.create_parameter(name="y", shape=[2, 3], dtype="float32", need_clip=False)
        params_grads = clip([(x, None), (x, y)])
        assert len(clip(params_grads)) == 1
        assert params_grads[0][1].name == "y", "a gradient not to clip must be returned as it is"
print("ok")

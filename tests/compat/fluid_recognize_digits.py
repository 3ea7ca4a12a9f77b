# after: PaddlePaddle/Paddle python/paddle/fluid/tests/book/test_recognize_digits.py @ 9e1879104cc8c51e938c5d77b2d931c7c910705f
# Re-written for pe (the book chapter's MLP and conv nets, paddle.dataset.mnist, few passes), run with `pe fluid`.
import sys
import numpy as np
import paddle
import paddle.fluid as fluid

BATCH_SIZE = 64


def mlp(img, label):
    hidden = fluid.layers.fc(input=img, size=64, act="tanh")
    hidden = fluid.layers.fc(input=hidden, size=64, act="tanh")
    prediction = fluid.layers.fc(input=hidden, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_loss = fluid.layers.mean(loss)
    return prediction, avg_loss, fluid.layers.accuracy(input=prediction, label=label)


def conv_net(img, label):
    conv_pool_1 = fluid.nets.simple_img_conv_pool(
        input=img, filter_size=5, num_filters=8, pool_size=2, pool_stride=2, act="relu"
    )
    conv_pool_1 = fluid.layers.batch_norm(conv_pool_1)
    conv_pool_2 = fluid.nets.simple_img_conv_pool(
        input=conv_pool_1, filter_size=5, num_filters=16, pool_size=2, pool_stride=2, act="relu"
    )
    prediction = fluid.layers.fc(input=conv_pool_2, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_loss = fluid.layers.mean(loss)
    return prediction, avg_loss, fluid.layers.accuracy(input=prediction, label=label)


def train(nn_type):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 90
    with fluid.program_guard(main, startup):
        img = fluid.data(name="img", shape=[None, 1, 28, 28], dtype="float32")
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        net = conv_net if nn_type == "conv" else mlp
        prediction, avg_loss, acc = net(img, label)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=0.001).minimize(avg_loss)
        run(main, startup, test_program, img, label, avg_loss, acc, nn_type)


def run(main, startup, test_program, img, label, avg_loss, acc, nn_type):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feeder = fluid.DataFeeder(feed_list=[img, label], place=fluid.CPUPlace())
    reader = paddle.batch(paddle.reader.firstn(paddle.dataset.mnist.train(), 3200), batch_size=BATCH_SIZE)
    first = last = None
    for data in reader():
        batch = [(x.reshape(1, 28, 28), [y]) for x, y in data]
        (loss,) = exe.run(main, feed=feeder.feed(batch), fetch_list=[avg_loss])
        first = float(loss) if first is None else first
        last = float(loss)
    test_reader = paddle.batch(paddle.reader.firstn(paddle.dataset.mnist.test(), 512), batch_size=BATCH_SIZE)
    accs = []
    for data in test_reader():
        batch = [(x.reshape(1, 28, 28), [y]) for x, y in data]
        (acc_v,) = exe.run(test_program, feed=feeder.feed(batch), fetch_list=[acc])
        accs.append(float(acc_v))
    print(nn_type, "loss", first, "->", last, "test acc", np.mean(accs))
    assert last < first and np.mean(accs) > 0.7, (first, last, np.mean(accs))


train(sys.argv[1] if len(sys.argv) > 1 else "mlp")
print("ok")

"""Acceptance: pure-Python-API models train on the bundled MNIST split to the held-out accuracy
users expect (MLP >= 95%, LeNet-5 >= 97%). Each takes well under a minute on 2 cores (see
``pytest --durations``); speed itself is measured by the benchmarks, not asserted here."""

from paths import REPO
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.data.idx import load_mnist

DATA = os.path.join(REPO, "data", "mnist")


@pytest.fixture(scope="module")
def mnist():
    x_train, y_train = load_mnist(DATA, "train")
    x_eval, y_eval = load_mnist(DATA, "eval")
    x_train, x_eval = ((x.reshape(len(x), 1, 28, 28) / 255.0).astype("float32") for x in (x_train, x_eval))
    return x_train, y_train.reshape(-1, 1), x_eval, y_eval.reshape(-1, 1)


def mlp(image):
    hidden = fluid.layers.fc(image, 256, act="relu")
    hidden = fluid.layers.fc(hidden, 128, act="relu")
    return fluid.layers.fc(hidden, 10)


def lenet(image):
    conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
    pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
    conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
    pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
    fc1 = fluid.layers.fc(pool2, 120, act="relu")
    fc2 = fluid.layers.fc(fc1, 84, act="relu")
    return fluid.layers.fc(fc2, 10)


def train(net, data, epochs, batch_size, learning_rate):
    x_train, y_train, x_eval, y_eval = data
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.layers.data("image", [1, 28, 28])
        label = fluid.layers.data("label", [1], dtype="int64")
        logits = net(image)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        accuracy = fluid.layers.accuracy(fluid.layers.softmax(logits), label)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Momentum(learning_rate, momentum=0.9).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        order = rng.permutation(len(x_train))
        for start in range(0, len(order) - batch_size + 1, batch_size):
            idx = order[start : start + batch_size]
            exe.run(main, feed={"image": x_train[idx], "label": y_train[idx]}, fetch_list=[loss], scope=scope)
    (acc,) = exe.run(test_program, feed={"image": x_eval, "label": y_eval}, fetch_list=[accuracy], scope=scope)
    return float(acc[0])


def test_mlp_reaches_95_percent(mnist):
    accuracy = train(mlp, mnist, epochs=4, batch_size=64, learning_rate=0.05)
    assert accuracy >= 0.95, f"MLP held-out accuracy {accuracy:.4f} < 0.95"


def test_lenet_reaches_97_percent(mnist):
    accuracy = train(lenet, mnist, epochs=4, batch_size=64, learning_rate=0.05)
    assert accuracy >= 0.97, f"LeNet-5 held-out accuracy {accuracy:.4f} < 0.97"

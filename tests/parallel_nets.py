"""Small networks and helpers shared by the tests/test_parallel_*.py files."""

import numpy as np

import pe_cli.fluid as fluid


def mlp(x, label, classes=4):
    hidden = fluid.layers.fc(x, 16, act="relu")
    logits = fluid.layers.fc(hidden, classes)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def lenet5(image, label):
    conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
    pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
    conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
    pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
    fc1 = fluid.layers.fc(pool2, 120, act="relu")
    fc2 = fluid.layers.fc(fc1, 84, act="relu")
    logits = fluid.layers.fc(fc2, 10)
    return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))


def build(model="mlp", lr=0.1, optimizer="sgd", seed=7, with_test=False):
    """(main, startup, loss[, test program]) with deterministic initial parameters."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if model == "mlp":
            x = fluid.layers.data(name="x", shape=[8])
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            loss = mlp(x, label)
        else:
            x = fluid.layers.data(name="x", shape=[1, 28, 28])
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            loss = lenet5(x, label)
        test = main.clone(for_test=True) if with_test else None
        opt = {
            "sgd": lambda: fluid.optimizer.SGD(learning_rate=lr),
            "momentum": lambda: fluid.optimizer.Momentum(learning_rate=lr, momentum=0.9),
            "adam": lambda: fluid.optimizer.Adam(learning_rate=lr),
        }[optimizer]()
        opt.minimize(loss)
    return (main, startup, loss, test) if with_test else (main, startup, loss)


def batch(model="mlp", n=12, seed=0):
    rng = np.random.default_rng(seed)
    shape = (n, 8) if model == "mlp" else (n, 1, 28, 28)
    classes = 4 if model == "mlp" else 10
    return {
        "x": rng.standard_normal(shape).astype("float32"),
        "label": rng.integers(0, classes, (n, 1)).astype("int64"),
    }


def params(program, scope):
    return {p.name: np.array(scope.get_array(p.name), copy=True) for p in program.all_parameters()}


def rel_err(a, b):
    """max |a - b| relative to the size of b."""
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-30))

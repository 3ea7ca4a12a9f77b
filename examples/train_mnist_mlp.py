"""MNIST with an MLP, Fluid style: one model, a train and a test program (clone(for_test=True)),
startup once, then training steps fetching by name. Only the import differs from Fluid 1.x.

    python examples/train_mnist_mlp.py [--epochs 3]
"""

import argparse
import os

import numpy as np

import pe_cli.fluid as fluid
from pe_cli.data.idx import load_mnist

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "mnist")


def network():
    image = fluid.layers.data(name="image", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    hidden = fluid.layers.fc(input=image, size=256, act="relu")
    hidden = fluid.layers.dropout(hidden, dropout_prob=0.2)
    hidden = fluid.layers.fc(input=hidden, size=128, act="relu")
    prediction = fluid.layers.fc(input=hidden, size=10, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))
    accuracy = fluid.layers.accuracy(input=prediction, label=label)
    return loss, accuracy


def batches(images, labels, batch_size, rng):
    order = rng.permutation(len(images))
    for start in range(0, len(order) - batch_size + 1, batch_size):
        idx = order[start : start + batch_size]
        yield {"image": images[idx], "label": labels[idx]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()

    x_train, y_train = load_mnist(DATA, "train")
    x_eval, y_eval = load_mnist(DATA, "eval")
    x_train, x_eval = ((x.reshape(len(x), 784) / 255.0).astype("float32") for x in (x_train, x_eval))
    y_train, y_eval = y_train.reshape(-1, 1), y_eval.reshape(-1, 1)

    train_program, startup_program = fluid.Program(), fluid.Program()
    train_program.random_seed = startup_program.random_seed = 1
    with fluid.program_guard(train_program, startup_program):
        loss, accuracy = network()
        test_program = train_program.clone(for_test=True)
        fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)

    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup_program)
    rng = np.random.default_rng(0)
    for epoch in range(args.epochs):
        for feed in batches(x_train, y_train, 64, rng):
            (train_loss,) = exe.run(train_program, feed=feed, fetch_list=[loss.name])
        (test_acc,) = exe.run(test_program, feed={"image": x_eval, "label": y_eval}, fetch_list=[accuracy.name])
        print(f"epoch {epoch}: train loss {float(train_loss[0]):.4f}, held-out accuracy {float(test_acc[0]):.4f}")


if __name__ == "__main__":
    main()

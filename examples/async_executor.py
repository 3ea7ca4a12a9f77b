"""Seed 004's AsyncExecutor, as its documentation uses it: a DataFeedDesc read from a proto file, a
list of MultiSlot files, ``thread_num`` threads training Hogwild, ``fetch`` printed with ``debug``.
The model is a click-through-rate one: the sparse ids are embedded and summed per impression
(sequence_pool), joined with the dense features, and classified by two fc layers.

    python examples/async_executor.py [--threads 2] [--epochs 2]

The data is written first by examples/ctr_data.py (deterministic); the last file is held out, and
the held-out AUC is printed after each epoch.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

import pe_cli.fluid as fluid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctr_data  # noqa: E402


def network():
    ids = fluid.layers.data(name="ids", shape=[1], dtype="int64", lod_level=1)
    dense = fluid.layers.data(name="dense", shape=[2], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    emb = fluid.layers.embedding(input=ids, size=[ctr_data.VOCAB, 8], is_sparse=True)
    pooled = fluid.layers.sequence_pool(input=emb, pool_type="sum")
    hidden = fluid.layers.fc(input=fluid.layers.concat([pooled, dense], axis=1), size=32, act="relu")
    predict = fluid.layers.fc(input=hidden, size=2, act="softmax")
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    return predict, avg_cost


def auc(scores, labels):
    """The area under the ROC curve: the chance that a random click outranks a random non-click."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1)


def held_out_auc(exe, test_program, predict, data_feed, path):
    from pe_cli.data.multislot import MultiSlotReader

    scores, labels = [], []
    for batch in MultiSlotReader(data_feed).batches(path):
        (out,) = exe.run(test_program, feed=batch, fetch_list=[predict])
        scores.append(np.asarray(out)[:, 1])
        labels.append(np.asarray(batch["label"]).reshape(-1))
    return auc(np.concatenate(scores), np.concatenate(labels))


def main(threads=2, epochs=2, out_dir=None, files=5, lines=4000, seed=0):
    out_dir = out_dir or tempfile.mkdtemp(prefix="pe-ctr-")
    paths = ctr_data.write(out_dir, files=files, n=lines, seed=seed)
    train_files, held_out = paths[:-1], paths[-1]
    main_program, startup = fluid.Program(), fluid.Program()
    main_program.random_seed = startup.random_seed = seed + 1
    with fluid.program_guard(main_program, startup), fluid.unique_name.guard():
        predict, avg_cost = network()
        test_program = main_program.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=0.003).minimize(avg_cost)
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup)
    data_feed = fluid.DataFeedDesc(os.path.join(out_dir, "data.proto"))
    async_executor = fluid.AsyncExecutor(place)
    aucs = [held_out_auc(exe, test_program, predict, data_feed, held_out)]
    for epoch in range(epochs):
        async_executor.run(main_program, data_feed, train_files, threads, [avg_cost.name], debug=False)
        aucs.append(held_out_auc(exe, test_program, predict, data_feed, held_out))
        print(f"epoch {epoch + 1}: held-out AUC {aucs[-1]:.4f}")
    return aucs


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    main(args.threads, args.epochs)

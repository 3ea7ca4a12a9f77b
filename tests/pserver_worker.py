"""One rank of a parameter-server run (tests/transpiler/test_pserver.py starts it under mpiexec -n P+K):
ranks 0..P-1 serve, the others train an MLP on their share of fixed global batches and write their
initial parameters, losses and final parameters to OUT.trainer<i>.npz.

    python pserver_worker.py SERVERS TRAINERS sync|async slice|noslice OPTIMIZER STEPS OUT [fail]

OPTIMIZER: sgd, momentum, adam, or sgd_sparse / adagrad_sparse (the model also looks up a row of an
embedding [10, 4] with is_sparse=True, by the argmax of x's features: a row-sparse gradient, which two
servers hold 5 rows each).
``fail``: trainer 1 feeds a wrong shape at step 3. ``hang``: trainer 1 sleeps for ever after its first
step, alive and silent.
"""

import os
import sys
import time

import numpy as np

import pe_cli.fluid as fluid

GLOBAL_BATCH = 12


def names(optimizer):
    """The parameters the run writes out."""
    return ["w1", "w2", "fc_0.b_0", "fc_1.b_0"] + (["emb"] if optimizer.endswith("_sparse") else [])


def build(optimizer):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[10], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(
            x, 16, act="relu", param_attr=fluid.ParamAttr(name="w1", regularizer=fluid.regularizer.L2Decay(1e-3))
        )
        if optimizer.endswith("_sparse"):
            ids = fluid.layers.reshape(fluid.layers.argmax(x, axis=1), [-1, 1])
            emb = fluid.layers.embedding(ids, size=[10, 4], is_sparse=True, param_attr="emb")
            h = fluid.layers.concat([h, emb], axis=1)
        out = fluid.layers.fc(h, 3, act="softmax", param_attr=fluid.ParamAttr(name="w2"))
        loss = fluid.layers.mean(fluid.layers.cross_entropy(out, y))
        opt = {
            "sgd": lambda: fluid.optimizer.SGD(learning_rate=fluid.layers.exponential_decay(0.5, 4, 0.8)),
            "momentum": lambda: fluid.optimizer.Momentum(learning_rate=0.2, momentum=0.9),
            "adam": lambda: fluid.optimizer.Adam(learning_rate=0.05),
            "sgd_sparse": lambda: fluid.optimizer.SGD(learning_rate=0.5),
            "adagrad_sparse": lambda: fluid.optimizer.Adagrad(learning_rate=0.2),
        }[optimizer]()
        opt.minimize(loss)
    return main, startup, loss


def batches(steps):
    rng = np.random.RandomState(3)
    centers = rng.randn(3, 10).astype("float32")
    for _ in range(steps):
        y = rng.randint(0, 3, size=(GLOBAL_BATCH, 1)).astype("int64")
        x = (centers[y[:, 0]] + 0.5 * rng.randn(GLOBAL_BATCH, 10)).astype("float32")
        yield x, y


def main():
    servers, trainers, mode, slicing, optimizer, steps, out = sys.argv[1:8]
    fail, hang = "fail" in sys.argv[8:], "hang" in sys.argv[8:]
    servers, trainers, steps = int(servers), int(trainers), int(steps)
    rank = int(os.environ["PMI_RANK"])
    endpoints = ",".join(f"127.0.0.1:{6174 + i}" for i in range(servers))
    prog, startup, loss = build(optimizer)
    config = fluid.DistributeTranspilerConfig()
    config.slice_var_up = slicing == "slice"
    config.min_block_size = 16
    t = fluid.DistributeTranspiler(config=config)
    trainer_id = max(rank - servers, 0)
    t.transpile(
        trainer_id,
        program=prog,
        startup_program=startup,
        pservers=endpoints,
        trainers=trainers,
        sync_mode=mode == "sync",
    )
    exe = fluid.Executor(fluid.CPUPlace())
    if rank < servers:
        endpoint = endpoints.split(",")[rank]
        server, server_startup = t.get_pserver_programs(endpoint)
        exe.run(server_startup)
        exe.run(server)
        return
    exe.run(startup)
    scope = fluid.global_scope()
    result = {f"init/{n}": np.array(scope.find_var(n).get_tensor()) for n in names(optimizer)}
    losses = []
    share = GLOBAL_BATCH // trainers
    for step, (x, y) in enumerate(batches(steps)):
        rows = slice(trainer_id * share, (trainer_id + 1) * share)
        if fail and trainer_id == 1 and step == 3:
            x = x[:, :3]
        while hang and trainer_id == 1 and step == 1:
            time.sleep(60)
        losses.append(exe.run(t.get_trainer_program(), feed={"x": x[rows], "y": y[rows]}, fetch_list=[loss])[0])
    result.update({f"final/{n}": np.array(scope.find_var(n).get_tensor()) for n in names(optimizer)})
    exe.close()
    np.savez(f"{out}.trainer{trainer_id}.npz", losses=np.array(losses).ravel(), **result)


if __name__ == "__main__":
    main()

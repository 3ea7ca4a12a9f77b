"""A PaddleRec ctr-dnn-like program in Fluid 1.8's fleet style (our own, smaller): sparse id slots
through embeddings (is_sparse) and a dense slot, an MLP, a softmax over click / no click. Trained
with exe.train_from_dataset on MultiSlot files, on the parameter-server fleet (2 trainers + 1
server under `pe launch`; the role from PaddleCloudRoleMaker) or, with --local, in one process.

    pe fluid ctr_dnn.py DATA_DIR OUT_DIR MODE [--local | --given ROLE ID TRAINERS SERVER_ENDPOINTS]

MODE is sync or async. Trainer i trains on DATA_DIR/part-i (fleet.split_files of the sorted parts);
--local trains on DATA_DIR/local (the parts' batches interleaved) with twice the batch. Worker 0
(or the local run) saves the parameters into OUT_DIR with fleet.save_persistables and the
inference model into OUT_DIR/infer (fleet.save_inference_model); train_from_dataset prints the
losses (fetch_info), for CTR_PASSES passes over the files (default 1). --given: the role from UserDefinedRoleMaker (ROLE pserver or trainer, its
index, the number of trainers, the servers' ip:port joined by commas), not from the environment."""

import glob
import os
import sys

import paddle.fluid as fluid
from paddle.fluid.incubate.fleet.base import role_maker
from paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler import fleet
from paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler.distributed_strategy import StrategyFactory

SLOTS, VOCAB, EMB, DENSE, BATCH = 3, 50, 4, 4, 8
data_dir, out_dir, mode = sys.argv[1:4]
local = "--local" in sys.argv
given = sys.argv[sys.argv.index("--given") + 1 :] if "--given" in sys.argv else None


def ctr_dnn():
    sparse = [fluid.layers.data(name=f"C{i}", shape=[1], dtype="int64", lod_level=1) for i in range(SLOTS)]
    dense = fluid.layers.data(name="dense_input", shape=[DENSE], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    embs = [
        fluid.layers.sequence_pool(
            fluid.layers.embedding(
                s, size=[VOCAB, EMB], is_sparse=True, param_attr=fluid.ParamAttr(name="SparseFeatFactors")
            ),
            "sum",
        )
        for s in sparse
    ]
    hidden = fluid.layers.concat(embs + [dense], axis=1)
    for i, size in enumerate((16, 8)):
        hidden = fluid.layers.fc(hidden, size, act="relu", name=f"fc{i}")
    predict = fluid.layers.fc(hidden, 2, act="softmax", name="predict")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(predict, label))
    return sparse + [dense, label], loss, predict


main, startup = fluid.Program(), fluid.Program()
main.random_seed = startup.random_seed = 7
with fluid.program_guard(main, startup):
    feeds, loss, predict = ctr_dnn()
    optimizer = fluid.optimizer.SGD(0.2)
    if not local:
        if given:
            role = role_maker.Role.SERVER if given[0] == "pserver" else role_maker.Role.WORKER
            fleet.init(
                role_maker.UserDefinedRoleMaker(
                    current_id=int(given[1]), role=role, worker_num=int(given[2]), server_endpoints=given[3].split(",")
                )
            )
        else:
            fleet.init(role_maker.PaddleCloudRoleMaker())
        strategy = StrategyFactory.create_sync_strategy() if mode == "sync" else StrategyFactory.create_async_strategy()
        optimizer = fleet.distributed_optimizer(optimizer, strategy)
    optimizer.minimize(loss)

exe = fluid.Executor(fluid.CPUPlace())
if not local and fleet.is_server():
    fleet.init_server()
    fleet.run_server()
    sys.exit(0)

dataset = fluid.DatasetFactory().create_dataset("QueueDataset")
dataset.set_use_var(feeds)
dataset.set_pipe_command("cat")
dataset.set_thread(1)
if local:
    dataset.set_batch_size(2 * BATCH)
    dataset.set_filelist([os.path.join(data_dir, "local")])
    exe.run(startup)
    program = main
else:
    dataset.set_batch_size(BATCH)
    dataset.set_filelist(fleet.split_files(sorted(glob.glob(os.path.join(data_dir, "part-*")))))
    fleet.init_worker()
    exe.run(fleet.startup_program)
    program = fleet.main_program
for _ in range(int(os.environ.get("CTR_PASSES", "1"))):
    exe.train_from_dataset(program, dataset, fetch_list=[loss], fetch_info=["loss"], print_period=1)
if local or fleet.is_first_worker():
    infer_dir = os.path.join(out_dir, "infer")
    feed_names = [v.name for v in feeds[:-1]]
    if local:
        fluid.io.save_params(exe, out_dir, main)
        fluid.io.save_inference_model(infer_dir, feed_names, [predict], exe, main)
    else:
        fleet.save_persistables(exe, out_dir)
        fleet.save_inference_model(exe, infer_dir, feed_names, [predict])
if not local:
    fleet.stop_worker()

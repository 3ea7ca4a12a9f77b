"""``paddle.fluid.incubate.fleet.utils.fleet_barrier_util``: ``check_all_trainers_ready(ready_path,
epoch)``: each trainer puts ``ready.<epoch>.<trainer id>.done`` into the HDFS folder ``ready_path``
(HADOOP_HOME, FS_NAME, FS_UGI from the environment) and waits until every trainer's mark is there."""

import os
import time

from ..parameter_server.distribute_transpiler import fleet
from ....contrib.utils.hdfs_utils import HDFSClient


def check_all_trainers_ready(ready_path, epoch):
    trainer_num, trainer_id = fleet.worker_num(), fleet.worker_index()
    configs = {"fs.default.name": os.getenv("FS_NAME"), "hadoop.job.ugi": os.getenv("FS_UGI")}
    node_ready = f"ready.{epoch}.{trainer_id}.done"
    with open(node_ready, "w") as node:
        node.write("")
    client = HDFSClient(os.getenv("HADOOP_HOME"), configs)
    if not client.is_dir(ready_path):
        client.makedirs(ready_path)
    client.upload(hdfs_path=ready_path, local_path=node_ready, overwrite=True, retry_times=0)
    print(f"PUT {node_ready} ON HDFS {ready_path} OK")
    while True:
        ready_num = len(client.ls(ready_path))
        print(f"have {trainer_num - ready_num % trainer_num} trainers need to be ready")
        if ready_num % trainer_num == 0:
            break
        time.sleep(10)
    print("All trainers are ready, continue training")

"""``paddle.distributed.utils``: a cluster as Paddle 1.8's launcher describes it (Cluster of Pods,
each holding Trainers with their devices, endpoints and ranks), built by ``get_cluster``, and the
helpers that start this node's trainers as processes and watch them. ``start_local_trainers`` starts
each trainer as ``pe fluid SCRIPT`` with Fluid's environment (FLAGS_selected_gpus, PADDLE_TRAINER_ID,
PADDLE_CURRENT_ENDPOINT, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS), so the trainers meet at
their endpoints as pe's roles started on their own do (docs/DISTRIBUTED.md)."""

import copy
import functools  # noqa: F401 -- Fluid's module has these names
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import closing

from ...base.output_rule import open_append

logger = logging.getLogger("root")
logger.propagate = False


class Hdfs:
    def __init__(self):
        self.hdfs_ugi = self.hdfs_name = self.hdfs_path = None

    def is_valid(self):
        return None not in (self.hdfs_ugi, self.hdfs_name, self.hdfs_path)

    def __str__(self):
        return f"hdfs_ugi:{self.hdfs_ugi} hdfs_name:{self.hdfs_name} hdfs_path{self.hdfs_path}"

    def __eq__(self, n):
        return (self.hdfs_ugi, self.hdfs_name, self.hdfs_path) == (n.hdfs_ugi, n.hdfs_name, n.hdfs_path)


class JobServer:
    def __init__(self):
        self.endpoint = None

    def __str__(self):
        return f"{self.endpoint}"

    def __eq__(self, j):
        return self.endpoint == j.endpoint


class Trainer:
    def __init__(self):
        self.gpus, self.endpoint, self.rank = [], None, None

    def __str__(self):
        return f"gpu:{self.gpus} endpoint:{self.endpoint} rank:{self.rank}"

    def __eq__(self, t):
        return (self.gpus, self.endpoint, self.rank) == (t.gpus, t.endpoint, t.rank)


class Pod:
    """One node: its rank, address, port, trainers and visible devices."""

    def __init__(self):
        self.rank = self.id = self.addr = self.port = None
        self.trainers, self.gpus = [], []

    def __str__(self):
        return (
            f"rank:{self.rank} id:{self.id} addr:{self.addr} port:{self.port} visible_gpu:{self.gpus} "
            f"trainers:{[str(t) for t in self.trainers]}"
        )

    def __eq__(self, pod):
        return (self.rank, self.id, self.addr, self.port) == (
            pod.rank,
            pod.id,
            pod.addr,
            pod.port,
        ) and self.trainers == pod.trainers

    def parse_response(self, res_pods):
        pass

    def get_visible_gpus(self):
        assert self.gpus, f"this pod {self} can't see any gpus"
        return ",".join(str(g) for g in self.gpus)


class Cluster:
    def __init__(self, hdfs):
        self.job_server, self.pods, self.hdfs, self.job_stage_flag = None, [], None, None

    def __str__(self):
        return (
            f"job_server:{self.job_server} pods:{[str(p) for p in self.pods]} "
            f"job_stage_flag:{self.job_stage_flag} hdfs:{self.hdfs}"
        )

    def __eq__(self, cluster):
        return self.pods == cluster.pods and self.job_stage_flag == cluster.job_stage_flag

    def update_pods(self, cluster):
        self.pods = copy.copy(cluster.pods)

    def trainers_nranks(self):
        return len(self.trainers_endpoints())

    def pods_nranks(self):
        return len(self.pods)

    def trainers_endpoints(self):
        return [t.endpoint for pod in self.pods for t in pod.trainers]

    def pods_endpoints(self):
        for pod in self.pods:
            assert pod.port is not None and pod.addr is not None, f"{pod.addr}:{pod.port} not a valid endpoint"
        return [f"{pod.addr}:{pod.port}" for pod in self.pods]

    def get_pod_by_id(self, pod_id):
        return next((pod for pod in self.pods if str(pod.id) == str(pod_id)), None)


def get_logger(log_level, name="root"):
    """The logger ``name`` at ``log_level``, printing ``LEVEL time file:line] message``."""
    log = logging.getLogger(name)
    log.setLevel(log_level)
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s"))
    log.addHandler(handler)
    return log


def get_cluster(node_ips, node_ip, trainer_endpoints, selected_gpus):
    """(the Cluster, this node's Pod): one pod per node address, one trainer per selected device,
    trainers ranked node by node; ``trainer_endpoints[i]`` lists node i's endpoints."""
    assert type(trainer_endpoints) is list, "trainer_endpoints must be list"
    cluster, rank = Cluster(hdfs=None), 0
    for node_rank, ip in enumerate(node_ips):
        pod = Pod()
        pod.rank, pod.addr = node_rank, ip
        assert len(trainer_endpoints[node_rank]) >= len(selected_gpus), (
            "current trainer_endpoints size should be greater equal than selected_gpus size."
        )
        for i, gpu in enumerate(selected_gpus):
            trainer = Trainer()
            trainer.gpus.append(gpu)
            trainer.endpoint, trainer.rank = f"{trainer_endpoints[node_rank][i]}", rank
            rank += 1
            pod.trainers.append(trainer)
        cluster.pods.append(pod)
    return cluster, cluster.pods[node_ips.index(node_ip)]


def get_host_name_ip():
    try:
        host = socket.gethostname()
        return host, socket.gethostbyname(host)
    except OSError:
        return None


def add_arguments(argname, type, default, help, argparser, **kwargs):  # noqa: A002 -- Fluid's names
    """Adds ``--argname`` to an argparse parser (a bool takes yes/no, true/false, 1/0)."""

    def strtobool(v):
        return str(v).lower() in ("y", "yes", "t", "true", "on", "1")

    argparser.add_argument(
        "--" + argname,
        default=default,
        type=strtobool if type is bool else type,
        help=help + " Default: %(default)s.",
        **kwargs,
    )


def find_free_ports(num):
    """A set of ``num`` ports free on this machine now, or None after 100 tries."""
    ports = set()
    for _ in range(101):
        with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
            s.bind(("", 0))
            ports.add(s.getsockname()[1])
        if len(ports) >= num:
            return ports
    print("can't find avilable port and use the specified static port now!")
    return None


class TrainerProc:
    def __init__(self):
        self.proc = self.log_fn = self.rank = self.cmd = None


def start_local_trainers(cluster, pod, training_script, training_script_args, log_dir=None):
    """Starts each trainer of ``pod`` as ``pe fluid training_script`` with its environment (output to
    ``log_dir/workerlog.<n>`` when given); returns their TrainerProcs."""
    env = {k: v for k, v in os.environ.items() if k not in ("http_proxy", "https_proxy")}
    procs = []
    for idx, t in enumerate(pod.trainers):
        env.update(
            FLAGS_selected_gpus=",".join(str(g) for g in t.gpus),
            PADDLE_TRAINER_ID=str(t.rank),
            PADDLE_CURRENT_ENDPOINT=t.endpoint,
            PADDLE_TRAINERS_NUM=str(cluster.trainers_nranks()),
            PADDLE_TRAINER_ENDPOINTS=",".join(cluster.trainers_endpoints()),
            PADDLE_TRAINING_ROLE="TRAINER",
            TRAINING_ROLE="TRAINER",
        )
        cmd = [sys.executable, "-m", "pe_cli", "fluid", training_script] + list(training_script_args)
        logger.info(f"start trainer proc:{cmd}")
        tp = TrainerProc()
        if log_dir is not None:
            os.makedirs(log_dir, exist_ok=True)
            tp.log_fn = os.fdopen(open_append(os.path.join(log_dir, f"workerlog.{idx}")), "a")
        tp.proc = subprocess.Popen(cmd, env=dict(env), stdout=tp.log_fn, stderr=tp.log_fn)
        tp.rank, tp.cmd = t.rank, cmd
        procs.append(tp)
    return procs


def terminate_local_procs(procs):
    """Terminates the trainers still running, then kills those that stay (every 3 s, 50 times)."""
    for p in procs:
        if p.proc.poll() is None:
            p.proc.terminate()
            if p.log_fn:
                p.log_fn.close()
    time.sleep(3)
    for _ in range(50):
        alive = [p for p in procs if p.proc.poll() is None]
        if not alive:
            logger.info("terminate all the procs")
            return
        for p in alive:
            os.kill(p.proc.pid, signal.SIGKILL)
        time.sleep(3)
    logger.fatal("can't kill all process and exit")
    sys.exit(1)


def watch_local_trainers(procs, nranks):
    """True while a trainer runs; when one has failed, every trainer is stopped and the process
    exits with status 1 (naming the failed ranks)."""
    failed = [p.rank for p in procs if p.proc.poll() not in (None, 0)]
    alive = any(p.proc.poll() is None for p in procs)
    if failed:
        logger.error(
            f"ABORT!!! Out of all {nranks} trainers, the trainer process with rank={failed} was aborted. "
            f"Please check its log."
        )
        terminate_local_procs(procs)
        sys.exit(1)
    return alive

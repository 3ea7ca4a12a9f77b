"""``python -m paddle.distributed.launch [--selected_gpus 0,1] [--cluster_node_ips IPS --node_ip IP]
[--started_port P] [--log_dir DIR] SCRIPT [ARGS]``: Paddle 1.8's launcher of collective trainers, one
per selected device on each node, each with Fluid's environment (FLAGS_selected_gpus,
PADDLE_TRAINER_ID, PADDLE_CURRENT_ENDPOINT, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS), here over
pe's launcher (``pe launch``, pe_cli/run/launch_cluster.py): one node's trainers are MPI ranks of one
mpiexec, several nodes' trainers meet at their endpoints. Under ``pe fluid`` it runs as
``pe fluid -m paddle.distributed.launch ...``, or as ``python -m paddle.distributed.launch`` from a
program ``pe fluid`` runs. Where no device is selected and pe sees no CUDA device, one trainer runs
(Fluid's launcher would start none)."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

import copy  # noqa: F401
import functools  # noqa: F401
import logging  # noqa: F401
import os
import signal  # noqa: F401
import socket  # noqa: F401
import subprocess  # noqa: F401
import sys
import time  # noqa: F401
from argparse import REMAINDER, ArgumentParser
from contextlib import closing  # noqa: F401
from sys import version  # noqa: F401

from . import cloud_utils
from .utils import (
    Cluster,
    Hdfs,
    JobServer,
    Pod,
    Trainer,
    TrainerProc,
    add_arguments,
    find_free_ports,  # noqa: F401
    get_cluster,
    get_host_name_ip,
    get_logger,
    logger,
    start_local_trainers,
    terminate_local_procs,
    watch_local_trainers,
)
from ... import fluid, paddle  # noqa: F401
from ...fluid.unsupported import optional_module
from ...run import launch_cluster

six = optional_module("six")


def _print_arguments(args):
    print("-----------  Configuration Arguments -----------")
    for arg, value in sorted(vars(args).items()):
        print(f"{arg}: {value}")
    print("------------------------------------------------", flush=True)


def _parse_args(argv=None):
    parser = ArgumentParser(description="start paddle training using multi-process mode (on pe: MPI ranks).")
    parser.add_argument(
        "--cluster_node_ips",
        type=str,
        default="127.0.0.1",
        help="Paddle cluster nodes ips, such as 192.168.0.16,192.168.0.17..",
    )
    parser.add_argument("--node_ip", type=str, default="127.0.0.1", help="The current node ip. ")
    parser.add_argument(
        "--use_paddlecloud", action="store_true", help="take the cluster from PaddleCloud's environment"
    )
    parser.add_argument("--started_port", type=int, default=None, help="The trainer's started port on a single node")
    parser.add_argument("--print_config", type=bool, default=True, help="Print the config or not")
    parser.add_argument("--selected_gpus", type=str, default=None, help="the devices, one trainer each")
    parser.add_argument("--log_level", type=int, default=20, help="Logging level, default is logging.INFO")
    parser.add_argument("--log_dir", type=str, help="each trainer's output into LOG_DIR/workerlog.N")
    parser.add_argument("training_script", type=str, help="the training script, then its arguments")
    parser.add_argument("training_script_args", nargs=REMAINDER)
    return parser.parse_args(argv)


def _free_block(n):
    """``n`` consecutive ports free now (from one the system gives), else Fluid's 6070 onwards."""
    for _ in range(20):
        first = min(find_free_ports(1) or [6070])
        if all(_port_free(p) for p in range(first, first + n)):
            return list(range(first, first + n))
    return list(range(6070, 6070 + n))


def _port_free(port):
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def get_cluster_from_args(args, selected_gpus):
    """(Cluster, this node's Pod): one trainer per device on every node; on one node without
    ``--started_port`` the ports are free ones, else consecutive from ``--started_port`` (6070)."""
    node_ips = [x.strip() for x in args.cluster_node_ips.split(",")]
    if not args.use_paddlecloud and len(node_ips) <= 1 and args.started_port is None:
        ports = _free_block(len(selected_gpus))
    else:
        start = 6070 if args.started_port is None else args.started_port
        ports = list(range(start, start + len(selected_gpus)))
    return get_cluster(node_ips, args.node_ip, [[f"{ip}:{p}" for p in ports] for ip in node_ips], selected_gpus)


def get_gpus(selected_gpus):
    """The devices: ``--selected_gpus`` (positions within CUDA_VISIBLE_DEVICES when that is set),
    else every CUDA device pe sees, else one ('0': pe runs one trainer on the CPU)."""
    if selected_gpus is None:
        count = fluid.core.get_cuda_device_count()
        return [str(x) for x in range(count)] if count else ["0"]
    visible = os.getenv("CUDA_VISIBLE_DEVICES")
    chosen = [x.strip() for x in selected_gpus.split(",")]
    if not visible:
        return chosen
    visible = visible.split(",")
    for x in chosen:
        assert x in visible, f"Can't find your selected_gpus {x} in CUDA_VISIBLE_DEVICES[{','.join(visible)}]."
    return [visible.index(x) for x in chosen]


def launch(args):
    """Runs this node's trainers (pe's launcher) until they end; returns the exit status (the first
    failing trainer's)."""
    selected = get_gpus(args.selected_gpus)
    if args.use_paddlecloud and cloud_utils.get_trainers_num() != 1:
        cluster, pod = cloud_utils.get_cloud_cluster(args.cluster_node_ips, args.node_ip, args.started_port, selected)
        logger.info(f"get cluster from cloud:{cluster}")
    else:
        cluster, pod = get_cluster_from_args(args, selected)
        logger.info(f"get cluster from args:{cluster}")
    lay = launch_cluster.Layout(
        trainers=len(pod.trainers),
        servers=0,
        trainer_endpoints=cluster.trainers_endpoints(),
        server_endpoints=[],
        first_trainer=pod.trainers[0].rank if pod.trainers else 0,
        nodes=cluster.pods_nranks(),
    )
    gpus = ",".join(str(g) for t in pod.trainers for g in t.gpus)
    env = lay.env(os.environ, args.log_dir, gpus)
    status = launch_cluster.start(lay, args.training_script, args.training_script_args, env)
    logger.info(f"Local procs complete, POD info:{pod}")
    return status


def main(argv=None):
    args = _parse_args(argv)
    get_logger(args.log_level)
    if args.print_config:
        _print_arguments(args)
    return launch(args)


if __name__ == "__main__":
    sys.exit(main())

"""``python -m paddle.distributed.launch_ps [--server_num 2] [--worker_num 2] [--start_port 6170]
[--endpoints IP:PORT,...] [--log_dir logs] SCRIPT [ARGS]``: Paddle 1.8's launcher of a
parameter-server job on this machine: the servers (TRAINING_ROLE=PSERVER, POD_IP and PADDLE_PORT
their endpoint's) and the workers (TRAINING_ROLE=TRAINER, PADDLE_TRAINER_ID), all with
PADDLE_PSERVERS_IP_PORT_LIST and PADDLE_TRAINERS_NUM, output in LOG_DIR/serverlog.N and workerlog.N.
On pe they are the ranks of one mpiexec (``pe launch --pservers P --trainers K``), servers first;
the job ends when the workers do."""

from __future__ import print_function, unicode_literals  # noqa: F401 -- Fluid's module has these names

import copy  # noqa: F401
import os
import subprocess  # noqa: F401
import sys
from argparse import REMAINDER, ArgumentParser

from ...run import launch_cluster


def parse_args(argv=None):
    parser = ArgumentParser(description="Distributed training")
    parser.add_argument("--cluster_node_ips", type=str, default="127.0.0.1", help="the nodes' addresses")
    parser.add_argument("--node_ip", type=str, default="127.0.0.1", help="The current node ip. ")
    parser.add_argument("--start_port", type=int, default=6170, help="The first server's port")
    parser.add_argument("--print_config", type=bool, default=True, help="Print the config or not")
    parser.add_argument("--endpoints", type=str, default="", help="User defined endpoints")
    parser.add_argument("--worker_num", type=int, default=2, help="number of workers")
    parser.add_argument("--server_num", type=int, default=2, help="number of servers")
    parser.add_argument("--log_dir", default="logs", type=str, help="each process's output into LOG_DIR")
    parser.add_argument("training_script", type=str, help="the training script, then its arguments")
    parser.add_argument("training_script_args", nargs=REMAINDER)
    return parser.parse_args(argv)


def start_procs(args):
    """Runs the servers and workers; returns the workers' exit status (the first failing one's)."""
    servers = (
        [e.strip() for e in args.endpoints.split(",") if e.strip()]
        if args.endpoints
        else [f"127.0.0.1:{p}" for p in range(args.start_port, args.start_port + args.server_num)]
    )
    if len(servers) != args.server_num:
        raise SystemExit(f"launch_ps: --endpoints names {len(servers)} server(s) but --server_num is {args.server_num}")
    first = args.start_port + args.server_num
    lay = launch_cluster.Layout(
        trainers=args.worker_num,
        servers=args.server_num,
        trainer_endpoints=[f"127.0.0.1:{first + i}" for i in range(args.worker_num)],
        server_endpoints=servers,
        first_trainer=0,
        nodes=1,
    )
    env = lay.env({k: v for k, v in os.environ.items() if k not in ("http_proxy", "https_proxy")}, args.log_dir)
    status = launch_cluster.start(lay, args.training_script, args.training_script_args, env)
    print("all workers exit, going to finish parameter server", file=sys.stderr)
    return status


def launch(argv=None):
    args = parse_args(argv)
    if args.print_config:
        launch_cluster.print_config(vars(args))
    return start_procs(args)


if __name__ == "__main__":
    sys.exit(launch())

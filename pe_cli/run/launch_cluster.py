"""``pe launch`` with ``paddle.distributed.launch``'s flags: which trainers (and servers) this node
starts, their endpoints and the environment each rank gets.

    pe launch --selected_gpus 0,1 --started_port 6170 --log_dir logs train.py

On one node (``--cluster_node_ips`` one address, the default) the ranks run under one mpiexec:
servers first (ports ``started_port``..), then trainers. With several node addresses this node
starts trainers ``node_index * K`` .. ``+ K - 1`` (K per node), each as its own ``pe fluid`` process
with Fluid's environment; the nodes' processes then meet at the endpoints (the rendezvous of roles
started on their own, docs/DISTRIBUTED.md). ``--log_dir`` puts each rank's output in
``workerlog.N`` (trainer N) or ``serverlog.N`` (server N), as Paddle's launchers name them."""

import os
import subprocess
import sys
from dataclasses import dataclass

from ..base import limits
from ..base.errors import PeError
from ..base.output_rule import open_append
from .launch import run_ranks
from .output_paths import check_output

LOG_DIR_ENV, FIRST_TRAINER_ENV, GPUS_ENV = "PE_LAUNCH_LOG_DIR", "PE_LAUNCH_FIRST_TRAINER", "PE_LAUNCH_SELECTED_GPUS"


@dataclass
class Layout:
    trainers: int  # trainers this node starts
    servers: int  # servers this node starts (one node only)
    trainer_endpoints: list  # every node's trainers, in trainer order
    server_endpoints: list
    first_trainer: int  # the id of this node's first trainer
    nodes: int

    def env(self, base, log_dir=None, selected_gpus=None):
        """The environment every rank of this node starts with (pe_cli/fluid/launch_rank.py sets
        each rank's own role, id and endpoint from it)."""
        trainers, servers = ",".join(self.trainer_endpoints), ",".join(self.server_endpoints)
        env = dict(
            base,
            PADDLE_TRAINERS_NUM=str(len(self.trainer_endpoints)),
            PADDLE_TRAINER_ENDPOINTS=trainers,
            PADDLE_TRAINERS=trainers,
            PADDLE_PSERVERS_NUM=str(self.servers),
        )
        env[FIRST_TRAINER_ENV] = str(self.first_trainer)
        if servers:
            env.update(PADDLE_PSERVER_ENDPOINTS=servers, PADDLE_PSERVERS_IP_PORT_LIST=servers)
        if log_dir:  # where -o may not go, neither do logs (a checkpoint, a file a run keeps)
            check_output(log_dir, "--log_dir", "logs", directory=True)
            env[LOG_DIR_ENV] = os.path.abspath(log_dir)
        if selected_gpus:
            env[GPUS_ENV] = selected_gpus
        return env


def _ips(value, what):
    ips = [ip.strip() for ip in (value or "").split(",") if ip.strip()]
    if not ips:
        raise PeError(f"pe launch: {what} is empty; give addresses separated by commas, e.g. 127.0.0.1")
    if len(set(ips)) != len(ips):
        raise PeError(f"pe launch: {what} names an address twice: {value}")
    return ips


def layout(
    trainers,
    pservers,
    cluster_node_ips,
    node_ip,
    started_port,
    selected_gpus=None,
    use_paddlecloud=False,
    env=os.environ,
):
    """This node's share of the job: ``trainers`` per node (default: one per ``selected_gpus``
    entry, else 1), ``pservers`` servers (one node only)."""
    if use_paddlecloud and env.get("PADDLE_TRAINERS") and env.get("POD_IP"):
        cluster_node_ips, node_ip = env["PADDLE_TRAINERS"], env["POD_IP"]
        started_port = int(env.get("PADDLE_PORT", started_port))
    gpus = [g.strip() for g in (selected_gpus or "").split(",") if g.strip()]
    if trainers is None:
        trainers = len(gpus) or 1
    elif gpus and len(gpus) != trainers:
        raise PeError(
            f"pe launch: --trainers {trainers} but --selected_gpus names {len(gpus)} device(s) "
            f"({selected_gpus}); give one trainer per device, or leave --trainers out"
        )
    ips = _ips(cluster_node_ips, "--cluster_node_ips")
    if node_ip not in ips:
        raise PeError(f"pe launch: --node_ip {node_ip} is not one of --cluster_node_ips {','.join(ips)}")
    if pservers and len(ips) > 1:
        raise PeError(
            "pe launch: --pservers runs on one node; across nodes start each role with pe fluid and "
            "Fluid's environment (docs/DISTRIBUTED.md)"
        )
    limits.check(
        "processes",
        pservers + trainers,  # this node's processes first: they are the limit
        "the process count (pe launch's --trainers + --pservers)",
    )
    if not 1 <= started_port <= 65535 - pservers - trainers:
        raise PeError(f"pe launch: --started_port {started_port} leaves no room for {pservers + trainers} ports")
    servers = [f"{ips[0]}:{started_port + r}" for r in range(pservers)]
    endpoints = [f"{ip}:{started_port + pservers + i}" for ip in ips for i in range(trainers)]
    return Layout(trainers, pservers, endpoints, servers, ips.index(node_ip) * trainers, len(ips))


def print_config(options):
    """Paddle's launch prints its arguments first (``--print_config True``)."""
    print("-----------  Configuration Arguments -----------")
    for name, value in sorted(options.items()):
        print(f"{name}: {value}")
    print("------------------------------------------------", flush=True)


def _log(log_dir, name):
    if not log_dir:
        return None
    os.makedirs(log_dir, exist_ok=True)
    return os.fdopen(open_append(os.path.join(log_dir, name)), "ab")


def start(lay, script, args, env):
    """Runs this node's ranks; returns the exit status (the first failing rank's)."""
    if lay.nodes == 1:
        rank = [sys.executable, "-m", "pe_cli.distributed.rank_guard", "pe_cli.fluid.launch_rank", script, *args]
        return run_ranks(lay.servers + lay.trainers, rank, env=env)
    procs = []
    for local in range(lay.trainers):  # each on its own: the rendezvous joins the nodes' trainers
        trainer = lay.first_trainer + local
        own = dict(
            env,
            PADDLE_TRAINING_ROLE="TRAINER",
            TRAINING_ROLE="TRAINER",
            PADDLE_TRAINER_ID=str(trainer),
            PADDLE_CURRENT_ENDPOINT=lay.trainer_endpoints[trainer],
        )
        log = _log(env.get(LOG_DIR_ENV), f"workerlog.{trainer}")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "pe_cli", "fluid", script, *args],
                env=own,
                stdout=log,
                stderr=subprocess.STDOUT if log else None,
            )
        )
    try:
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:
        return 130
    return next((c for c in codes if c), 0)

"""The commands that run Fluid scripts: ``pe fluid`` (one script, unchanged) and ``pe launch`` (a
script on parameter servers and trainers, as paddle.distributed.launch starts them). Registered on
the ``pe`` group by pe_cli/cli/main.py; each imports the engine in its body, as there."""

import os
import sys

import click

from .errors import CONTEXT, EPILOG, debug_option, guarded
from .options import threads_option, use_threads
from ..base.errors import UsageError
from ..distributed.rank_guard import guard, needs_guard


@click.command(context_settings=dict(CONTEXT, ignore_unknown_options=True, allow_interspersed_args=False))
@click.option(
    "-m",
    "module",
    default=None,
    metavar="MODULE",
    help="Run a module as `python -m` does (`-m paddle.distributed.launch --selected_gpus 0,1 train.py`).",
)
@click.argument("script", type=click.Path(dir_okay=False), required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@threads_option
@guarded
def fluid(module, script, args, threads):
    """Run an unchanged Fluid 1.x SCRIPT.py (or -m MODULE): `paddle`, `paddle.fluid` resolve to pe here."""
    from ..distributed.rendezvous import join_role, role_alone

    use_threads(threads)  # before any role or rank starts: they inherit it (run/thread_count.py)
    alone = role_alone(sys.argv[1:])  # a role started on its own with Fluid's environment (docs/DISTRIBUTED.md)
    if alone is not None:
        sys.exit(alone)
    if needs_guard():  # under mpiexec: each rank runs under a guard (distributed/rank_guard.py)
        sys.exit(guard("pe_cli", sys.argv[1:]))
    join_role()
    from ..fluid.runner import run_module, run_script

    if module is not None:
        sys.exit(run_module(module, ([script] if script else []) + list(args)))
    if script is None:
        raise UsageError("pe fluid: give a SCRIPT.py to run, or -m MODULE")
    sys.exit(run_script(script, args))


@click.command(context_settings=dict(CONTEXT, ignore_unknown_options=True), epilog=EPILOG)
@click.option(
    "--trainers",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Trainer processes (on each node; default: one per --selected_gpus entry, else 1).",
)
@click.option(
    "--pservers",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="P",
    help="Parameter-server processes (ranks 0..P-1; the trainers follow).",
)
@click.option(
    "--cluster_node_ips",
    default="127.0.0.1",
    show_default=True,
    help="paddle.distributed.launch's: the nodes' addresses; this node starts its share of the trainers.",
)
@click.option(
    "--node_ip", default="127.0.0.1", show_default=True, help="This node's address (one of --cluster_node_ips)."
)
@click.option("--started_port", type=int, default=6170, show_default=True, help="The first endpoint's port.")
@click.option(
    "--log_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Each rank's output into LOG_DIR/workerlog.N (serverlog.N for servers).",
)
@click.option("--selected_gpus", default=None, help="Devices, one trainer each (FLAGS_selected_gpus of the rank).")
@click.option("--print_config", type=click.BOOL, default=False, show_default=True, help="Print the arguments first.")
@click.option("--use_paddlecloud", is_flag=True, help="Take the nodes from PADDLE_TRAINERS, POD_IP and PADDLE_PORT.")
@click.option("--log_level", type=int, default=20, hidden=True)
@click.argument("script", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@threads_option
@debug_option
@guarded
def launch(trainers, pservers, script, args, threads, **cluster):
    """Run a Fluid SCRIPT.py on P parameter servers and K trainers (mpiexec -n P+K), each with the
    environment Fluid's distributed scripts read: PADDLE_TRAINING_ROLE (PSERVER or TRAINER),
    PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS, PADDLE_PSERVER_ENDPOINTS,
    PADDLE_CURRENT_ENDPOINT (endpoints name the ranks in order: servers first). Takes
    paddle.distributed.launch's flags too (docs/DISTRIBUTED.md)."""
    from ..run import launch_cluster

    use_threads(threads)  # each rank's: inherited through PE_NUM_THREADS (run/thread_count.py)
    if not os.path.isfile(script):
        raise UsageError(f"{script}: no such script")
    if cluster.pop("print_config"):
        launch_cluster.print_config(
            dict(cluster, trainers=trainers, pservers=pservers, training_script=script, training_script_args=list(args))
        )
    lay = launch_cluster.layout(
        trainers,
        pservers,
        cluster["cluster_node_ips"],
        cluster["node_ip"],
        cluster["started_port"],
        cluster["selected_gpus"],
        cluster["use_paddlecloud"],
    )
    env = lay.env(os.environ, cluster["log_dir"], cluster["selected_gpus"])
    sys.exit(launch_cluster.start(lay, script, args, env))

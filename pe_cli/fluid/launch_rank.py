"""One rank of ``pe launch``: sets PADDLE_TRAINING_ROLE (PSERVER for the first
PADDLE_PSERVERS_NUM ranks, TRAINER after them), PADDLE_TRAINER_ID (PE_LAUNCH_FIRST_TRAINER plus
the trainer's place on this node), PADDLE_CURRENT_ENDPOINT (its entry of PADDLE_PSERVER_ENDPOINTS
or PADDLE_TRAINER_ENDPOINTS), POD_IP and PADDLE_PORT (its endpoint's parts, as Paddle's launchers
set them) and FLAGS_selected_gpus (its entry of --selected_gpus) from MPI's rank; with
PE_LAUNCH_LOG_DIR its output goes to serverlog.N or workerlog.N there. Then runs the script as
``pe fluid`` runs it (``paddle`` and ``paddle.fluid`` are pe's).

    mpiexec -n P+K python -m pe_cli.fluid.launch_rank script.py [args]   (pe launch does this)
"""

import os
import sys

from ..base.output_rule import open_append
from ..distributed.rank_guard import guard, needs_guard
from ..run.launch import BASE_PORT
from ..run.launch_cluster import FIRST_TRAINER_ENV, GPUS_ENV, LOG_DIR_ENV
from .runner import run_script


def _listed(name):
    return [e.strip() for e in os.environ.get(name, "").split(",") if e.strip()]


def _place(rank):
    """(role, index, endpoint) of MPI rank ``rank`` on this node."""
    servers = int(os.environ.get("PADDLE_PSERVERS_NUM", "0"))
    if rank < servers:
        endpoints = _listed("PADDLE_PSERVER_ENDPOINTS")
        return "PSERVER", rank, endpoints[rank] if rank < len(endpoints) else f"127.0.0.1:{BASE_PORT + rank}"
    trainer = int(os.environ.get(FIRST_TRAINER_ENV, "0")) + rank - servers
    endpoints = _listed("PADDLE_TRAINER_ENDPOINTS")
    return "TRAINER", trainer, endpoints[trainer] if trainer < len(endpoints) else f"127.0.0.1:{BASE_PORT + rank}"


def _log_to(log_dir, role, index):
    """This rank's stdout and stderr into LOG_DIR/workerlog.N (serverlog.N for a server)."""
    os.makedirs(log_dir, exist_ok=True)
    name = f"{'serverlog' if role == 'PSERVER' else 'workerlog'}.{index}"
    fd = open_append(os.path.join(log_dir, name))
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def main():
    if needs_guard():  # the rank runs as the child of a guard (distributed/rank_guard.py)
        sys.exit(guard("pe_cli.fluid.launch_rank", sys.argv[1:]))
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    role, index, endpoint = _place(rank)
    os.environ["PADDLE_TRAINING_ROLE"] = os.environ["TRAINING_ROLE"] = role
    os.environ["PADDLE_TRAINER_ID"] = str(index if role == "TRAINER" else 0)
    os.environ["PADDLE_CURRENT_ENDPOINT"] = endpoint
    os.environ["POD_IP"], _, os.environ["PADDLE_PORT"] = endpoint.rpartition(":")
    gpus = [g for g in os.environ.get(GPUS_ENV, "").split(",") if g]
    if gpus and role == "TRAINER":
        os.environ["FLAGS_selected_gpus"] = gpus[(index - int(os.environ.get(FIRST_TRAINER_ENV, "0"))) % len(gpus)]
    if os.environ.get(LOG_DIR_ENV):
        _log_to(os.environ[LOG_DIR_ENV], role, index)
    sys.exit(run_script(sys.argv[1], sys.argv[2:]))


if __name__ == "__main__":
    main()

"""One rank of ``pe launch``: sets PADDLE_TRAINING_ROLE (PSERVER for the first
PADDLE_PSERVERS_NUM ranks, TRAINER after them), PADDLE_TRAINER_ID and PADDLE_CURRENT_ENDPOINT from
MPI's rank, then runs the script as ``pe fluid`` runs it (``paddle`` and ``paddle.fluid`` are pe's).

    mpiexec -n P+K python -m pe_cli.fluid.launch_rank script.py [args]   (pe launch does this)
"""
import os
import sys

from ..base.rank_guard import guard, needs_guard
from ..run.launch import BASE_PORT
from .runner import run_script


def main():
    if needs_guard():       # the rank runs as the child of a guard (base/rank_guard.py)
        sys.exit(guard("pe_cli.fluid.launch_rank", sys.argv[1:]))
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    servers = int(os.environ.get("PADDLE_PSERVERS_NUM", "0"))
    role = "PSERVER" if rank < servers else "TRAINER"
    os.environ["PADDLE_TRAINING_ROLE"] = os.environ["TRAINING_ROLE"] = role
    os.environ["PADDLE_TRAINER_ID"] = str(max(rank - servers, 0))
    os.environ["PADDLE_CURRENT_ENDPOINT"] = f"127.0.0.1:{BASE_PORT + rank}"
    sys.exit(run_script(sys.argv[1], sys.argv[2:]))


if __name__ == "__main__":
    main()

"""Starting trainer processes under MPI for the user: ``pe train CONFIG --np K`` runs
``mpiexec -n K pe train CONFIG ... build_strategy.num_trainers=K`` (collective mode,
run/distributed.py), and ``pe launch --trainers K script.py`` runs a Fluid script on K ranks with
the environment Fluid's distributed scripts read (PADDLE_TRAINING_ROLE, PADDLE_TRAINER_ID,
PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT). The endpoints are names of
the ranks in order (127.0.0.1:6170, :6171, ...): MPI carries the traffic, nothing listens on them.
mpiexec is the one of the mpich wheel (the ``mpi`` extra) beside this Python, else the PATH's."""

import os
import subprocess
import sys

from ..base import limits
from ..base.errors import PeError
from ..distributed.rank_guard import mpiexec, under_mpi  # noqa: F401 -- where pe's commands ask them
from .rank_deaths import RankWatch

BASE_PORT = 6170


def run_ranks(k, argv, env=None):
    """Runs ``argv`` on ``k`` ranks under mpiexec; returns its exit status."""
    if k < 1:
        raise PeError(f"the number of processes must be >= 1, got {k}")
    limits.check("processes", k, "the process count (--np, or pe launch's --trainers + --pservers)")
    command = [mpiexec(), "-n", str(k)] + list(argv)
    watch = RankWatch()  # a rank killed before its guard's line: named here (rank_deaths.py)
    try:
        code = subprocess.run(command, env=watch.env(env)).returncode
    except KeyboardInterrupt:
        watch.finish(0)
        return 130
    line = watch.finish(code)
    if line:
        print(line, file=sys.stderr, flush=True)
    return code


def train_argv(argv, k):
    """``pe train`` arguments for each rank: the user's, without --np, plus num_trainers=K."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--np":
            skip = True
            continue
        if a.startswith("--np="):
            continue
        out.append(a)
    return [sys.executable, "-m", "pe_cli"] + out + [f"build_strategy.num_trainers={k}"]


def fluid_env(k, servers=0):
    """The environment of ``pe launch``'s ranks: Fluid's variables (each rank's role, trainer id and
    endpoint are set by pe_cli.fluid.launch_rank from MPI's rank). Rank r is named 127.0.0.1:6170+r:
    the ``servers`` parameter servers first, then the trainers."""
    names = [f"127.0.0.1:{BASE_PORT + r}" for r in range(servers + k)]
    trainers, pservers = ",".join(names[servers:]), ",".join(names[:servers])
    env = dict(
        os.environ,
        PADDLE_TRAINERS_NUM=str(k),
        PADDLE_TRAINER_ENDPOINTS=trainers,
        PADDLE_TRAINERS=trainers,
        PADDLE_PSERVERS_NUM=str(servers),
    )
    if servers:
        env.update(PADDLE_PSERVER_ENDPOINTS=pservers, PADDLE_PSERVERS_IP_PORT_LIST=pservers)
    return env

"""One trainer of tests/training/test_sparse_embedding_decay_clip.py's multi-process case, run by mpiexec:

    python tests/sparse_dist_worker.py TRAINERS OUT

Trains tests/training/test_sparse_embedding.py's model (embedding is_sparse=True, lazy Adam) on the same
batches as one process; trainer r takes whole sequences [r*S/K, (r+1)*S/K) of each batch, runs them
on one CPU device through ParallelExecutor(num_trainers=K), and writes OUT.<rank>.npz (losses,
parameters). The processes sum dense buffers, so the sparse gradient crosses them densified."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pe_cli.fluid as fluid  # noqa: E402
from tests.training.test_sparse_embedding import batches, build  # noqa: E402

trainers, out = int(sys.argv[1]), sys.argv[2]
rank = int(os.environ.get("PMI_RANK", "0"))
main, startup, loss = build(True, lambda: fluid.optimizer.Adam(0.05, lazy_mode=True))
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, num_trainers=trainers, trainer_id=rank)
losses = []
for feed in batches(4):
    lengths = feed["ids"].recursive_sequence_lengths()[0]
    share = len(lengths) // trainers
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    lo, hi = offsets[rank * share], offsets[(rank + 1) * share]
    ids = fluid.create_lod_tensor(
        np.array(feed["ids"])[lo:hi], [lengths[rank * share : (rank + 1) * share]], fluid.CPUPlace()
    )
    losses.append(
        float(
            np.mean(
                pe.run([loss.name], feed={"ids": ids, "label": feed["label"][rank * share : (rank + 1) * share]})[0]
            )
        )
    )
scope = fluid.global_scope()
np.savez(
    f"{out}.{rank}.npz",
    losses=np.array(losses),
    **{p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()},
)

"""The order in which `make test`'s pytest-xdist workers take the test files (``--dist loadfile``:
a file's tests go to one worker, so a module fixture runs once).

xdist deals the files out by their number of tests, most first. The slowest files hold few tests
(a handful of `pe` runs, a trained config, a cold numba compile), so they came last, and the suite
ended with one worker on such a file while the other had nothing left. Here the files measured
slowest go first, heaviest first (longest-processing-time-first: the tail is then a short file),
and every other file follows in xdist's own order. A file missing from the table (new, renamed)
only keeps xdist's place for it; the table never changes which tests run.
"""
from collections import OrderedDict

# Seconds of each file's tests in CI (a clean clone, an empty numba cache, the 2-core AMD EPYC VM;
# `--durations=0`, 2026-11-27, /tmp/ci14.log): a ranking, not a budget. A file whose tests take 25 s
# or more belongs here, in its place.
HEAVY_SECONDS = {
    "tests/compat/test_compat.py": 315,
    "tests/cuda/test_cuda_ops.py": 217,
    "tests/kernels/test_cpu_loops.py": 197,
    "tests/ops/test_ops.py": 106,
    "tests/cli/test_hostile_inputs.py": 106,
    "tests/data/test_sequence_data.py": 75,
    "tests/kernels/test_blocked.py": 68,
    "tests/io/test_hostile_pdparams.py": 61,
    "tests/transpiler/test_distributed.py": 59,
    "tests/cli/test_preprocessing.py": 59,
    "tests/kernels/test_replicas.py": 49,
    "tests/cli/test_sequence_models.py": 48,
    "tests/cli/test_train.py": 47,
    "tests/cli/test_smoke.py": 44,
    "tests/cli/test_multislot.py": 44,
    "tests/cli/test_first_run.py": 41,
    "tests/transpiler/test_pserver.py": 40,
    "tests/cli/test_trust.py": 39,
    "tests/fleet/test_fleet_launch.py": 38,
    "tests/cli/test_rendezvous.py": 37,
    "tests/cli/test_broken_configs.py": 37,
    "tests/kernels/test_softmax_rows_loops.py": 29,
    "tests/cli/test_launch.py": 29,
}


def heaviest_first(scopes):
    """The scopes (file paths) of ``scopes`` reordered: the table's files by their seconds, most
    first, then the others in their given order."""
    known = sorted((s for s in scopes if s in HEAVY_SECONDS), key=lambda s: -HEAVY_SECONDS[s])
    return known + [s for s in scopes if s not in HEAVY_SECONDS]


def scheduler(config, log):
    """xdist's file scheduler, dealing the files out heaviest first (None where xdist is absent or
    another --dist mode is asked for: xdist's own scheduler then)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class HeaviestFirst(LoadFileScheduling):
        ordered = False

        def _assign_work_unit(self, node):
            if not self.ordered:        # the work queue is complete before the first file is dealt
                self.ordered = True
                self.workqueue = OrderedDict((s, self.workqueue[s]) for s in heaviest_first(list(self.workqueue)))
            super()._assign_work_unit(node)
    return HeaviestFirst(config, log)

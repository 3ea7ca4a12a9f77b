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

# Seconds of each file's tests among the 25 slowest of `make test` in CI (a clean clone, an empty
# numba cache, the 2-core AMD EPYC VM; the mean of three runs of 2026-11-26, /tmp/ci6-8.log): a
# ranking, not a budget. A file that joins those 25 belongs here, in its place.
HEAVY_SECONDS = {
    "tests/data/test_sequence_data.py": 161,
    # the second code path's pass: a cold numba compile of every op case's forward for another target
    # (158 s on the AVX-512 EPYC VM under load, 2026-11-28; not yet among CI's measured 25)
    "tests/test_other_code_path.py": 150,
    # a cold compile of the MLP's loops and segments, then eight warm runs, three recompiling the
    # segments (500 s at load 13 on the 2-core VM, 2026-11-29; not yet among CI's measured 25)
    "tests/cli/test_cache_trust.py": 140,
    "tests/kernels/test_cpu_loops.py": 122,
    "tests/kernels/test_blocked.py": 117,
    "tests/cli/test_every_config.py": 110,  # 19 configs: 127 CPU-s, two at a time (2026-11-28, issue 87)
    # pe serve: 17 configs trained and predicted, 21 servers started (900 s on the 2-core VM under a load
    # average of 12 from other jobs, 2026-11-29; placed by estimate beside test_every_config, not yet
    # among CI's measured 25)
    "tests/cli/test_serve.py": 105,
    # planned steps: 25 generated segments compiled cold (44-73 s on the EPYC VM under load, 2026-11-28)
    "tests/executor/test_planned_step.py": 60,
    "tests/cli/test_sequences.py": 45,
    "tests/cli/test_train.py": 40,
    "tests/cli/test_first_run.py": 39,
    # several outputs: four trained runs, their predictions, a pe eval, two ONNX exports (46 CPU-s, 82 s
    # on the 2-core VM at load 6, 2026-11-29, issue 97)
    "tests/cli/test_several_outputs.py": 40,
    "tests/cli/test_eval_during_training.py": 38,
    "tests/training/test_sparse_embedding_decay_clip.py": 37,
    "tests/cli/test_sequence_models.py": 30,
    "tests/cli/test_trust.py": 25,
    "tests/cli/test_preprocessing.py": 25,
    # rows piped in: a trained run and seven `pe predict` processes (45 s wall, 32 CPU-s on the 2-core
    # machine at load 3, 2026-11-29, issue 97; placed by estimate, not yet among CI's measured 25)
    "tests/cli/test_predict_stream.py": 25,
    "tests/kernels/test_replicas.py": 21,
    "tests/cli/test_launch.py": 21,
    "tests/cli/test_smoke.py": 20,
    "tests/transpiler/test_distributed.py": 19,
    "tests/cli/test_summary.py": 19,
    "tests/data/test_async_executor.py": 17,
    "tests/layers/test_seq2seq_reverse.py": 9,
    "tests/cli/test_predict.py": 9,
    "tests/ops/test_ops.py": 8,
    "tests/layers/test_rnn_decode.py": 8,
    "tests/executor/test_parallel_stress.py": 8,
    "tests/cli/test_export.py": 7,
    # two `pe fluid` scripts / a `pe infer` and 28 model loads (43 s / 28 s on the 2-core VM at load 10,
    # 2026-11-29: a quarter of that quiet, as the files above were measured)
    "tests/paddle/test_partial_state_dicts.py": 11,
    "tests/io/test_paddle26_strict_reads.py": 7,
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
            if not self.ordered:  # the work queue is complete before the first file is dealt
                self.ordered = True
                self.workqueue = OrderedDict((s, self.workqueue[s]) for s in heaviest_first(list(self.workqueue)))
            super()._assign_work_unit(node)

    return HeaviestFirst(config, log)

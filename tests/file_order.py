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

# Seconds of each file's tests (every test's setup, call and teardown: `pytest --durations=0`) in a run as `make
# test` runs them (3 workers, a clean clone, a fresh HOME: an empty numba cache but for `make`'s warm-up; the
# 2-core AMD EPYC VM, AVX2, 2026-12-02, 3,279 s): a ranking, not a budget. A file whose tests take 20 s or more
# belongs here, in its place.
HEAVY_SECONDS = {
    "tests/compat/test_compat.py": 909,
    "tests/test_other_code_path.py": 618,
    "tests/cli/test_every_config.py": 564,
    "tests/executor/test_planned_step.py": 530,
    "tests/cuda/test_cuda_ops.py": 428,
    "tests/ops/test_ops.py": 335,
    "tests/cli/test_hostile_inputs.py": 281,
    "tests/kernels/test_cpu_loops.py": 226,
    "tests/transpiler/test_distributed.py": 184,
    "tests/cli/test_sequence_models.py": 163,
    "tests/cli/test_trust.py": 124,
    "tests/cli/test_ludwig_configs.py": 118,
    "tests/cli/test_train.py": 116,
    "tests/io/test_hostile_pdparams.py": 116,
    "tests/data/test_sequence_data.py": 114,
    "tests/cli/test_several_outputs.py": 109,
    "tests/cli/test_cache_trust.py": 106,
    "tests/cli/test_preprocessing.py": 100,
    "tests/cli/test_verified_writes.py": 99,
    "tests/cli/test_rendezvous.py": 94,
    "tests/cli/test_inputs_that_cannot_train.py": 91,
    "tests/io/test_fluid_model_write.py": 90,
    "tests/transpiler/test_pserver.py": 89,
    "tests/kernels/test_softmax_rows_loops.py": 85,
    "tests/cli/test_serve.py": 84,
    "tests/cli/test_output_rule.py": 82,
    "tests/cli/test_first_run.py": 80,
    "tests/cli/test_target_units.py": 78,
    "tests/cli/test_broken_configs.py": 76,
    "tests/cli/test_numbers_users_read.py": 74,
    "tests/paddle/test_static_mode.py": 73,
    "tests/fleet/test_fleet_launch.py": 70,
    "tests/executor/test_planned_op_cases.py": 70,
    "tests/kernels/test_blocked.py": 69,
    "tests/cli/test_launch.py": 67,
    "tests/cli/test_features.py": 64,
    "tests/kernels/test_lstm_loops.py": 61,
    "tests/cli/test_checkpoint_of_a_run.py": 61,
    "tests/cli/test_multislot.py": 60,
    "tests/cli/test_resume_overrides.py": 59,
    "tests/cli/test_records_fail_closed.py": 57,
    "tests/cli/test_data_sizes.py": 54,
    "tests/cli/test_feature_overrides.py": 52,
    "tests/kernels/test_blas_source.py": 52,
    "tests/cli/test_predict.py": 51,
    "tests/cli/test_outputs.py": 50,
    "tests/cli/test_predict_stream.py": 46,
    "tests/fluid/test_mnist_api.py": 45,
    "tests/cli/test_eval_metrics_during_training.py": 43,
    "tests/cli/test_export.py": 43,
    "tests/cli/test_data_split.py": 42,
    "tests/paddle/test_static_amp.py": 41,
    "tests/cli/test_control_flow.py": 40,
    "tests/cli/test_eval_during_training.py": 39,
    "tests/kernels/test_logic_loops.py": 39,
    "tests/executor/test_planned_schedules.py": 39,
    "tests/cli/test_input_limits.py": 38,
    "tests/cuda/test_cuda_step_graph.py": 38,
    "tests/test_architecture.py": 38,
    "tests/cli/test_dates.py": 38,
    "tests/cli/test_sequences.py": 37,
    "tests/layers/test_seq2seq_reverse.py": 36,
    "tests/cli/test_csv_dialects.py": 34,
    "tests/cli/test_smoke.py": 34,
    "tests/test_benchmarks.py": 33,
    "tests/io/test_paddle26_saved_models.py": 33,
    "tests/cli/test_messages_four.py": 32,
    "tests/cli/test_graph.py": 31,
    "tests/cli/test_record_bounds.py": 31,
    "tests/cli/test_summary.py": 30,
    "tests/cli/test_missing_values.py": 30,
    "tests/test_explicit_state.py": 30,
    "tests/cli/test_kill_resume.py": 29,
    "tests/cli/test_loggers.py": 29,
    "tests/data/test_async_executor.py": 28,
    "tests/cli/test_loaders_refuse.py": 28,
    "tests/layers/test_rnn_decode.py": 27,
    "tests/kernels/test_replicas.py": 27,
    "tests/test_examples_parallel.py": 26,
    "tests/training/test_double_grad.py": 25,
    "tests/paddle/test_vision_models.py": 25,
    "tests/cli/test_onnx_raw_inputs.py": 24,
    "tests/cli/test_checkpoint_manifest.py": 24,
    "tests/training/test_sparse_embedding_decay_clip.py": 24,
    "tests/cli/test_reviews_transformer.py": 23,
    "tests/cli/test_plot.py": 23,
    "tests/test_examples.py": 22,
    "tests/kernels/test_numba_cache.py": 22,
    "tests/cli/test_rank_failures.py": 22,
    "tests/kernels/test_transpose_loop.py": 22,
    "tests/cli/test_saved_preprocessing.py": 21,
    "tests/cli/test_resume_checks.py": 21,
    "tests/kernels/test_thread_independent.py": 21,
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

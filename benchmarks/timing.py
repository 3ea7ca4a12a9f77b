"""The one timer of the micro-benchmarks (conv_paths.py, gemm_shapes.py, gpu.py): each takes the
statistic it reports from these times."""

import time


def call_times(fn, reps, warmup=1):
    """Seconds of ``reps`` calls of ``fn`` after ``warmup`` untimed ones (compiling, caches), sorted."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)

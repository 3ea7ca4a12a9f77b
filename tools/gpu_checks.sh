#!/bin/bash
# The checks to run first on a machine with an NVIDIA GPU (docs/CUDA.md, "On a real GPU"):
# benchmarks/gpu.py and gpu_launch.py, then every test of tests/cuda on the real driver instead of the simulator.
#
#     bash tools/gpu_checks.sh              # logs to $OUT (default /tmp/pe-gpu-checks)
#     BENCH_S=180 TEST_S=380 JOBS=14 bash tools/gpu_checks.sh
#
# It uses the machine's own python3 with numpy, numba and numba-cuda installed (pip install '.[cuda]'
# elsewhere) and pe from this checkout. Each part has a time limit so the logs come back either way.
set -u
OUT=${OUT:-/tmp/pe-gpu-checks}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PE_REAL_GPU=1 NUMBA_ENABLE_CUDASIM=0 NUMBA_DISABLE_PERFORMANCE_WARNINGS=1
# numba-cuda up to 0.30 imports np.row_stack, which numpy 2.5 removed.
site=$(mktemp -d)
printf 'import numpy as np\nif not hasattr(np, "row_stack"):\n    np.row_stack = np.vstack\n' >"$site/sitecustomize.py"
export PYTHONPATH="$PWD:$site${PYTHONPATH:+:$PYTHONPATH}"

{
  date -u; nvidia-smi -L; nproc; lscpu | grep -m1 'Model name'
  python3 -c 'import sys, numpy, numba, numba.cuda as c; print(sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__, "numba-cuda", getattr(c, "__version__", "?")); print(c.gpus)'
} 2>&1 | tee "$OUT/machine.log"

timeout "${BENCH_S:-180}" python3 benchmarks/gpu.py --steps 40 --warmup 8 --cpu-steps 5 --profile 2>&1 | tee "$OUT/bench.log"
echo "benchmark exit: ${PIPESTATUS[0]}" | tee -a "$OUT/bench.log"
# the same steps with kernels launched through numba's own path, and LeNet with each op's GPU time
PE_CUDA_LAUNCH=numba timeout 90 python3 benchmarks/gpu.py --skip-cpu --matmul-size 0 --steps 40 --warmup 8 \
  2>&1 | tee "$OUT/bench_numba_launch.log"
PE_CUDA_SYNC=1 timeout 90 python3 benchmarks/gpu.py --models lenet:256 --skip-cpu --profile --matmul-size 0 \
  --steps 10 --warmup 3 2>&1 | tee "$OUT/bench_lenet_sync.log"
timeout "${LAUNCH_S:-90}" python3 benchmarks/gpu_launch.py --profile >"$OUT/launch.log" 2>&1
echo "launch benchmark exit: $?" >>"$OUT/launch.log"
PE_CUDA_LAUNCH=numba timeout 60 python3 benchmarks/gpu_launch.py >>"$OUT/launch.log" 2>&1
head -20 "$OUT/launch.log"

timeout "${TEST_S:-380}" python3 -m pytest tests/cuda -v -n "${JOBS:-14}" -p no:cacheprovider --timeout 120 -rfEs >"$OUT/tests.log" 2>&1
echo "tests exit: $?" >>"$OUT/tests.log"
grep -cE ' PASSED ' "$OUT/tests.log" | sed 's/^/passed: /'
grep -E ' (FAILED|ERROR) ' "$OUT/tests.log" | head -60
tail -25 "$OUT/tests.log"

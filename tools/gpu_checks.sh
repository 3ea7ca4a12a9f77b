#!/bin/bash
# The checks to run first on a machine with an NVIDIA GPU (docs/CUDA.md, "On a real GPU"):
# benchmarks/gpu.py (also with whole-step CUDA graphs) and gpu_launch.py, then every test of tests/cuda on the
# real driver instead of the simulator, with graphs off and then on.
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
# the same steps replayed as whole-step CUDA graphs (PE_CUDA_GRAPHS=1; --profile would run them op by op)
PE_CUDA_GRAPHS=1 timeout 90 python3 benchmarks/gpu.py --skip-cpu --matmul-size 0 --steps 40 --warmup 8 \
  2>&1 | tee "$OUT/bench_graphs.log"
timeout "${LAUNCH_S:-90}" python3 benchmarks/gpu_launch.py --profile >"$OUT/launch.log" 2>&1
echo "launch benchmark exit: $?" >>"$OUT/launch.log"
PE_CUDA_LAUNCH=numba timeout 60 python3 benchmarks/gpu_launch.py >>"$OUT/launch.log" 2>&1
head -20 "$OUT/launch.log"

timeout "${TEST_S:-380}" python3 -m pytest tests/cuda -v -n "${JOBS:-14}" -p no:cacheprovider --timeout 120 -rfEs >"$OUT/tests.log" 2>&1
echo "tests exit: $?" >>"$OUT/tests.log"
grep -cE ' PASSED ' "$OUT/tests.log" | sed 's/^/passed: /'
grep -E ' (FAILED|ERROR) ' "$OUT/tests.log" | head -60
tail -25 "$OUT/tests.log"

# -- cuBLAS for the matrix products (pe_cli/kernels/cuda/_blas.py, docs/CUDA.md "Library GEMMs") --------
# nvmath-python from the machine's image, or from a wheel carried in .whl/ (pip download --no-deps
# --only-binary=:all: --python-version 3.12 nvmath-python -d .whl); cuBLAS itself from the image (torch's
# nvidia-cublas-cu12 wheel). Then cuBLAS against pe's kernel on every GEMM op case, the op cases of those
# ops against the CPU with cuBLAS on, and the benchmark's rows with PE_CUDA_GEMM numba vs cuBLAS.
{
  if ! python3 -c 'import nvmath.bindings.cublas' 2>/dev/null && ls "${PE_WHEELS:-.whl}"/nvmath_python-*.whl >/dev/null 2>&1; then
    libs=$(mktemp -d)
    python3 -m pip install -q --no-deps --no-index --target "$libs" "${PE_WHEELS:-.whl}"/nvmath_python-*.whl
    export PYTHONPATH="$PYTHONPATH:$libs"
  fi
  python3 -c 'from pe_cli.run.machine_info import _cuda; print("pe info:", _cuda())'
  timeout "${BLAS_TEST_S:-240}" python3 -m pytest tests/cuda/test_cuda_blas.py -v -n "${JOBS:-14}" -p no:cacheprovider \
    --timeout 120 -rfEs 2>&1 | tail -40
  PE_CUDA_GEMM=cublas timeout "${BLAS_TEST_S:-240}" python3 -m pytest tests/cuda/test_cuda_ops.py -q -n "${JOBS:-14}" \
    -p no:cacheprovider --timeout 120 -rfE -k "mul or matmul or conv2d or bmm or addmm or fc or gemm" 2>&1 | tail -15
  timeout "${BLAS_BENCH_S:-300}" python3 benchmarks/gpu.py --models resnet:64,transformer:32,mlp:1024 --steps 30 \
    --warmup 8 --skip-cpu --matmul-size 4096 2>&1
  echo "library benchmark exit: $?"
} 2>&1 | tee "$OUT/blas.log"

# tests/cuda again with whole-step graphs on (test_cuda_step_graph.py compares them with op-by-op steps on the driver)
PE_CUDA_GRAPHS=1 timeout "${GRAPH_TEST_S:-300}" python3 -m pytest tests/cuda -q -n "${JOBS:-14}" -p no:cacheprovider \
  --timeout 120 -rfEs >"$OUT/tests_graphs.log" 2>&1
echo "tests with graphs exit: $?" >>"$OUT/tests_graphs.log"
tail -25 "$OUT/tests_graphs.log"
# every op case's gradient program stepped five times with graphs off and on (recording and replay on the driver)
timeout "${GRAPH_CHECK_S:-300}" python3 tests/cuda/graph_check.py >"$OUT/graph_check.log" 2>&1
echo "graph check exit: $?" >>"$OUT/graph_check.log"
tail -30 "$OUT/graph_check.log"

# Every target sets itself up: a fresh clone needs only python3 (>= 3.10).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# `make train` installs what the main job uses: the base package (numpy, numba, pyyaml, click,
# threadpoolctl, protobuf). MKL's GEMM and oneDNN's convolutions only on an Intel CPU, where pe
# measured them faster and picks them (docs/PERFORMANCE.md, "Which BLAS"); elsewhere pe would not
# call MKL, and its wheels are about 0.9 GB of the 1.8 GB a venv with every extra takes.
VENDOR := $(shell grep -qs GenuineIntel /proc/cpuinfo && echo '[mkl,onednn]')

.PHONY: train test smoke bench clean format

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.$(VENDOR)'
	@# bytecode now: where PYTHONDONTWRITEBYTECODE is set, Python reads .pyc files but never writes
	@# them, and compiling pe's ~280 modules from source cost each process 0.4-0.6 s (docs/PERFORMANCE.md)
	$(PY) -m compileall -q pe_cli
	touch $(STAMP)

# The tests check every extra (ONNX through onnxruntime, MPI, the CUDA simulator, MKL and oneDNN
# where their wheels exist, pe serve's server), so `make test` (CI) installs them all.
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[dev,cudasim,mpi,mkl,onednn,serve]'
	@echo "compiling pe's kernels for this machine into numba's cache (once, a few minutes)"
	@# a warm-up only: 4 steps are too few for every config's loss to fall (`make smoke` is the check)
	@$(VENV)/bin/pe smoke --steps 4 --samples 64 > /dev/null || true
	touch $(TEST_STAMP)

# No curves: drawing them needs the plot extra (matplotlib), which the main job does not install
# (`pip install -e '.[plot]'`, then `pe plot runs/mnist_lenet` draws them).
train: $(STAMP)
	$(VENV)/bin/pe train configs/mnist_lenet.yaml
	@echo "(pe is installed in $(VENV)/bin: 'source $(VENV)/bin/activate' puts it on your PATH)"

# Three pytest workers (pytest-xdist) on the 2-core VM: with two, 1.79 of the 2 cores were busy over a
# clean clone's run (tests wait on their `pe` subprocesses, on timers); with three, 1.92: 1,129 s with
# the CUDA simulator's fix, against about 1,285 s before both (docs/PERFORMANCE.md). TEST_WORKERS=0
# runs in-process.
# --dist loadfile: a file's tests go to one worker, so a module fixture (a trained run the file's tests
# share) runs once, not once per worker (911 s against 1103 s on the 2-core VM; docs/PERFORMANCE.md).
# The slowest files go first (tests/file_order.py), so the run does not end on one of them.
# --durations: the 25 slowest tests close the report (the suite's time budget is 15 minutes on 2 cores).
TEST_WORKERS ?= 3
test: $(TEST_STAMP)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25

# ruff (pinned in pyproject.toml's dev extra) formats the tree and fixes what its linter can; tests/test_formatting.py
# checks both in CI
format: $(TEST_STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

smoke: $(TEST_STAMP)
	$(VENV)/bin/pe smoke

# PyTorch is the benchmark's yardstick only: installed here, never a dependency of pe or of `make test`.
# The +cpu build (pinned: never a newer torch, never the CUDA packages).
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(TEST_STAMP)
	$(PY) -m pip install -q 'torch==2.13.0+cpu'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(PY) benchmarks/bench_cpu.py
	$(PY) benchmarks/memory.py
	$(PY) benchmarks/fusion.py
	@# optional: pe against Fluid 1.8.5 (a Python 3.8 venv with paddlepaddle==1.8.5, benchmark-only)
	@if [ -n "$$PE_FLUID_PYTHON" ]; then $(PY) benchmarks/fluid_bench.py; \
	else echo "(pe against Fluid 1.8.5 skipped: set PE_FLUID_PYTHON to a Fluid 1.8.5 venv's python)"; fi

clean:
	rm -rf $(VENV) runs .pytest_cache

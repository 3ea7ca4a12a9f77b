import os
import sys

# CUDA kernels run under numba's CUDA simulator unless a real GPU run is asked for
# (PE_REAL_GPU=1, on a machine with one). numba reads this when it is first imported.
if os.environ.get("PE_REAL_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# tests/ is on the path so test modules share helpers (op_test) by plain import.
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

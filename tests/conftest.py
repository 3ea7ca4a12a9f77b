import os
import sys

# CUDA kernels run under numba's CUDA simulator unless a real GPU run is asked for
# (PE_REAL_GPU=1, on a machine with one). numba reads this when it is first imported.
if os.environ.get("PE_REAL_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# tests/ is on the path so test modules share helpers (op_test) by plain import.
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))


def _fluid_operator_rules():
    from pe_cli.framework import operator_rules
    operator_rules.follow_paddle2(False)


def pytest_collection_finish(session):
    """Test modules that call ``paddle.enable_static()`` on import switch new programs to Paddle 2.6's
    operator rules (pe_cli/framework/operator_rules.py); the tests start from Fluid 1.8's."""
    _fluid_operator_rules()


def pytest_runtest_teardown(item):
    """A test that switched to Paddle 2.6's operator rules leaves Fluid 1.8's to the next one."""
    _fluid_operator_rules()

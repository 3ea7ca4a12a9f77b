import os
import sys

import pytest

# CUDA kernels run under numba's CUDA simulator unless a real GPU run is asked for
# (PE_REAL_GPU=1, on a machine with one). numba reads this when it is first imported.
if os.environ.get("PE_REAL_GPU") != "1":
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# tests/ is on the path so test modules share helpers (op_test) by plain import.
sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

# numba's cache is the user's, warmed by `make`, for this process and every `pe` it starts, even one a test
# gives another HOME (its own per-user folders): such a child inherits the folder and the key that signs it,
# as the children pe starts do, instead of compiling every kernel it calls into an empty cache
from pe_cli.kernels.cpu.runtime import numba_cache  # noqa: E402

numba_cache.install()


_PROGRAM_RELEASE = []  # turns pe_cli.framework.program_release to Fluid 1.8's, set once collection is done


def pytest_collection_finish(session):
    """Test modules that call ``paddle.enable_static()`` on import switch new programs to Paddle 2.6
    operator rules (pe_cli/framework/program_release.py); the tests start from Fluid 1.8's."""
    from pe_cli.framework import default_main_program, default_startup_program, program_release

    _PROGRAM_RELEASE.append(
        lambda: program_release.follow_paddle2(False, (default_main_program(), default_startup_program()))
    )
    _PROGRAM_RELEASE[0]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    """A test that switched to Paddle 2.6's operator rules leaves Fluid 1.8's to the next one (after
    its fixtures are undone: a monkeypatched import would fail)."""
    yield
    for to_fluid in _PROGRAM_RELEASE[:1]:
        to_fluid()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`make test`'s workers take the slowest files first (tests/file_order.py)."""
    from file_order import scheduler

    return scheduler(config, log)

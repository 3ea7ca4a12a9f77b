"""fluid.set_flags / get_flags, install_check.run_check and cuda_pinned_places (pe_cli/fluid/flags.py,
install_check.py, framework.py): the flags pe acts on act, the others are kept, unknown ones refused."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import NanInfError, PeError


@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")
def test_check_nan_inf_set_through_set_flags_stops_at_the_op():
    fluid.set_flags({"FLAGS_check_nan_inf": True})
    try:
        assert fluid.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = fluid.data("x", [None, 2])
            y = fluid.layers.log(x)
        exe = fluid.Executor(fluid.CPUPlace())
        with pytest.raises(NanInfError, match="log"):
            exe.run(main, feed={"x": np.array([[1.0, -1.0]], "float32")}, fetch_list=[y])
    finally:
        fluid.set_flags({"FLAGS_check_nan_inf": False})
    assert fluid.get_flags(["FLAGS_check_nan_inf"]) == {"FLAGS_check_nan_inf": False}


def test_memory_flags_are_kept_and_unknown_flags_refused_before_anything_is_set():
    fluid.set_flags({"FLAGS_eager_delete_tensor_gb": 0.5})
    assert fluid.get_flags("FLAGS_eager_delete_tensor_gb") == {"FLAGS_eager_delete_tensor_gb": 0.5}
    with pytest.raises(ValueError, match="FLAGS_no_such_flag cannot set"):
        fluid.set_flags({"FLAGS_eager_delete_tensor_gb": 1.0, "FLAGS_no_such_flag": 1})
    assert fluid.get_flags("FLAGS_eager_delete_tensor_gb")["FLAGS_eager_delete_tensor_gb"] == 0.5


def test_install_check_trains_on_one_and_all_devices(capsys):
    fluid.install_check.run_check()
    out = capsys.readouterr().out
    assert "works well on SINGLE GPU or CPU" in out and "installed successfully" in out


def test_cuda_pinned_places_needs_a_gpu():
    if fluid.is_compiled_with_cuda():
        assert all(isinstance(p, fluid.CUDAPinnedPlace) for p in fluid.cuda_pinned_places(2))
    else:
        with pytest.raises(PeError, match="no CUDA device"):
            fluid.cuda_pinned_places()

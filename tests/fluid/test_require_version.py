"""fluid.require_version, which most PaddlePaddle/models programs call before building anything: pe
answers for the Fluid release whose API it follows (1.8.5), with Fluid's exceptions."""
import pytest

from pe_cli import fluid


@pytest.mark.parametrize("args", [("1.6",), ("1.8.5",), ("1",), ("0.9.9.9",), ("1.6.0", "1.8.5"), ("1.8", "2.0")])
def test_a_version_range_holding_1_8_5_passes(args):
    assert fluid.require_version(*args) is None
    assert fluid.framework.require_version(*args) is None


@pytest.mark.parametrize("args, message", [
    (("1.9",), r"VersionError: PaddlePaddle version 1.9 or higher is required, but 1.8.5 installed"),
    (("1.8.6",), r"VersionError: PaddlePaddle version 1.8.6 or higher"),
    (("1.5", "1.7"), r"VersionError: PaddlePaddle version in \[1.5, 1.7\] required, but 1.8.5 installed"),
])
def test_a_range_without_1_8_5_raises_fluids_version_error(args, message):
    with pytest.raises(Exception, match=message):
        fluid.require_version(*args)


@pytest.mark.parametrize("args, error", [((1.6,), TypeError), (("1.6", 2), TypeError), (("1.x",), ValueError),
                                         (("1.2.3.4.5",), ValueError), (("1.6", "v2"), ValueError)])
def test_a_malformed_version_is_fluids_type_or_value_error(args, error):
    with pytest.raises(error, match="require_version"):
        fluid.require_version(*args)

"""fluid.require_version, which most PaddlePaddle/models programs call before building anything: pe
answers for the Fluid release whose API it follows (1.8.5), with Fluid's exceptions."""

import pytest

from pe_cli import fluid


@pytest.mark.parametrize("args", [("1.6",), ("1.8.5",), ("1",), ("0.9.9.9",), ("1.6.0", "1.8.5"), ("1.8", "2.0")])
def test_a_version_range_holding_1_8_5_passes(args):
    assert fluid.require_version(*args) is None
    assert fluid.framework.require_version(*args) is None


@pytest.mark.parametrize(
    "args, message",
    [
        (("1.9",), r"VersionError: PaddlePaddle version 1.9 or higher is required, but 1.8.5 installed"),
        (("1.8.6",), r"VersionError: PaddlePaddle version 1.8.6 or higher"),
        (("1.5", "1.7"), r"VersionError: PaddlePaddle version in \[1.5, 1.7\] required, but 1.8.5 installed"),
    ],
)
def test_a_range_without_1_8_5_raises_fluids_version_error(args, message):
    with pytest.raises(Exception, match=message):
        fluid.require_version(*args)


@pytest.mark.parametrize(
    "args, error",
    [
        ((1.6,), TypeError),
        (("1.6", 2), TypeError),
        (("1.x",), ValueError),
        (("1.2.3.4.5",), ValueError),
        (("1.6", "v2"), ValueError),
    ],
)
def test_a_malformed_version_is_fluids_type_or_value_error(args, error):
    with pytest.raises(error, match="require_version"):
        fluid.require_version(*args)


def test_require_version_reads_paddle_version_at_the_call(monkeypatch):
    """paddle.version (pe_cli/fluid/version.py) holds Fluid's fields; require_version compares with
    them as a program set them, and a version of all zeros (a development build) only warns."""
    from pe_cli.fluid import runner, version

    assert runner.pe_module_for("paddle.version") == "pe_cli.fluid.version"
    assert (version.major, version.minor, version.patch, version.rc) == ("1", "8", "5", "0")
    for name, value in zip(("major", "minor", "patch", "rc"), ("1", "4", "1", "0")):
        monkeypatch.setattr(version, name, value)
    fluid.require_version("1.4.1", "1.4.1")
    with pytest.raises(Exception, match="VersionError"):
        fluid.require_version("1.5")
    for name in ("major", "minor", "patch", "rc"):
        monkeypatch.setattr(version, name, "0")
    with pytest.warns(UserWarning, match="develop version"):
        assert fluid.require_version("100") is None

"""The release a program run by ``pe fluid`` sees (issue 96; docs/COMPAT.md, "The version a program sees"): a
Paddle 2.x program (it names ``enable_static``, or imports ``paddle`` and never ``paddle.fluid``) sees Paddle
2.6.2 in ``paddle.__version__``, ``paddle.__git_commit__``, every ``paddle.version`` field and function and
``paddle.inference.get_version()``, exactly as Paddle 2.6.2 prints them (tests/data/paddle_oracle/version26.json,
tools/paddle26_version.py), so its ``paddle.__version__ >= '2.0.0'`` checks take their 2.x branch; a Fluid 1.x
program (it imports ``paddle.fluid``) keeps Fluid 1.8.5's, its ``fluid.require_version`` answering alike."""

import json
import os
import textwrap

import pytest

from paths import REPO
from pe_cli.fluid.runner import is_paddle2_program
from tests.cli.test_helpers import pe

with open(os.path.join(REPO, "tests", "data", "paddle_oracle", "version26.json"), encoding="utf-8") as _f:
    RECORDED = json.load(_f)


def _run(tmp_path, source):
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(source))
    proc = pe("fluid", script)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_paddle_2_program_sees_paddle_2_6_2_as_paddle_prints_it(tmp_path):
    assert RECORDED["engine"] == "paddlepaddle 2.6.2"
    assert _run(tmp_path, RECORDED["script"]) == RECORDED["stdout"]


def test_a_paddle_2_program_reads_the_version_before_enable_static(tmp_path):
    out = _run(
        tmp_path,
        """
        import paddle
        from paddle import __version__
        print(__version__, paddle.version.full_version, paddle.version.commit)
        """,
    )
    assert out.split() == ["2.6.2", "2.6.2", "8ce0de584c570589117e403322f3d1a0de6554e5"]


def test_a_fluid_program_sees_fluid_1_8_5(tmp_path):
    out = _run(
        tmp_path,
        """
        import paddle
        import paddle.fluid as fluid
        print(paddle.__version__, paddle.version.full_version, paddle.version.major, paddle.version.minor)
        print(paddle.__git_commit__ == paddle.version.commit, paddle.inference.get_version())
        fluid.require_version("1.8.0")
        try:
            fluid.require_version("2.0.0")
        except Exception as e:
            print(str(e).split(",")[0])
        x = fluid.data("x", [3], "int64")
        print(fluid.Executor(fluid.CPUPlace()).run(feed={"x": __import__("numpy").array([-4, 0, -8])}, fetch_list=[x // 3])[0].tolist())
        """,
    )
    assert out.splitlines() == [
        "1.8.5 1.8.5 1 8",
        "True version: 1.8.5",
        "VersionError: PaddlePaddle version 2.0.0 or higher is required",
        "[-1, 0, -2]",  # Fluid 1.8.5's truncating floordiv
    ]


@pytest.mark.parametrize(
    "source, paddle2",
    [
        ("import paddle\npaddle.enable_static()", True),
        ("import paddle\nx = paddle.to_tensor([1])", True),
        ("from paddle import static", True),
        ("import paddle.nn as nn", True),
        ("import paddle\nimport paddle.fluid as fluid\nfluid.enable_static()", True),
        ("from paddle.static import enable_static", True),
        ("import paddle.fluid as fluid", False),
        ("import paddle\nimport paddle.fluid as fluid", False),
        ("from paddle import fluid\nimport paddle", False),
        ("from paddle.fluid import layers", False),
        ("import numpy", False),
        ("def (:", False),
    ],
)
def test_which_programs_are_paddle_2_programs(source, paddle2):
    assert is_paddle2_program(source) is paddle2

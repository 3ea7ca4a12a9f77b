"""``paddle.fluid.incubate.fleet.parameter_server.version``: which parameter server the wheel was
built for: the transpiler's (pslib is a separate build), as Fluid 1.8.5's wheel says."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has it

from ..base.mode import Mode

BUILD_MODE = Mode.TRANSPILER


def is_transpiler():
    return Mode.TRANSPILER == BUILD_MODE

"""``paddle.fluid.transpiler.ps_dispatcher``: how variables are placed on parameter servers
(PSDispatcher, RoundRobin, HashName: pe_cli/transpiler/dispatch.py)."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has it

from ...transpiler.dispatch import HashName, PSDispatcher, RoundRobin  # noqa: F401

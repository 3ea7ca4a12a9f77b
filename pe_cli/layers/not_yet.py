"""The layers of Fluid 1.8's ``fluid.layers`` index (seed 002) that pe does not have yet, each a
stand-in raising NotImplementedError (FluidUnsupported) that names it and says pe does not support
it yet. A stand-in only fills a name pe_cli.layers does not define, so a layer that lands replaces
its stand-in without touching this list. docs/COMPAT.md has the same table; tests/layers/test_index.py
keeps the two and the code in agreement."""

import types

from ..base.errors import unsupported

_WHY = "pe does not support it yet"

# Built elsewhere: recurrent layers and decoding (issues 12 and 13).
IN_PROGRESS = []

# Object detection (anchors, boxes, proposals, RoI pooling, NMS, detection losses).
DETECTION = []

GROUPS = {"in progress (issues 12, 13)": IN_PROGRESS, "detection": DETECTION}


def fill(namespace):
    """Adds a stand-in for each listed name ``namespace`` (pe_cli.layers' globals) does not define.
    A submodule's name counts as undefined: Fluid's ``layers.rnn`` is a function (its package's
    star import replaces the submodule ``rnn``), pe's ``rnn`` submodule is the face of Fluid's."""
    for names in GROUPS.values():
        for name in names:
            if name not in namespace or isinstance(namespace[name], types.ModuleType):
                namespace[name] = unsupported(f"fluid.layers.{name}", _WHY)

"""The layers of Fluid 1.8's ``fluid.layers`` index (seed 002) that pe does not have yet, each a
stand-in raising NotImplementedError (FluidUnsupported) that names it and says pe does not support
it yet. A stand-in only fills a name pe_cli.layers does not define, so a layer that lands replaces
its stand-in without touching this list (pe_cli/layers/__init__.py gives a stand-in only for a name the
package does not define; a submodule's name counts as undefined). docs/COMPAT.md has the same table; tests/layers/test_index.py
keeps the two and the code in agreement."""

from ..base.errors import unsupported

_WHY = "pe does not support it yet"

# Built elsewhere: recurrent layers and decoding (issues 12 and 13).
IN_PROGRESS = []

# Object detection (anchors, boxes, proposals, RoI pooling, NMS, detection losses).
DETECTION = []

GROUPS = {"in progress (issues 12, 13)": IN_PROGRESS, "detection": DETECTION}


def names():
    """The listed names, every group's."""
    return [name for group in GROUPS.values() for name in group]


def stand_in(name):
    """The stand-in of a listed name: it raises NotImplementedError (FluidUnsupported) naming it."""
    return unsupported(f"fluid.layers.{name}", _WHY)

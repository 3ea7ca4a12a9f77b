"""``paddle.fluid.incubate.fleet.base.mode``: the kinds of fleet."""


class Mode:
    """TRANSPILER: parameter servers through DistributeTranspiler; PSLIB: Baidu's pslib (not in
    pe); COLLECTIVE: every worker holds the parameters and the gradients are summed."""

    TRANSPILER = 1
    PSLIB = 2
    COLLECTIVE = 3

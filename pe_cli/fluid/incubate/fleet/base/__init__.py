"""``paddle.fluid.incubate.fleet.base``: role makers and the fleet's base class."""

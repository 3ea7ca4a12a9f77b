"""``paddle.fluid.incubate.fleet.parameter_server``: the parameter-server fleet
(``distribute_transpiler``), over pe's DistributeTranspiler in pserver mode."""

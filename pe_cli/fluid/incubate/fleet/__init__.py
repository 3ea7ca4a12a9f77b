"""``paddle.fluid.incubate.fleet``: role makers (``base.role_maker``), the collective fleet
(``collective``) and the parameter-server fleet (``parameter_server.distribute_transpiler``)."""

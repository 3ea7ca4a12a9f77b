"""``paddle.fluid.proto``: Fluid's protobuf message modules, built from pe's own copies of their
schemas (pe_cli/io/fluid_proto.py, fluid_profile.py) with the protobuf package pe depends on."""

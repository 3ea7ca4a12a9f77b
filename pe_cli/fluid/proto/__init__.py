"""``paddle.fluid.proto``: Fluid's protobuf message modules, built from pe's own copies of their
schemas (pe_cli/base/fluid_proto.py, fluid_profile.py) with the protobuf package pe depends on.
``from paddle.fluid.proto import framework_pb2`` (or Paddle 2.6's ``paddle.base.proto``) finds
framework_messages under Fluid's name (a module name of pe never ends in a digit)."""

from . import framework_messages as framework_pb2  # noqa: F401

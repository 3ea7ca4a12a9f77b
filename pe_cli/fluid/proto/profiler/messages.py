"""``paddle.fluid.proto.profiler.profiler_pb2`` (``pe fluid`` maps that name here): the ``Profile``
and ``Event`` messages of Fluid 1.8's platform/profiler.proto, which ``fluid.profiler`` writes
(pe_cli/io/fluid_profile.py)."""

from ....io.fluid_profile import messages

globals().update(messages())

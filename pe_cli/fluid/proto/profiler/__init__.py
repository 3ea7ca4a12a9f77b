"""``paddle.fluid.proto.profiler``: Fluid's profile message module (profiler_pb2, here messages.py)."""

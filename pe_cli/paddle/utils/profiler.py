"""``paddle.utils.profiler``: empty in Fluid 1.8.5 (its profiler is ``paddle.fluid.profiler``)."""

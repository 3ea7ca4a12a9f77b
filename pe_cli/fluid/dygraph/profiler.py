"""``paddle.fluid.dygraph.profiler``: start_gperf_profiler / stop_gperf_profiler, gperftools profiling of
dygraph runs. pe runs static graphs: each name of dygraph mode says so in one line."""

from ..unsupported import DYGRAPH, refuse

refuse(globals(), "paddle.fluid.dygraph.profiler", ["start_gperf_profiler", "stop_gperf_profiler"], DYGRAPH)

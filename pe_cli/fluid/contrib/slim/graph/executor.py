"""``paddle.fluid.contrib.slim.graph.executor``: SlimGraphExecutor, which runs a GraphWrapper (its
compiled graph where it has one) on a batch, as Fluid 1.8.5's: ``data`` a list of sample tuples fed to
the graph's in_nodes in order (or already a feed dict in a list); the out_nodes' values come back."""

from .... import executor
from ....data_feeder import DataFeeder
from .graph_wrapper import GraphWrapper

__all__ = ["SlimGraphExecutor"]


class SlimGraphExecutor:
    def __init__(self, place):
        self.exe = executor.Executor(place)
        self.place = place

    def run(self, graph, scope, data=None):
        assert isinstance(graph, GraphWrapper)
        feed = None
        if data is not None and isinstance(data[0], dict):
            feed = data
        elif data is not None:
            feed = DataFeeder(feed_list=list(graph.in_nodes.values()), place=self.place, program=graph.program).feed(
                data
            )
        program = graph.compiled_graph if graph.compiled_graph else graph.program
        return self.exe.run(program, scope=scope, fetch_list=list(graph.out_nodes.values()), feed=feed)

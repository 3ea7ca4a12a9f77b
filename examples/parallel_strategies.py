"""BuildStrategy and ExecutionStrategy (the Parallel Executor guide): the size of the thread pool,
AllReduce or Reduce for the gradients, how the loss gradient is scaled, and a drawing of the SSA graph.
Both strategies train the same model to the same numbers.

    CPU_NUM=2 python examples/parallel_strategies.py [--graph ssa]     # writes ssa_multi_devices_graph
"""

import argparse
import os
import tempfile

import numpy

import pe_cli.fluid as fluid

os.environ.setdefault("CPU_NUM", str(2))
parser = argparse.ArgumentParser()
parser.add_argument(
    "--graph",
    default=os.path.join(tempfile.gettempdir(), "pe_parallel_ssa"),
    help="where to write the SSA graph (DOT): a prefix, as Fluid's debug_graphviz_path",
)
args = parser.parse_args()


def train(reduce_strategy, graphviz_path=""):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():  # same names in both runs
        image = fluid.layers.data(name="image", shape=[16])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        hidden = fluid.layers.fc(input=image, size=32, act="relu")
        logits = fluid.layers.fc(input=hidden, size=4)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)

    dev_count = len(fluid.cpu_places())
    exec_strategy = fluid.ExecutionStrategy()
    exec_strategy.num_threads = dev_count * 4  # the size of the thread pool
    build_strategy = fluid.BuildStrategy()
    build_strategy.reduce_strategy = reduce_strategy
    build_strategy.gradient_scale_strategy = fluid.BuildStrategy.GradientScaleStrategy.CoeffNumDevice
    build_strategy.memory_optimize = False  # accepted; no effect yet (see docs/PARALLEL.md)
    build_strategy.debug_graphviz_path = graphviz_path
    train_exe = fluid.ParallelExecutor(
        use_cuda=False,
        main_program=main,
        build_strategy=build_strategy,
        exec_strategy=exec_strategy,
        loss_name=loss.name,
        scope=scope,
    )
    rng = numpy.random.default_rng(0)
    feed = {"image": rng.random((64, 16), dtype="float32"), "label": rng.integers(0, 4, (64, 1))}
    for _ in range(20):
        (train_loss,) = train_exe.run(fetch_list=[loss.name], feed=feed)
    return train_loss, {p.name: numpy.array(scope.get_array(p.name)) for p in main.all_parameters()}


all_reduce_loss, all_reduce_params = train(fluid.BuildStrategy.ReduceStrategy.AllReduce, args.graph)
reduce_loss, reduce_params = train(fluid.BuildStrategy.ReduceStrategy.Reduce)
print(f"AllReduce: loss per device {all_reduce_loss}")
print(f"Reduce:    loss per device {reduce_loss}")
for name, value in all_reduce_params.items():
    assert numpy.allclose(reduce_params[name], value, rtol=1e-5, atol=1e-6), name
graph = args.graph + "_multi_devices_graph"  # Fluid's file name after the prefix
with open(graph) as f:
    dot = f.read()
print(f"SSA graph: {graph} ({dot.count('all_reduce')} all-reduce nodes); draw it with dot -Tsvg")

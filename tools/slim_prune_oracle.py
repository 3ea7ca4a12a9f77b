"""Fluid 1.8.5 as the oracle of contrib.slim's SensitivePruneStrategy and AutoPruneStrategy: a small
conv net (x[1, 6, 6] -> conv 4 filters -> conv 4 filters -> fc 2) under the Compressor with the same
starting weights and batch, the metric the mean square of the logits. Recorded in
tests/data/fluid_oracle/slim_prune.json: the sensitivities SensitivePruneStrategy measures (Fluid's
search of the ratios that follows hangs on this net, in its graph walk, so the search is left out:
``_get_best_ratios`` returns ratios of 0), and AutoPruneStrategy's search: its start tokens, each
epoch's reward, the controller's tokens after each update, and the best tokens.
tests/fluid/contrib/test_prune_strategies.py replays it on pe.

    /work/fluid185/bin/python tools/slim_prune_oracle.py      # Python 3.8 with paddlepaddle==1.8.5
"""

import importlib
import json
import os
import sys
import tempfile

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle", "slim_prune.json"
)


def net(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x, y = fluid.layers.data("x", [1, 6, 6]), fluid.layers.data("y", [1], dtype="int64")
        h = fluid.layers.conv2d(x, 4, 3, padding=1, act="relu", param_attr="conv1_weights", bias_attr=False)
        h = fluid.layers.conv2d(h, 4, 3, act="relu", param_attr="conv2_weights", bias_attr=False)
        logits = fluid.layers.fc(h, 2, param_attr="fc_w")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(fluid.layers.softmax(logits), y))
        metric = fluid.layers.reduce_mean(fluid.layers.square(logits))
        test = main.clone(for_test=True)
    return main, startup, test, loss, metric


def compressor(fluid, strategy, epochs):
    """The Compressor of ``net`` with ``strategy``, the weights set, ready to run ``epochs``."""
    rng = np.random.RandomState(0)
    batch = [(rng.uniform(-1, 1, (1, 6, 6)).astype("float32"), np.array([i % 2], "int64")) for i in range(8)]
    main, startup, test, loss, metric = net(fluid)
    scope, place = fluid.Scope(), fluid.CPUPlace()
    fluid.Executor(place).run(startup, scope=scope)
    weights = np.random.RandomState(1)
    for name in ("conv1_weights", "conv2_weights", "fc_w"):
        tensor = scope.find_var(name).get_tensor()
        tensor.set(weights.uniform(-0.5, 0.5, np.array(tensor).shape).astype("float32"), place)
    core = importlib.import_module(fluid.__name__ + ".contrib.slim.core")
    feeds = [("x", "x"), ("y", "y")]
    run = core.Compressor(
        place,
        scope,
        main,
        train_reader=lambda: iter([batch]),
        train_feed_list=feeds,
        train_fetch_list=[("loss", loss.name)],
        eval_program=test,
        eval_reader=lambda: iter([batch]),
        eval_feed_list=feeds,
        eval_fetch_list=[("metric", metric.name)],
        train_optimizer=fluid.optimizer.SGD(0.1),
    )
    run.strategies.append(strategy)
    run.epoch = epochs
    return run


def run_sensitive(fluid, directory):
    prune = importlib.import_module(fluid.__name__ + ".contrib.slim.prune")
    strategy = prune.SensitivePruneStrategy(
        prune.StructurePruner({"*": 0}, {"*": "l1_norm"}),
        delta_rate=0.25,
        target_ratio=0.3,
        metric_name="metric",
        pruned_params="conv.*_weights",
        sensitivities_file=os.path.join(directory, "sensitivities.data"),
    )
    strategy._get_best_ratios = lambda context, sensitivities, ratio: (list(sensitivities), [0.0] * len(sensitivities))
    compressor(fluid, strategy, 1).run()
    found = strategy._load_sensitivities(os.path.join(directory, "sensitivities.data"))
    return {
        name: {"pruned_percent": list(v["pruned_percent"]), "loss": [float(loss) for loss in v["loss"]]}
        for name, v in sorted(found.items())
    }


def run_auto(fluid):
    prune = importlib.import_module(fluid.__name__ + ".contrib.slim.prune")
    searcher = importlib.import_module(fluid.__name__ + ".contrib.slim.searcher")
    np.random.seed(3)
    controller = searcher.SAController(init_temperature=10)
    trace = []
    update = controller.update

    def recorded(tokens, reward):
        update(tokens, reward)
        trace.append({"tokens": list(tokens), "reward": float(reward)})

    controller.update = recorded
    strategy = prune.AutoPruneStrategy(
        prune.StructurePruner({"*": 0}, {"*": "l1_norm"}),
        controller,
        start_epoch=0,
        end_epoch=2,
        min_ratio=0.2,
        max_ratio=0.5,
        metric_name="metric",
        pruned_params="conv.*_weights",
        retrain_epoch=1,
    )
    run = compressor(fluid, strategy, 2)  # end_epoch's branch is left out: Fluid 1.8.5's fails there
    run.run()
    return {
        "init_tokens": list(strategy._range_table),
        "updates": trace,
        "best_tokens": list(controller._best_tokens),
        "next_tokens": list(strategy._current_tokens),
    }


def main():
    import paddle
    import paddle.fluid as fluid

    with tempfile.TemporaryDirectory() as tmp:
        result = {
            "engine": f"paddlepaddle {paddle.__version__}",
            "sensitive": run_sensitive(fluid, tmp),
            "auto": run_auto(fluid),
        }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

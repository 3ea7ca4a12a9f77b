"""contrib.slim's SensitivePruneStrategy and AutoPruneStrategy against Fluid 1.8.5's
(tests/data/fluid_oracle/slim_prune.json, written by tools/slim_prune_oracle.py on paddlepaddle==1.8.5):
the same net, weights and batch under the Compressor. pe measures Fluid's sensitivities and walks
Fluid's search (start tokens from its bisection of the FLOPs, the controller's tokens, the rewards);
and pe's own runs to the end: the sensitive strategy prunes to its FLOPs target, the automatic one
prunes by the best tokens at end_epoch."""

import importlib.util
import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_spec = importlib.util.spec_from_file_location("slim_prune_oracle", os.path.join(ROOT, "tools", "slim_prune_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


@pytest.fixture(scope="module")
def recorded():
    with open(oracle.OUT, encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 1.8.5"
    return data


def test_sensitivities_equal_fluids(recorded, tmp_path):
    mine, theirs = oracle.run_sensitive(fluid, str(tmp_path)), recorded["sensitive"]
    assert sorted(mine) == sorted(theirs)
    for name in theirs:
        assert mine[name]["pruned_percent"] == theirs[name]["pruned_percent"]
        np.testing.assert_allclose(mine[name]["loss"], theirs[name]["loss"], rtol=1e-5, err_msg=name)


def test_auto_prune_search_equals_fluids(recorded):
    mine, theirs = oracle.run_auto(fluid), recorded["auto"]
    assert [u["tokens"] for u in mine["updates"]] == [u["tokens"] for u in theirs["updates"]]
    np.testing.assert_allclose(
        [u["reward"] for u in mine["updates"]], [u["reward"] for u in theirs["updates"]], rtol=1e-5
    )
    for key in ("init_tokens", "best_tokens", "next_tokens"):
        assert mine[key] == theirs[key], key


def test_sensitive_pruning_reaches_its_flops_target(tmp_path):
    prune = fluid.contrib.slim.prune
    strategy = prune.SensitivePruneStrategy(
        prune.StructurePruner({"*": 0}, {"*": "l1_norm"}),
        delta_rate=0.25,
        target_ratio=0.3,
        metric_name="metric",
        pruned_params="conv.*_weights",
        sensitivities_file=str(tmp_path / "sensitivities.data"),
    )
    run = oracle.compressor(fluid, strategy, 2)
    graph = run.eval_graph
    before = graph.flops()
    run.run()
    assert abs(1 - graph.flops() / before - 0.3) < 0.06 and len(run.context.eval_results["metric"]) == 2
    assert graph.var("conv1_weights").shape()[0] == np.array(run.scope.find_var("conv1_weights").get_tensor()).shape[0]


def test_auto_pruning_keeps_the_best_tokens_at_the_end():
    prune, searcher = fluid.contrib.slim.prune, fluid.contrib.slim.searcher
    np.random.seed(3)
    strategy = prune.AutoPruneStrategy(
        prune.StructurePruner({"*": 0}, {"*": "l1_norm"}),
        searcher.SAController(init_temperature=10),
        end_epoch=2,
        min_ratio=0.2,
        max_ratio=0.5,
        metric_name="metric",
        pruned_params="conv.*_weights",
        retrain_epoch=1,
    )
    run = oracle.compressor(fluid, strategy, 3)
    run.run()
    assert strategy._controller._best_tokens == [25, 4]  # 1 of conv1's 4 filters, none of conv2's
    assert np.array(run.scope.find_var("conv1_weights").get_tensor()).shape == (3, 1, 3, 3)
    assert np.array(run.scope.find_var("conv2_weights").get_tensor()).shape == (4, 3, 3, 3)

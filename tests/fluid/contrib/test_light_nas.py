"""contrib.slim's light NAS (pe_cli/fluid/contrib/slim/nas/): the Compressor searches a tiny space with
LightNASStrategy, its SAController served over a local socket by the worker started as server."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.contrib.slim.core import Compressor
from pe_cli.fluid.contrib.slim.nas import ControllerServer, SearchAgent, SearchSpace
from pe_cli.fluid.contrib.slim.searcher import SAController

WIDTHS = [2, 4, 8]
CONFIG = """
controllers:
    sa_controller:
        class: 'SAController'
        init_temperature: 10
strategies:
    light_nas_strategy:
        class: 'LightNASStrategy'
        controller: 'sa_controller'
        target_flops: 60
        end_epoch: 2
        retrain_epoch: 1
        metric_name: 'acc'
        server_ip: '127.0.0.1'
        is_server: 1
        search_steps: 2
compressor:
    epoch: 2
    strategies:
        - light_nas_strategy
"""


class Space(SearchSpace):
    """One token: the hidden width of x[4] -> fc(width, relu) -> fc(2, softmax); Fluid's slim FLOPs of the
    test program are 26, 52 and 104."""

    def __init__(self):
        rng = np.random.RandomState(0)
        self.batch = [(rng.uniform(-1, 1, 4).astype("float32"), np.array([i % 2], "int64")) for i in range(8)]
        self.built = []

    def init_tokens(self):
        return [2]

    def range_table(self):
        return [3]

    def create_net(self, tokens):
        self.built.append(list(tokens))
        train, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(train, startup), fluid.unique_name.guard():
            x, y = fluid.layers.data("x", [4]), fluid.layers.data("y", [1], dtype="int64")
            pred = fluid.layers.fc(fluid.layers.fc(x, WIDTHS[tokens[0]], act="relu"), 2, act="softmax")
            loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, y))
            acc = fluid.layers.accuracy(pred, y)
            test = train.clone(for_test=True)
            fluid.optimizer.SGD(0.1).minimize(loss)
        reader = lambda: iter([self.batch])  # noqa: E731
        return startup, train, test, (loss,), (acc,), reader, reader


def test_light_nas_searches_within_the_flops(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the server's lock file is made in the working directory
    np.random.seed(1)
    (tmp_path / "nas.yaml").write_text(CONFIG)
    space, scope, place = Space(), fluid.Scope(), fluid.CPUPlace()
    startup, train, test, (loss,), (acc,), reader, _ = space.create_net(space.init_tokens())
    fluid.Executor(place).run(startup, scope=scope)
    feeds = [("x", "x"), ("y", "y")]
    compressor = Compressor(
        place,
        scope,
        train,
        train_reader=reader,
        train_feed_list=feeds,
        train_fetch_list=[("loss", loss.name)],
        eval_program=test,
        eval_reader=reader,
        eval_feed_list=feeds,
        eval_fetch_list=[("acc", acc.name)],
        search_space=space,
    )
    compressor.config(str(tmp_path / "nas.yaml"))
    eval_graph = compressor.run()
    strategy = compressor.strategies[0]
    assert strategy._controller._iter == 2 and len(compressor.context.eval_results["acc"]) == 2
    assert space.built[1] == [2] and space.built[2][0] != 2  # 104 FLOPs: over the target, replaced
    assert eval_graph.flops() <= 60 and (tmp_path / "slim_LightNASStrategy_controller_server.socket").exists()


def test_agent_and_server_speak_fluids_protocol():
    controller = SAController(range_table=[4, 4], init_temperature=10)
    controller.reset([4, 4], [0, 0])
    server = ControllerServer(controller=controller, address=("127.0.0.1", 0), search_steps=1, key="k", poll=0.05)
    server.start()
    agent = SearchAgent("127.0.0.1", server.port(), key="k")
    assert len(agent.next_tokens()) == 2
    assert len(agent.update([0, 0], 0.5)) == 2 and controller._max_reward == 0.5
    with pytest.raises(ConnectionError, match="no answer from the controller server"):
        SearchAgent("127.0.0.1", server.port(), key="k", timeout=1).next_tokens()

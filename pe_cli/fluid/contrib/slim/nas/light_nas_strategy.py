"""``paddle.fluid.contrib.slim.nas.light_nas_strategy``: LightNASStrategy, the Compressor strategy of
slim's light architecture search, as Fluid 1.8.5's. At the beginning of the compression the search
space's first tokens go to the controller; the worker started with ``is_server`` serves the controller
(controller_server.py; one server per directory, found through the lock file
``slim_LightNASStrategy_controller_server.socket``), every worker asks it through a SearchAgent. Every
``retrain_epoch`` epochs the network of the current tokens is built by the search space (tokens
whose FLOPs exceed ``target_flops``, or latency ``target_latency``, are replaced, up to 100 tries),
initialized and trained; at the end of those epochs its metric is the reward (0 over the limits) that
gets the next tokens."""

import logging
import socket

from ....executor import Executor
from ....log_helper import get_logger
from ..core.strategy import Strategy
from .controller_server import ControllerServer
from .lock import lock, unlock
from .search_agent import SearchAgent

__all__ = ["LightNASStrategy"]

_logger = get_logger(__name__, logging.INFO, fmt="LightNASStrategy-%(asctime)s-%(levelname)s: %(message)s")
SOCKET_FILE = "./slim_LightNASStrategy_controller_server.socket"


class LightNASStrategy(Strategy):
    def __init__(
        self,
        controller=None,
        end_epoch=1000,
        target_flops=629145600,
        target_latency=0,
        retrain_epoch=1,
        metric_name="top1_acc",
        server_ip=None,
        server_port=0,
        is_server=False,
        max_client_num=100,
        search_steps=None,
        key="light-nas",
    ):
        super().__init__(0, end_epoch)
        self._max_flops, self._max_latency = target_flops, target_latency
        self._metric_name = metric_name
        self._controller = controller
        self._server_ip = server_ip if server_ip is not None else socket.gethostbyname(socket.gethostname())
        self._server_port, self._is_server = server_port, is_server
        self._retrain_epoch, self._search_steps = retrain_epoch, search_steps
        self._max_client_num, self._max_try_times = max_client_num, 100
        self._key = key

    def on_compression_begin(self, context):
        self._current_tokens = context.search_space.init_tokens()
        self._controller.reset(context.search_space.range_table(), self._current_tokens, None)
        if self._is_server:
            open(SOCKET_FILE, "a").close()
            with open(SOCKET_FILE, "r+") as socket_file:
                lock(socket_file)
                if socket_file.readline() == "":
                    _logger.info("start controller server...")
                    self._server = ControllerServer(
                        controller=self._controller,
                        address=(self._server_ip, self._server_port),
                        max_client_num=self._max_client_num,
                        search_steps=self._search_steps,
                        key=self._key,
                    )
                    thread = self._server.start()
                    self._server_port = self._server.port()
                    socket_file.write(thread)
                    _logger.info("started controller server...")
                unlock(socket_file)
        _logger.info("self._server_ip: %s; self._server_port: %s", self._server_ip, self._server_port)
        self._search_agent = SearchAgent(self._server_ip, self._server_port, key=self._key)

    def __getstate__(self):
        """Sockets are not pickled."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_search_agent", "_server")}

    def _searching(self, context, offset):
        return self._retrain_epoch == 0 or (context.epoch_id - self.start_epoch + offset) % self._retrain_epoch == 0

    def _over_limits(self, flops, latency):
        return flops > self._max_flops or (self._max_latency > 0 and latency > self._max_latency)

    def on_epoch_begin(self, context):
        if not (self.start_epoch <= context.epoch_id <= self.end_epoch and self._searching(context, 0)):
            return
        _logger.info("light nas strategy on_epoch_begin")
        min_flops, min_tokens = -1, None
        for _ in range(self._max_try_times):
            startup_p, train_p, test_p, _, _, train_reader, test_reader = context.search_space.create_net(
                self._current_tokens
            )
            context.eval_graph.program = test_p
            flops = context.eval_graph.flops()
            if min_flops == -1:
                min_flops, min_tokens = flops, self._current_tokens[:]
            elif flops < min_flops:
                min_tokens = self._current_tokens[:]
            latency = context.search_space.get_model_latency(test_p) if self._max_latency > 0 else None
            _logger.info(
                "try [%s] with %sflops %s",
                self._current_tokens,
                "" if latency is None else f"latency {latency} ",
                flops,
            )
            if not self._over_limits(flops, latency):
                break
            self._current_tokens = self._controller.next_tokens(min_tokens)
        context.train_reader, context.eval_reader = train_reader, test_reader
        Executor(context.place).run(startup_p, scope=context.scope)
        context.optimize_graph.program = train_p
        context.optimize_graph.compile()
        context.skip_training = self._retrain_epoch == 0

    def on_epoch_end(self, context):
        if not (self.start_epoch <= context.epoch_id < self.end_epoch and self._searching(context, 1)):
            return
        reward = context.eval_results[self._metric_name][-1]
        flops = context.eval_graph.flops()
        latency = None
        if self._max_latency > 0:
            latency = context.search_space.get_model_latency(context.search_space.create_net(self._current_tokens)[2])
        if self._over_limits(flops, latency if latency is not None else 0):
            reward = 0.0
        _logger.info(
            "reward: %s; %sflops: %s; tokens: %s",
            reward,
            "" if latency is None else f"latency: {latency}; ",
            flops,
            self._current_tokens,
        )
        self._current_reward = reward
        self._current_tokens = self._search_agent.update(self._current_tokens, reward)

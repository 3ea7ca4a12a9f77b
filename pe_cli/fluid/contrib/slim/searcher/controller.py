"""``paddle.fluid.contrib.slim.searcher.controller``: EvolutionaryController (the interface) and
SAController, simulated annealing over tokens (one integer per position, position i in
[0, range_table[i])): ``next_tokens()`` changes one random position; ``update(tokens, reward)`` keeps
tokens that score better, or worse ones with probability exp(delta / T), T = init_temperature *
reduce_rate^iteration, and remembers the best; ``constrain_func`` rejects tokens (up to
``max_iter_number`` redraws)."""

import copy  # noqa: F401 -- Fluid's module has these names
import logging
import math

import numpy as np

from ....log_helper import get_logger

__all__ = ["EvolutionaryController", "SAController"]
_logger = get_logger(__name__, logging.INFO, fmt="%(asctime)s-%(levelname)s: %(message)s")


class EvolutionaryController:
    def __init__(self, *args, **kwargs):
        pass

    def update(self, tokens, reward):
        raise NotImplementedError("Abstract method.")

    def reset(self, range_table, constrain_func=None):
        raise NotImplementedError("Abstract method.")

    def next_tokens(self):
        raise NotImplementedError("Abstract method.")


class SAController(EvolutionaryController):
    def __init__(self, range_table=None, reduce_rate=0.85, init_temperature=1024, max_iter_number=300):
        super().__init__()
        self._range_table, self._reduce_rate = range_table, reduce_rate
        self._init_temperature, self._max_iter_number = init_temperature, max_iter_number
        self._reward, self._tokens, self._max_reward, self._best_tokens, self._iter = -1, None, -1, None, 0
        self._constrain_func = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_constrain_func"}

    def reset(self, range_table, init_tokens, constrain_func=None):
        self._range_table, self._constrain_func, self._tokens, self._iter = range_table, constrain_func, init_tokens, 0

    def update(self, tokens, reward):
        self._iter += 1
        temperature = self._init_temperature * self._reduce_rate**self._iter
        if reward > self._reward or np.random.random() <= math.exp((reward - self._reward) / temperature):
            self._reward, self._tokens = reward, tokens
        if reward > self._max_reward:
            self._max_reward, self._best_tokens = reward, tokens
        _logger.info(f"iter: {self._iter}; max_reward: {self._max_reward}; best_tokens: {self._best_tokens}")
        _logger.info(f"current_reward: {self._reward}; current tokens: {self._tokens}")

    def next_tokens(self, control_token=None):
        tokens = control_token[:] if control_token else self._tokens
        new = tokens[:]
        index = int(len(self._range_table) * np.random.random())
        new[index] = (new[index] + np.random.randint(self._range_table[index] - 1) + 1) % self._range_table[index]
        _logger.info(f"change index[{index}] from {tokens[index]} to {new[index]}")
        if self._constrain_func is None:
            return new
        for _ in range(self._max_iter_number):
            if self._constrain_func(new):
                break
            index = int(len(self._range_table) * np.random.random())
            new = tokens[:]
            new[index] = np.random.randint(self._range_table[index])
        return new

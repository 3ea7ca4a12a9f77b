"""The process's default random generator, Paddle 2.x's ``default_cpu_generator()``: one ``Generator``
object holding Paddle's engine (``std::mt19937_64``, kernels/cpu/mersenne_twister.py) and the seed it was
started from. ``paddle.seed(n)`` restarts it as Paddle does (through ``std::seed_seq{n}``); until then it
starts from fresh entropy, as Paddle's from ``std::random_device``.

Two kinds of op draw from it. In a program that follows Paddle 2.6, a random op whose kernel draws
Paddle's stream (trait ``paddle_engine``) with ``seed`` 0 draws from the engine itself, each run
advancing it, so that ``paddle.seed(n)`` gives Paddle's values (executor/plan.py). Every other random
op with neither a seed of its own nor its program's ``random_seed`` takes its numpy stream's seed from
the generator's numpy seeder when an executor resolves the op: the same after the same ``paddle.seed``."""

import threading

import numpy as np

from ..kernels.cpu.mersenne_twister import Mt19937_64


class Generator:
    """Paddle's generator: its engine, the seed it started from, and pe's seeder of numpy streams
    (None until seeded: fresh entropy per stream)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.current_seed = int(np.random.SeedSequence().entropy) & ((1 << 53) - 1)
        self.engine = Mt19937_64.from_seed_seq(self.current_seed)
        self._seeder = None

    def manual_seed(self, seed):
        """Restarts the engine at ``seed`` (modulo 2**64) and the seeder."""
        seed = int(seed) % (1 << 64)
        with self._lock:
            self.current_seed = seed
            self.engine = Mt19937_64.from_seed_seq(seed)
            self._seeder = np.random.default_rng(seed)
        return self

    def initial_seed(self):
        return self.current_seed

    def draw(self):
        """The seed of one unseeded numpy stream: the seeder's next number once seeded, else None."""
        with self._lock:
            return None if self._seeder is None else int(self._seeder.integers(1 << 63))

    def get_state(self):
        with self._lock:
            seeder = None if self._seeder is None else self._seeder.bit_generator.state
            return GeneratorState(self.current_seed, self.engine.copy(), seeder)

    def set_state(self, state):
        if not isinstance(state, GeneratorState):
            raise TypeError(f"expected a GeneratorState from get_rng_state, got {type(state).__name__}")
        with self._lock:
            self.current_seed, self.engine = state.current_seed, state.engine.copy()
            self._seeder = None
            if state.seeder is not None:
                self._seeder = np.random.default_rng()
                self._seeder.bit_generator.state = state.seeder


class GeneratorState:
    """The generator's state at one moment (Paddle's core.GeneratorState): its seed, a copy of its
    engine, and its numpy seeder's state (None: unseeded)."""

    def __init__(self, current_seed, engine, seeder):
        self.current_seed, self.engine, self.seeder = current_seed, engine, seeder

    def __repr__(self):
        return f"GeneratorState(current_seed={self.current_seed})"


_DEFAULT = Generator()


def default_cpu_generator():
    """The process's one default Generator."""
    return _DEFAULT


def manual_seed(seed):
    return _DEFAULT.manual_seed(seed)


def draw():
    return _DEFAULT.draw()


def get_state():
    return _DEFAULT.get_state()


def set_state(state):
    _DEFAULT.set_state(state)

"""The process's default random generator, Paddle 2.x's ``default_cpu_generator``: a random op that
has neither a seed of its own nor its program's ``random_seed`` takes its stream's seed from it when
an executor resolves the op, so that ``paddle.seed(n)`` makes two programs built and run after it
draw the same values (the same initial weights), as in Paddle 2.6. Until something seeds it, such an
op takes fresh entropy, as Fluid 1.8's ``std::random_device`` (executor/plan.py ``rng_seed``)."""

import numpy as np

_generator = None


def manual_seed(seed):
    """Restarts the generator at ``seed`` (any int; Paddle takes negative ones too)."""
    global _generator
    _generator = np.random.default_rng(int(seed) % (1 << 64))


def draw():
    """The seed of one unseeded random op's stream: the generator's next number once seeded, else
    None (fresh entropy)."""
    return None if _generator is None else int(_generator.integers(1 << 63))


class GeneratorState:
    """The generator's state at one moment (Paddle's core.GeneratorState): unseeded, or its numpy state."""

    def __init__(self, state):
        self._state = state

    def __repr__(self):
        return "GeneratorState(unseeded)" if self._state is None else f"GeneratorState({self._state['state']['state']})"


def get_state():
    """The generator's state now: set_state(it) makes the next draws repeat those that follow now."""
    return GeneratorState(None if _generator is None else _generator.bit_generator.state)


def set_state(state):
    """Puts the generator back to ``state`` (a GeneratorState from get_state)."""
    global _generator
    if not isinstance(state, GeneratorState):
        raise TypeError(f"expected a GeneratorState from get_rng_state, got {type(state).__name__}")
    if state._state is None:
        _generator = None
        return
    _generator = np.random.default_rng()
    _generator.bit_generator.state = state._state

"""Fluid-style unique names: ``fc_0``, ``fc_1``; ``guard()`` starts a fresh namespace."""
import contextlib
from collections import defaultdict


class UniqueNameGenerator:
    def __init__(self, prefix=""):
        self.prefix = prefix
        self.counts = defaultdict(int)

    def __call__(self, key):
        n = self.counts[key]
        self.counts[key] += 1
        return f"{self.prefix}{key}_{n}"


_generator = UniqueNameGenerator()


def generate(key):
    return _generator(key)


def switch(new_generator=None):
    global _generator
    old, _generator = _generator, new_generator or UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)

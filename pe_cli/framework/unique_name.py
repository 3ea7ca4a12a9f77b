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


_para_name_checker = None  # Fluid's dygraph parameter-name checker: kept and handed back, unused here


def switch(new_generator=None, new_para_name_checker=None):
    """Starts a new namespace (``new_generator``, or a fresh one); returns the previous
    (generator, parameter-name checker) pair, as Fluid 1.8 does. Passing that pair's generator back
    (or the pair itself, as ``switch(*old)``) restores it."""
    global _generator, _para_name_checker
    if isinstance(new_generator, tuple):
        new_generator, new_para_name_checker = new_generator
    old = (_generator, _para_name_checker)
    _generator = new_generator or UniqueNameGenerator()
    _para_name_checker = new_para_name_checker
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(*old)

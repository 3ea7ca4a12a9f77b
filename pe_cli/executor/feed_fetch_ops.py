"""A program that holds Fluid's ``feed``/``fetch`` ops (a ``__model__`` read as it is, a program that
prepends them itself) runs as Fluid's Executor runs it: its leading feed ops name the feeds the run
must give, every one (``has_feed_operators``), and its fetch ops the fetch list, in their ``col``
order (``has_fetch_operators``); a mismatch is Fluid's error. The run then executes the program
without them (cached per program version): the feeds are its inputs and the fetches its outputs."""

import weakref

from ..base.errors import PeError
from ..ops import registry

_WITHOUT = weakref.WeakKeyDictionary()  # program -> (its version, the program without feed/fetch ops)
_HOLDS = weakref.WeakKeyDictionary()  # program -> (its version, whether it holds feed or fetch ops)


def _is_feed(op):
    return registry.get(op.type).has("feeds_the_run")


def _is_fetch(op):
    return registry.get(op.type).has("fetches_the_run")


def holds_feed_fetch_ops(program):
    """Whether ``program`` holds feed or fetch ops, looked up once per program version (a scan of every op
    took 72 us of each run of a 173-op Transformer step)."""
    cached = _HOLDS.get(program)
    if cached is None or cached[0] != program._version:
        cached = _HOLDS[program] = (
            program._version,
            any(_is_feed(op) or _is_fetch(op) for op in program.global_block().ops),
        )
    return cached[1]


def _check_feeds(block, feed, feed_var_name):
    count = 0
    for op in block.ops:
        if not _is_feed(op):
            break
        count += 1
        if op.input("X")[0] != feed_var_name:
            raise PeError(
                f"Executor.run: the program's feed op reads '{op.input('X')[0]}', the run's feed holder is "
                f"'{feed_var_name}'"
            )
        if op.output("Out")[0] not in feed:
            raise PeError(f"'feed_targets' does not have {op.output('Out')[0]} variable")
    if count and count != len(feed):
        raise PeError("Feed operators in program desc do not match 'feed_targets'")


def _check_fetches(block, fetch_list, fetch_var_name):
    names = [f if isinstance(f, str) else f.name for f in fetch_list]
    count = 0
    for op in block.ops:
        if not _is_fetch(op):
            continue
        count += 1
        target = op.input("X")[0]
        if op.output("Out")[0] != fetch_var_name:
            raise PeError(
                f"Executor.run: the program's fetch op writes '{op.output('Out')[0]}', the run's fetch "
                f"holder is '{fetch_var_name}'"
            )
        if target not in names:
            raise PeError(f"'fetch_targets' does not have {target} variable")
        col = int(op.attrs.get("col", 0))
        if col >= len(names) or names[col] != target:
            raise PeError(
                f"the program fetches '{target}' at col {col}; the fetch list has "
                f"{names[col] if col < len(names) else 'nothing'} there"
            )
    if count and count != len(names):
        raise PeError("Fetch operators in program desc do not match 'fetch_targets'")


def without_feed_fetch_ops(program, feed, fetch_list, feed_var_name="feed", fetch_var_name="fetch"):
    """``program`` checked against the run's feeds and fetch list, without its feed and fetch ops."""
    block = program.global_block()
    _check_feeds(block, feed or {}, feed_var_name)
    _check_fetches(block, fetch_list or [], fetch_var_name)
    cached = _WITHOUT.get(program)
    if cached is None or cached[0] != program._version:
        stripped = program.clone()
        ops = stripped.global_block().ops
        for i in reversed(range(len(ops))):
            if _is_feed(ops[i]) or _is_fetch(ops[i]):
                stripped.global_block()._remove_op(i)
        cached = _WITHOUT[program] = (program._version, stripped)
    return cached[1]

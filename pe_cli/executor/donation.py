"""Which arrays a run may write in place (issue 95 item 3: explicit state, no reference counts).

Two kinds of step write over an input's array instead of a new one: an update (trait
``updates_in_place``: sgd, momentum, adam, ... write ParamOut over Param, ``ctx.update_in_place``) and
an op the enable_inplace pass marked (``ctx.inplace``: its output over a dead input). What a user
relies on: **an array someone else holds is never changed behind their back**. Who else may hold an
array a run is about to write is known, not counted:

- the plan: an update may write only a name *donated* to the run (``Values.donated``): read from
  the scope and written back there at the end (a persistable the block updates), not fed (a feed is
  the caller's array), not a view of another array, and not *lent*;
- the scope: a variable's tensor is lent (``LoDTensor._lent``) from the moment pe hands its array
  out without a copy (``numpy.asarray(tensor)``, ``Scope.get_array``, a LoDTensor built around a
  caller's array, ``set_array`` of an array the caller keeps) until a run writes back a new array
  of pe's own; executors read the scope with ``Scope.held_array`` / the tensor itself, which lend
  nothing, and fetches hand out copies;
- the run: a step whose inputs or outputs hold a name another step may write in place (``watch``,
  decided once per plan by ``watch_names``) checks whether it made an output share that name's memory
  (an alias or a view, as a reshape's or a passed-through gradient's Meta decides); such names are
  ``Values.shared`` for the rest of the run and go back to the scope lent;
- the executor: another executor running on the same scope at once (Hogwild's threads), a NaN check
  (a failed one leaves the scope as the run found it, dense updates only, as before), or a device
  reading another device's array without the graph ordering its update after every reader: no
  donation (device_scopes.DeviceScopes.donations).
"""

from ..ops import registry


def in_place_names(ops):
    """The names an op of ``ops`` may write in place: those its updates write over their inputs
    (ParamOut = Param) and the input the ops declared in-place (``OpDef.inplace``) may write over."""
    names = set()
    for op in ops:
        opdef = registry.get(op.type)
        if opdef.has("updates_in_place"):
            names.update(n for n in op.input_arg_names if n in op.output_arg_names)
        if opdef.inplace:
            names.update(op.inputs.get(opdef.inplace[1], ()))
    return frozenset(names)


def watch_names(steps, names):
    """Sets each step's ``watch``: whether one of its inputs or outputs is among ``names`` (written
    in place by some step), other than the names the step itself updates in place."""
    for step in steps:
        if not hasattr(step, "op"):
            continue
        own = set(step.updates)
        step.watch = any(n in names and n not in own for n in (*step.op.input_arg_names, *step.op.output_arg_names))


def _owner(array):
    base = getattr(array, "base", None)
    return array if base is None else base


def _arrays(pairs):
    for slot_names, value in pairs:
        if type(value) is list:
            yield from zip(slot_names, value)
        elif value is not None:
            yield slot_names[0], value


def note_aliases(step, ins, outs, values):
    """After a watched step: the names whose memory an output now shares with an input (an alias or a
    view) go to ``values.shared``, so that no later step of the run writes over them."""
    shared = getattr(values, "shared", None)
    if shared is None:
        return
    # (the dead input an enable_inplace step wrote over shares its memory with no one else: no mark)
    dead = step.inplace if step.inplace not in shared else None
    inputs = [
        (n, a, _owner(a)) for n, a in _arrays((names, ins.get(slot)) for slot, names, _ in step.inputs) if n != dead
    ]
    for name, out in _arrays((names, outs.get(slot)) for slot, names, _ in step.outputs):
        owner = _owner(out)
        for in_name, array, in_owner in inputs:
            if in_name != name and (out is array or owner is in_owner):
                shared.add(in_name)
                shared.add(name)


def may_update(values, names):
    """Whether an update may write the arrays of ``names`` in place: each was donated to the run and
    no other name of it shares its memory."""
    donated = getattr(values, "donated", None)
    if not donated:
        return False
    shared = values.shared
    for n in names:
        if n not in donated or n in shared:
            return False
    return True


def may_overwrite(values, name):
    """Whether a step the enable_inplace pass marked may write its output over ``name``'s array: a
    value the run made (the pass saw it dead afterwards, not fed, fetched, persistable or read from a
    scope) that is no view, no buffer a planned step keeps and shares no memory with another name."""
    shared = getattr(values, "shared", None)
    if shared is None or name in shared or name in values.kept:
        return False
    array = values.get(name)
    return array is not None and getattr(array, "base", None) is None

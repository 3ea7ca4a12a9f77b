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


def in_place_names(ops, inplace_inputs=False):
    """The names an op of ``ops`` may write in place: those its updates write over their inputs
    (ParamOut = Param) and, with ``inplace_inputs`` (the enable_inplace pass may mark steps), the
    input each op declared in-place (``OpDef.inplace``) may write over."""
    names = set()
    for op in ops:
        opdef = registry.get(op.type)
        if opdef.has("updates_in_place"):
            names.update(n for n in op.input_arg_names if n in op.output_arg_names)
        if inplace_inputs and opdef.inplace:
            names.update(op.inputs.get(opdef.inplace[1], ()))
    return frozenset(names)


def watch_names(steps, names):
    """Sets each step's ``watch``: what of it holds a name among ``names`` (written in place by some
    step), other than the names the step itself updates in place: ((slot, index, name) of each such
    input, whether such a name is among its outputs); () where none is."""
    for step in steps:
        if not hasattr(step, "op"):
            continue
        own = step.updates
        ins = tuple(
            (slot, i if dup else None, n)
            for slot, slot_names, dup in step.inputs
            for i, n in enumerate(slot_names)
            if n in names and n not in own
        )
        out = any(n in names and n not in own for _, slot_names, _ in step.outputs for n in slot_names)
        step.watch = (ins, out) if ins or out else ()


def _owner(array):
    base = getattr(array, "base", None)
    return array if base is None else base


def note_aliases(step, ins, outs, values):
    """After a watched step: the names whose memory an output now shares with an input (an alias or a
    view: a reshape's Meta, a passed-through gradient) go to ``values.shared``, so that no later step of
    the run writes over them."""
    watched, watched_out = step.watch
    if not watched_out:  # (the common case, a parameter's reader: a pass over its outputs, no names)
        for slot, i, _ in watched:
            array = ins.get(slot)
            if i is not None and array is not None:
                array = array[i]
            if array is None:
                continue
            owner = _owner(array)
            for out in outs.values():
                if type(out) is list:
                    if any(o is not None and _owner(o) is owner for o in out):
                        break
                elif out is not None and _owner(out) is owner:
                    break
            else:
                continue
            break
        else:
            return
    shared = getattr(values, "shared", None)
    if shared is not None:
        _mark_shared(step, ins, outs, shared)


def _mark_shared(step, ins, outs, shared):
    """Marks every (input, output) pair of the step that shares memory (outputs of watched names, or
    over watched inputs)."""
    dead = step.inplace if step.inplace not in shared else None  # (the dead input it wrote over: shared by none)
    pairs = [
        (n, _owner(a))
        for slot, names, dup in step.inputs
        for n, a in (zip(names, ins.get(slot) or ()) if dup else [(names[0], ins.get(slot))])
        if a is not None and n != dead
    ]
    for slot, names, dup in step.outputs:
        value = outs.get(slot)
        if value is None:
            continue
        for name, out in zip(names, value) if dup else [(names[0], value)]:
            if out is None:
                continue
            owner = _owner(out)
            for in_name, in_owner in pairs:
                if in_name != name and owner is in_owner:
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

"""Channels-last images for kernels written channels first. An op registered with
``channels_last=(slots)`` (pe_cli/ops/registry.py) runs, when its ``data_format`` (or ``data_layout``,
group_norm's) is NHWC (NDHWC),
the same NCHW kernel on its data: the listed input slots are transposed to channels first before the
call and the listed output slots back after it, with the device's own transpose kernel. Slots not
listed (a filter, which Fluid keeps [M, C/groups, kh, kw] in both layouts) pass as they are. This
costs a copy of the image each way; it buys every NCHW kernel, on every device, the layout Paddle's
NHWC models are saved in, with one rule in one place.

In the same way an op registered with ``last_axis=(slots)`` runs its kernel, written for the last
axis, along the axis its attribute ``axis`` names (softmax_with_cross_entropy's): the slots are
transposed to have that axis last around the call."""

import importlib
from .context import wraps

_LAYOUTS = ("NHWC", "NDHWC")


def _to_first(rank):
    return [0, rank - 1] + list(range(1, rank - 1))


def _to_last(rank):
    return [0] + list(range(2, rank)) + [1]


def channels_last(kernel, device, slots):
    """``kernel`` wrapped to take and give channels-last values of ``slots`` (of any rank >= 3) when the
    op's attribute ``data_format`` (``data_layout``) says so; called as it is otherwise."""
    transpose = importlib.import_module(f"pe_cli.kernels.{device}.manipulation").transpose

    def move(value, perm):
        rank = len(value.shape)
        return transpose({"X": value}, {"axis": perm(rank)})["Out"] if rank >= 3 else value

    def run(ins, attrs, *ctx):
        # (no generator: an op's NCHW step pays this check on every call)
        key = "data_format" if attrs.get("data_format") in _LAYOUTS else None
        if key is None and attrs.get("data_layout") in _LAYOUTS:
            key = "data_layout"
        if key is None:
            return kernel(ins, attrs, *ctx)
        first = {k: move(v, _to_first) if k in slots and v is not None else v for k, v in ins.items()}
        outs = kernel(first, dict(attrs, **{key: "NCHW" if attrs[key] == "NHWC" else "NCDHW"}), *ctx)
        return {k: move(v, _to_last) if k in slots and v is not None else v for k, v in outs.items()}

    return wraps(kernel, run)


def along_axis(kernel, device, slots, first=False):
    """``kernel`` (working along the last axis; ``first``: along the first) wrapped to work along
    ``attrs['axis']`` (absent: the axis it works along): the values of ``slots`` (inputs and outputs, of
    one rank) transposed to have that axis last (first) and back."""
    transpose = importlib.import_module(f"pe_cli.kernels.{device}.manipulation").transpose

    def run(ins, attrs, *ctx):
        rank = len(next(ins[k] for k in slots if ins.get(k) is not None).shape)
        home = 0 if first else rank - 1
        axis = attrs.get("axis", home) % rank if rank else home
        if axis == home:
            return kernel(ins, attrs, *ctx)
        others = [i for i in range(rank) if i != axis]
        to_last = [axis] + others if first else others + [axis]
        back = [to_last.index(i) for i in range(rank)]
        moved = {
            k: transpose({"X": v}, {"axis": to_last})["Out"] if k in slots and v is not None else v
            for k, v in ins.items()
        }
        outs = kernel(moved, dict(attrs, axis=0 if first else -1), *ctx)
        return {
            k: transpose({"X": v}, {"axis": back})["Out"] if k in slots and v is not None else v
            for k, v in outs.items()
        }

    return wraps(kernel, run)

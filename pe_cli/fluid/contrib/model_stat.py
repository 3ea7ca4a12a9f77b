"""``paddle.fluid.contrib.model_stat``: ``summary(main_prog)`` prints a table of the program's conv,
depthwise conv, pool, fc (a ``mul`` writing an ``fc`` variable), batch_norm and activation ops with
their input and output shapes (without the batch dimension), parameters and FLOPs, then the totals.
The table is prettytable's where it is installed, else pe's drawing of the same table."""

from collections import OrderedDict

from .. import unsupported

_ACTIVATIONS = ("sigmoid", "tanh", "relu", "leaky_relu", "prelu")


class _Table:
    """prettytable's PrettyTable, as far as summary uses it: right-aligned columns between rules."""

    def __init__(self, field_names):
        self.field_names, self.rows, self.align = list(field_names), [], "r"

    def add_row(self, row):
        self.rows.append([str(v) for v in row])

    def __str__(self):
        cells = [list(map(str, self.field_names))] + self.rows
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.field_names))]
        rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

        def line(r):
            return "|" + "|".join(f" {c:>{w}} " for c, w in zip(r, widths)) + "|"

        return "\n".join([rule, line(cells[0]), rule] + [line(r) for r in self.rows] + [rule])


_prettytable = unsupported.optional_module("prettytable")
PrettyTable = _Table if isinstance(_prettytable, unsupported.MissingModule) else _prettytable.PrettyTable


def _conv(v, op):
    c_out, c_in, k_h, k_w = v[op.input("Filter")[0]].shape
    _, _, h_out, w_out = v[op.output("Output")[0]].shape
    kernel = k_h * k_w * (c_in / op.attr("groups"))
    bias = 0 if op.input("Bias") == [] else 1
    return (
        v[op.input("Input")[0]].shape,
        v[op.output("Output")[0]].shape,
        c_out * (kernel + bias),
        2 * h_out * w_out * c_out * (kernel + bias),
    )


def _pool(v, op):
    _, c_out, h_out, w_out = v[op.output("Out")[0]].shape
    k = op.attr("ksize")
    return v[op.input("X")[0]].shape, v[op.output("Out")[0]].shape, 0, h_out * w_out * c_out * k[0] * k[1]


def _fc(v, op):
    if "fc" not in op.output("Out")[0]:
        return None
    k_in, k_out = v[op.input("Y")[0]].shape
    return v[op.input("X")[0]].shape, v[op.output("Out")[0]].shape, k_in * k_out + 1, k_in * k_out


def _activation(v, op):
    shape = v[op.input("X")[0]].shape
    flops = 1
    for d in shape:
        flops *= d
    return shape, v[op.output("Out")[0]].shape, 1 if op.type == "prelu" else 0, flops


def _batch_norm(v, op):
    _, c_in, h, w = v[op.input("X")[0]].shape
    return v[op.input("X")[0]].shape, v[op.output("Y")[0]].shape, c_in * 2, h * w * c_in * 2


_COUNTERS = {
    "conv2d": _conv,
    "depthwise_conv2d": _conv,
    "pool2d": _pool,
    "mul": _fc,
    "batch_norm": _batch_norm,
    **{a: _activation for a in _ACTIVATIONS},
}


def _summary_model(block_vars, one_op):
    """(input shape, output shape, parameters, FLOPs) of an op summary counts, else None."""
    counter = _COUNTERS.get(one_op.type)
    return counter(block_vars, one_op) if counter else None


def summary(main_prog):
    """Prints the table of the program's counted ops and the total parameters and FLOPs."""
    rows = []
    for block in main_prog.blocks:
        for op in block.ops:
            counted = _summary_model(block.vars, op)
            if counted is not None:
                rows.append(
                    OrderedDict(
                        type=op.type,
                        input_shape=tuple(counted[0][1:]),
                        out_shape=tuple(counted[1][1:]),
                        PARAMs=counted[2],
                        FLOPs=counted[3],
                    )
                )
    table = PrettyTable(["No.", "TYPE", "INPUT", "OUTPUT", "PARAMs", "FLOPs"])
    table.align = "r"
    for i, r in enumerate(rows):
        table.add_row([i, r["type"], r["input_shape"], r["out_shape"], int(r["PARAMs"]), int(r["FLOPs"])])
    params, flops = sum(int(r["PARAMs"]) for r in rows), sum(int(r["FLOPs"]) for r in rows)
    print(table)
    print(f"Total PARAMs: {params}({params / 10**6:.4f}M)")
    print(f"Total FLOPs: {flops}({flops / 10**9:.2f}G)")
    print(
        "Notice: \n now supported ops include [Conv, DepthwiseConv, FC(mul), BatchNorm, Pool, "
        "Activation(sigmoid, tanh, relu, leaky_relu, prelu)]"
    )

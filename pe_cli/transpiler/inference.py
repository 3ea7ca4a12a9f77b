"""``fluid.InferenceTranspiler`` (Fluid 1.x ``paddle.fluid.transpiler``): folds each batch_norm that
follows a conv2d into the conv's filter and a bias add, for a faster inference program.

    conv2d -> batch_norm                  becomes  conv2d -> elementwise_add (a new bias)
    conv2d -> elementwise_add -> batch_norm  becomes  conv2d -> elementwise_add (the bias refolded)

with W' = W * scale / sqrt(var + eps) per output channel and b' = (b - mean) * scale / sqrt(var + eps)
+ shift. The folded parameters are new variables (``<name>_fuse_bn``) in the program and the scope, so
the original program and parameters stay as they were; ops that read the batch_norm's output read the
bias add's instead. As Fluid's, it looks at a conv2d's next ops in block order (a chain, not a
branch), folds only batch_norm in test mode statistics (its running mean and variance), and leaves
fc and everything else alone. Fluid's code takes eps as 1e-5 whatever the op says; pe uses the
batch_norm's own ``epsilon`` (the same by default). The MKLDNN relu fusion has nothing to do in pe."""

import numpy as np

from ..base.errors import PeError
from ..framework import Program


class InferenceTranspiler:
    def transpile(self, program, place, scope):
        """Folds the program's conv2d + batch_norm pairs in place (clone the program first to keep it),
        reading and writing parameters in ``scope`` (the Fluid face passes the global scope when none
        is given)."""
        if not isinstance(program, Program):
            raise TypeError("program should be as Program type")
        self.scope = scope
        self.place = place
        block = program.global_block()
        renamed = {}
        i = 0
        while i < len(block.ops) - 1:
            op, nxt = block.ops[i], block.ops[i + 1]
            if op.type == "conv2d" and nxt.type == "batch_norm":
                bias_op = block._insert_op(
                    i + 1,
                    "elementwise_add",
                    {"X": op.output("Output"), "Y": nxt.input("Bias")},
                    {"Out": nxt.output("Y")},
                    {"axis": 3 if op.attrs.get("data_format") == "NHWC" else 1},
                )
                self._fold(block, op, nxt, bias_op, with_bias=False)
                block._remove_op(i + 2)
                i += 1
            elif (
                op.type == "conv2d"
                and nxt.type == "elementwise_add"
                and i + 2 < len(block.ops)
                and block.ops[i + 2].type == "batch_norm"
            ):
                bn = block.ops[i + 2]
                self._fold(block, op, bn, nxt, with_bias=True)
                renamed[bn.output("Y")[0]] = nxt.output("Out")[0]
                block._remove_op(i + 2)
                i += 1
            i += 1
        for op in block.ops:
            for old, new in renamed.items():
                op._rename_input(old, new)
        program._bump()
        return program

    def _load(self, name):
        var = self.scope.find_var(name)
        if var is None:
            raise PeError(
                f"InferenceTranspiler: parameter {name!r} has no value in the scope; run the startup "
                f"program (or load the model) into the scope first"
            )
        return np.array(var.get_tensor())

    def _fold(self, block, conv, bn, bias_op, with_bias):
        scale, shift = self._load(bn.input("Scale")[0]), self._load(bn.input("Bias")[0])
        mean, variance = self._load(bn.input("Mean")[0]), self._load(bn.input("Variance")[0])
        weight = self._load(conv.input("Filter")[0])
        factor = (scale / np.sqrt(variance + np.float32(bn.attr("epsilon")))).astype(weight.dtype)
        bias = self._load(bias_op.input("Y")[0]).reshape(-1) if with_bias else np.zeros_like(shift)
        new_bias = ((bias - mean) * factor + shift).astype(weight.dtype)
        new_weight = (weight.reshape(len(factor), -1) * factor[:, None]).reshape(weight.shape)
        self._replace(block, conv, "Filter", new_weight)
        self._replace(block, bias_op, "Y", new_bias)

    def _replace(self, block, op, slot, value):
        old = op.input(slot)[0]
        name = old + "_fuse_bn"
        block.create_parameter(name, list(value.shape), value.dtype.name)
        op._rename_input(old, name)
        self.scope.var(name).get_tensor().set(value, self.place)

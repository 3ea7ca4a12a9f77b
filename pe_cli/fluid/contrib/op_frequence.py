"""Fluid 1.8's ``contrib.op_freq_statistic``: how often each op type, and each pair of op types
(producer -> consumer through a non-parameter variable), occurs in a program's global block.
Fluid 1.8's own code calls ``dict.has_key`` and so fails on Python 3; this is what it means to count."""

from collections import OrderedDict

from ...framework import Program

__all__ = ["op_freq_statistic"]


def op_freq_statistic(program):
    """(uni_op_freq, adj_2_op_freq): lists of (op type, count) and ("producer->consumer", count),
    most frequent first. An op counts once if it writes a variable that is not a parameter."""
    if not isinstance(program, Program):
        raise TypeError(f"The input type should be Porgram.But you passed in {type(program)}")
    parameters = {p.name for p in program.blocks[0].all_parameters()}
    uni, adj, op_in_ops, var_gen_op = OrderedDict(), OrderedDict(), OrderedDict(), {}
    for op in program.global_block().ops:
        if any(name not in parameters for name in op.output_arg_names):
            uni[op.type] = uni.get(op.type, 0) + 1
    for op in program.global_block().ops:
        for name in op.input_arg_names:
            if name not in parameters and name in var_gen_op:
                op_in_ops.setdefault(op.type, []).append(var_gen_op[name][-1])
        for name in op.output_arg_names:
            var_gen_op.setdefault(name, []).append(op.type)
    for op_type, in_ops in op_in_ops.items():
        for in_op in in_ops:
            pair = f"{in_op}->{op_type}"
            adj[pair] = adj.get(pair, 0) + 1
    return (
        sorted(uni.items(), key=lambda item: item[1], reverse=True),
        sorted(adj.items(), key=lambda item: item[1], reverse=True),
    )

"""User functions in QuantizationTransformPass (``weight_quantize_func``, ``act_quantize_func``,
``weight_preprocess_func``, ``act_preprocess_func``), as Fluid 1.8.5 inserts them: the function is
built into a small program of its own (its input a ``data`` variable, its output's mean a loss, and,
in a training graph, ``optimizer_func()``'s minimize of it, so the function's parameters train), that
program's startup runs in the pass's scope, and its graph is copied between the variable and the op
it feeds; the gradient ops are rewired so the op's gradient flows back through the function."""

from .... import core, unique_name
from ....data import data
from ....executor import scope_guard
from ....framework import IrGraph, Program, program_guard
from .... import layers


def _key(node):
    return "".join(n.name() for n in node.inputs) + node.name() + "".join(n.name() for n in node.outputs)


class UserDefinedInsertion:
    """What QuantizationTransformPass does with a user function (uses ``self._scope``, ``_exe``,
    ``_optimizer``, ``create_var_map``, ``create_op_map``)."""

    def _create_new_node(self, graph, in_node):
        """The node of ``graph`` standing for ``in_node`` of the function's graph (made once)."""
        # a control variable's name is its graph's node count, which the next function's graph repeats
        key = in_node.node if in_node.is_ctrl_var() else _key(in_node)
        if key not in self.create_var_map:
            self.create_var_map[key] = (
                graph.create_control_dep_var()
                if in_node.is_ctrl_var()
                else graph.create_var_node_from_desc(in_node.node.var())
            )
        return self.create_var_map[key]

    def _copy_graph(self, graph, source_graph, op_node):
        """Copies ``op_node`` of ``source_graph`` into ``graph`` with its variables, then the ops that
        read its outputs, recursively."""
        key = _key(op_node)
        if key in self.create_op_map:
            return
        new_op = self.create_op_map[key] = graph.create_op_node_from_desc(op_node.node.op())
        for in_node in op_node.inputs:
            graph.link_to(self._create_new_node(graph, in_node), new_op)
        for out_node in op_node.outputs:
            graph.link_to(new_op, self._create_new_node(graph, out_node))
        for var_node in op_node.outputs:
            for next_op in var_node.outputs:
                self._copy_graph(graph, source_graph, next_op)

    def _func_program(self, graph, func, var_node):
        """(program, its input, output and loss variables) of ``func`` applied to ``var_node``'s value."""
        program, startup = Program(), Program()
        with program_guard(program, startup), unique_name.guard(var_node.name() + "_"):
            in_var = data(var_node.name() + "_tmp_input", shape=var_node.shape(), dtype="float32")
            out_var = func(in_var)
            graph.out_node_mapping_table[out_var.name] = var_node.name()
            loss = layers.mean(out_var)  # a minimize needs a loss of shape [1]
            if not graph._for_test:
                assert self._optimizer, "optimizer_func must be set when graph is test graph"
                in_var.stop_gradient = False
                self._optimizer().minimize(loss)
        with scope_guard(self._scope):
            self._exe.run(startup)
        return program, in_var, out_var, loss

    def _insert_func(self, graph, func, var_node, op):
        """Inserts ``func``'s graph between ``var_node`` and ``op``; returns the node ``op`` now reads."""
        program, in_var, out_var, loss = self._func_program(graph, func, var_node)
        tmp_graph = IrGraph(core.Graph(program.desc), for_test=graph._for_test)
        in_node = tmp_graph._find_node_by_name(tmp_graph.all_var_nodes(), in_var.name)
        params = [n for n in tmp_graph.all_var_nodes() if n.inputs == [] and n.persistable()]
        sources = [n for n in tmp_graph.all_op_nodes() if n.inputs == []]
        for node in in_node.outputs:
            self._copy_graph(graph, tmp_graph, node)
        for node in params:
            for op_node in node.outputs:
                self._copy_graph(graph, tmp_graph, op_node)
        for node in sources:
            self._copy_graph(graph, tmp_graph, node)

        target_in = graph._find_node_by_name(graph.all_var_nodes(), in_node.name())
        target_out = graph._find_node_by_name(graph.all_var_nodes(), out_var.name)
        loss_node = graph._find_node_by_name(graph.all_var_nodes(), loss.name)
        for node in target_in.outputs:
            graph.update_input_link(target_in, var_node, node)
        graph.update_input_link(var_node, target_out, op)
        if not graph._for_test:
            self._rewire_grads(graph, var_node, op, target_in, target_out)
        graph.safe_remove_nodes(loss_node.inputs[0])
        graph.safe_remove_nodes(loss_node)
        graph.safe_remove_nodes(target_in)
        return target_out

    def _rewire_grads(self, graph, var_node, op, target_in, target_out):
        """``op``'s gradient op reads the function's output and gives its gradient to the function's
        gradient ops, whose input gradient becomes ``var_node``'s; the loss's gradient ops go."""
        out_grad = graph._find_node_by_name(graph.all_var_nodes(), op.outputs[0].name() + "@GRAD")
        op_grad = out_grad.outputs[0]  # the op's gradient op (conv2d_grad, mul_grad...)
        target_out_grad = graph._find_node_by_name(graph.all_var_nodes(), target_out.name() + "@GRAD")
        in_grad = graph._find_node_by_name(graph.all_var_nodes(), target_in.name() + "@GRAD")
        in_grad_ops = in_grad.inputs
        graph.update_input_link(var_node, target_out, op_grad)
        op_grad_out = None
        for node in op_grad.outputs:
            if var_node.name() + "@GRAD" in node.name():
                op_grad_out = node
        if op_grad_out is not None:
            graph.update_output_link(op_grad_out, target_out_grad, op_grad)
        else:
            graph.link_to(op_grad, target_out_grad)
        for node in in_grad_ops:
            graph.update_input_link(target_in, var_node, node)
            if op_grad_out:
                graph.update_output_link(in_grad, op_grad_out, node)
        mean_grad = target_out_grad.inputs[0]
        mean_out_grad = mean_grad.inputs[0]
        fill_constant = mean_out_grad.inputs[0]
        for node in (mean_grad, mean_out_grad, fill_constant, in_grad):
            graph.safe_remove_nodes(node)

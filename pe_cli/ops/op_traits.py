"""The words ``register`` accepts for what an op type is and does beyond its slots: ``TRAITS`` (facts
other parts ask of an op type instead of naming it) and ``LOD_RULES`` (how its outputs get their LoD at
run time). Import them from define.py."""

# Traits: facts about an op type that code outside the op's own module needs. Ask
# ``registry.get(t).has(trait)`` or ``registry.with_trait(trait)``; never list op types by hand.
TRAITS = {
    "activation": "an elementwise activation usable as a layer's act= (X -> Out)",
    "elementwise": "each output element comes from the input elements at its (broadcast) position, one output "
    "(enable_auto_fusion chains these with the activations)",
    "batch_statistics": "normalizes with statistics of the batch it sees (so each device's part differs)",
    "probabilities": "its Out holds probabilities along its axis (a classifier's output it writes is taken as "
    "the class probabilities by pe predict and the ONNX export, never put through a softmax again)",
    "metric": "computes an evaluation metric (its first output is the metric's value)",
    "selected_rows": "its kernels take a row-sparse input (a SelectedRows gradient) as it is; the "
    "executor densifies one for every other op",
    "reader": "one of a py_reader's ops (its reader variables, read's batch), which Program._inference_optimize "
    "(prune_read_op) removes",
    "force_cpu_given": "its force_cpu attribute, set only when given: inside device_guard, False too warns",
    "fed_outputs": "its outputs come in the run's feeds (a py_reader's read: the executors fill them from the "
    "reader's queue), so a run reads them as it reads its feeds; its kernels write nothing",
    "optional_outputs": "its kernels compute only the optional outputs the op writes: the executor gives them "
    "ctx.outputs, the set of its output slots that name a variable",
    "output_counts": "its kernels are given ctx.output_counts, output slot -> the number of variables it "
    "names (select_output writes one of several)",
    "row_sparse_outputs": "its kernels are given ctx.row_sparse, the output slots whose variables are declared "
    "SELECTED_ROWS (load reads a SelectedRows file into one, as Paddle's load_sr kernel)",
    "paddle2_semantics": "computes otherwise in Paddle 2.x than in Fluid 1.8 for some attributes or values: in a program "
    "that follows Paddle 2.6 (built after paddle.enable_static(), or a model Paddle 2.x saved) "
    "it gets Operator.paddle2 (framework/program_release.mark_paddle2), which its shape inference reads "
    "(ctx.paddle2) and its kernels get as ctx.paddle2, as do its grad ops",
    "scalar_0d_in_paddle2": "a reduction whose result, when no dim is left, is 0-D ([]) where a paddle.* call "
    "of a Paddle 2.x program builds it and [1] otherwise (fluid.layers, Fluid 1.8's "
    "programs): framework/program_release.py sets Operator.zero_dim, which its shape "
    "inference reads and its kernels get as ctx.zero_dim",
    "result_0d_in_paddle2": "an op whose result holds one value with no dim left (a slice that drops every dim, "
    "``x[0, 1]``; numel, dot, trace, accuracy, allclose): 0-D ([]) in a Paddle 2.x program, as Paddle 2.6's, "
    "whichever call built it but a fluid.layers function, and [1] in a Fluid 1.8 program: "
    "framework/program_release.py sets Operator.zero_dim, as for scalar_0d_in_paddle2",
    "paddle_engine": "a random op whose CPU kernel draws Paddle 2.6's values, in a program that follows Paddle "
    "2.6: the executor hands it ctx.rng as the default generator's engine (kernels/cpu/mersenne_twister.py, "
    "executor/plan.paddle_engine), not a numpy Generator; as Paddle's kernels, it draws from an engine of "
    "its own where its attributes give a seed",
    "keeps_unwritten_outputs": "a run may leave its outputs unwritten (conditional_block when Cond fails), so "
    "they keep what they held: a run takes them from the scope where no earlier op "
    "of the block writes them",
    "unset_inputs": "its duplicable inputs may have no value (the output of a branch that did not run, as "
    "select_input's in Fluid's cond): its kernels get None for those",
    "feeds_the_run": "Fluid's feed: its output is one of the run's feeds (the col-th of the feed holder), so a "
    "program holding it names the feeds the run must give (executor/feed_fetch_ops.py)",
    "fetches_the_run": "Fluid's fetch: its input goes to the col-th place of the fetch holder, so a program "
    "holding it names the run's fetch list",
    "updates_in_place": "an update whose outputs are its inputs' variables (ParamOut = Param): given "
    "ctx.update_in_place, which the executor sets where nothing but its values, the "
    "scope that the run writes back to and the op's inputs hold those arrays (for a dense "
    "input: the sequential executor, no NaN check, no other executor on the scope), its "
    "kernels may write them in place (a few rows of a table, or the whole parameter)",
}


# How an op's outputs get their LoD at run time (``register(lod=...)``), as Fluid's ShareLoD and
# the sequence ops' own rules: "keep" (the default): every output whose rows equal the first LoD
# input's rows shares its LoD (elementwise ops, fc, embedding over LoD ids, activations); "drop":
# no output has a LoD (losses, reductions); a function ``lod(in_lods, attrs) -> {out_slot: lod}``:
# computed by the op (sequence_pool drops the last level, sequence_expand takes Y's).
LOD_RULES = ("keep", "drop")

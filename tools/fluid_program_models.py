"""Records, with the Fluid 1.8.5 oracle, tiny inference models whose programs hold Fluid's control flow
as Fluid builds it: StaticRNN (recurrent + rnn_memory_helper), DynamicRNN (lod_rank_table,
lod_tensor_to_array, while, read_from_array / write_to_array, shrink_rnn_memory, array_to_lod_tensor),
a While beam-search decoder (beam_search, beam_search_decode over tensor arrays) and a cond whose
conditional_blocks are conditional_block_infer, as Paddle's inference_op_replace_pass makes them
(paddle/fluid/inference/analysis/passes). Each goes to tests/data/fluid_programs/<name>/: Fluid's ``__model__`` and
``params`` (save_inference_model, combined) and io.json (the feeds with their LoD, and what Fluid
fetched, with its LoD). tests/fluid/test_programs_as_fluid_builds.py loads them on pe.

    /work/fluid185/bin/python tools/fluid_program_models.py [OUT_DIR]

Program structure only: whole-model saves in every format are tools/fluid_saved_models.py's."""

import json
import os
import sys

import numpy as np
import paddle.fluid as fluid
import paddle.fluid.layers as L
from paddle.fluid.proto import framework_pb2

OUT = (
    sys.argv[1]
    if len(sys.argv) > 1
    else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "fluid_programs")
)
DICT, WORD, HIDDEN, BEAM, MAX_LEN, END = 12, 4, 6, 2, 3, 1


def static_rnn():
    x = fluid.data("x", [3, 2, 4], "float32")
    h0 = fluid.data("h0", [2, 5], "float32")
    rnn = L.StaticRNN()
    with rnn.step():
        x_t = rnn.step_input(x)
        h_pre = rnn.memory(init=h0)
        h = L.fc([x_t, h_pre], 5, act="tanh")
        rnn.update_memory(h_pre, h)
        rnn.step_output(h)
    out = rnn()
    rng = np.random.RandomState(1)
    return [out], {"x": (rng.randn(3, 2, 4).astype("float32"), None), "h0": (rng.randn(2, 5).astype("float32"), None)}


def dynamic_rnn():
    x = fluid.data("x", [None, 4], "float32", lod_level=1)
    h0 = fluid.data("h0", [None, 5], "float32")
    drnn = L.DynamicRNN()
    with drnn.block():
        w = drnn.step_input(x)
        m = drnn.memory(init=h0)  # one row per sequence, in the batch's order: reorder_lod_tensor_by_rank
        h = L.fc([w, m], 5, act="tanh")
        drnn.update_memory(m, h)
        drnn.output(h)
    out = drnn()
    last = L.sequence_last_step(out)
    rng = np.random.RandomState(2)
    return [out, last], {
        "x": (rng.randn(7, 4).astype("float32"), [[0, 2, 6, 7]]),
        "h0": (rng.randn(3, 5).astype("float32"), None),
    }


def beam_search():
    """The book's machine translation decoder (Paddle's book/test_machine_translation.py), tiny."""
    src = fluid.data("src_word_id", [None, 1], "int64", lod_level=1)
    table = L.create_parameter([DICT, WORD], "float32", name="words")  # (gather: lookup_table's
    emb = L.lod_reset(L.gather(table, L.squeeze(src, [1])), y=src)  # attributes are another part's)
    context = L.fc(L.sequence_last_step(L.fc(emb, HIDDEN, act="tanh")), HIDDEN, act="tanh")
    counter = L.zeros([1], "int64", force_cpu=True)
    array_len = L.fill_constant([1], "int64", MAX_LEN)
    state_array, ids_array, scores_array = L.create_array("float32"), L.create_array("int64"), L.create_array("float32")
    init_ids = fluid.data("init_ids", [None, 1], "int64", lod_level=2)
    init_scores = fluid.data("init_scores", [None, 1], "float32", lod_level=2)
    L.array_write(context, array=state_array, i=counter)
    L.array_write(init_ids, array=ids_array, i=counter)
    L.array_write(init_scores, array=scores_array, i=counter)
    cond = L.less_than(counter, array_len)
    loop = L.While(cond)
    with loop.block():
        pre_ids = L.array_read(ids_array, counter)
        pre_state = L.array_read(state_array, counter)
        pre_score = L.array_read(scores_array, counter)
        expanded = L.sequence_expand(pre_state, pre_score)
        ids_emb = L.gather(table, L.squeeze(pre_ids, [1]))
        state = L.fc([expanded, ids_emb], HIDDEN, act="tanh")
        state_lod = L.lod_reset(state, y=pre_score)
        score = L.fc(state_lod, DICT, act="softmax")
        topk_scores, topk_ids = L.topk(score, k=BEAM)
        accu = L.elementwise_add(L.log(topk_scores), L.reshape(pre_score, [-1]), axis=0)
        sel_ids, sel_scores = L.beam_search(pre_ids, pre_score, topk_ids, accu, BEAM, end_id=END, level=0)
        L.increment(counter, 1, in_place=True)
        L.array_write(state, array=state_array, i=counter)
        L.array_write(sel_ids, array=ids_array, i=counter)
        L.array_write(sel_scores, array=scores_array, i=counter)
        L.logical_and(L.less_than(counter, array_len), L.logical_not(L.is_empty(sel_ids)), out=cond)
    ids, scores = L.beam_search_decode(ids_array, scores_array, BEAM, END)
    feeds = {
        "src_word_id": (np.array([[3], [5], [7], [2], [9]], "int64"), [[0, 3, 5]]),
        "init_ids": (np.zeros((2, 1), "int64"), [[0, 1, 2], [0, 1, 2]]),
        "init_scores": (np.ones((2, 1), "float32"), [[0, 1, 2], [0, 1, 2]]),
    }
    return [ids, scores], feeds


def cond():
    x = fluid.data("x", [None, 3], "float32")
    s = L.reduce_sum(x)
    out = L.cond(
        L.less_than(s, L.fill_constant([1], "float32", 0.0)),
        lambda: L.fc(x, 2, name="neg"),
        lambda: L.scale(x[:, :2], 2.0),
    )
    return [out], {"x": (np.array([[1, 2, 3], [-1, 0.5, 2]], "float32"), None)}


def _tensor(value, lod, place):
    t = fluid.LoDTensor()
    t.set(value, place)
    if lod:
        t.set_recursive_sequence_lengths([list(np.diff(level)) for level in lod])
    return t


def _as_inference_ops(out_dir):
    """conditional_block -> conditional_block_infer in the saved __model__ (inference_op_replace_pass)."""
    path, desc = os.path.join(out_dir, "__model__"), framework_pb2.ProgramDesc()
    with open(path, "rb") as f:
        desc.ParseFromString(f.read())
    for block in desc.blocks:
        for op in block.ops:
            if op.type == "conditional_block":
                op.type = "conditional_block_infer"
    with open(path, "wb") as f:
        f.write(desc.SerializeToString())


def record(name, build, infer_ops=False):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        targets, feeds = build()
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        out_dir = os.path.join(OUT, name)
        fluid.io.save_inference_model(out_dir, list(feeds), targets, exe, main, params_filename="params")
        if infer_ops:
            _as_inference_ops(out_dir)
        program, feed_names, fetches = fluid.io.load_inference_model(out_dir, exe, params_filename="params")
        results = exe.run(
            program,
            feed={n: _tensor(v, lod, place) for n, (v, lod) in feeds.items()},
            fetch_list=fetches,
            return_numpy=False,
        )
    ops = sorted({op.type for b in program.blocks for op in b.ops})
    io = {
        "ops": ops,
        "feeds": {n: {"data": v.tolist(), "dtype": str(v.dtype), "lod": lod} for n, (v, lod) in feeds.items()},
        "fetches": [{"data": np.array(r).tolist(), "dtype": str(np.array(r).dtype), "lod": r.lod()} for r in results],
    }
    with open(os.path.join(out_dir, "io.json"), "w") as f:
        json.dump(io, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(name, ops)


if __name__ == "__main__":
    for name, build in (("static_rnn", static_rnn), ("dynamic_rnn", dynamic_rnn), ("beam_search", beam_search)):
        record(name, build)
    record("cond_infer", cond, infer_ops=True)

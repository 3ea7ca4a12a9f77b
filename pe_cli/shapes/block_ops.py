"""Meta rules (shapes/structured.py) of the ops that run a block of other ops inside their out-kernel (run_program,
run_program_grad: ops/run_program.py; dynamic_recurrent, dynamic_recurrent_grad: ops/dynamic_rnn.py). What they
give is whatever the block's ops write, known only once they have run: every output is ``fresh``, (None, None) (one
per variable of a list slot, ``facts.count`` where the context says how many), "block"; their scopes (OutScope,
step_scopes) are no tensors either. Their out-kernels run the block through the call's context
(``Structured.python``: a planned step runs them between its segments)."""

from .structured import Meta


def _block(*slots):
    def meta(attrs, ins, facts):
        count = getattr(facts, "count", None)
        outs = {s: [(None, None)] * ((count(s, 0) if count else 0) or 0) for s in slots}
        return Meta(outs, "block", fresh=True)

    return meta


run_program_meta = _block("Out", "OutScope")
run_program_grad_meta = _block("X@GRAD", "Params@GRAD")
dynamic_recurrent_meta = _block("outputs", "step_scopes", "writes")
dynamic_recurrent_grad_meta = _block("inputs@GRAD", "initial_states@GRAD", "static_inputs@GRAD", "parameters@GRAD")

"""``paddle.text.viterbi_decode`` and ``ViterbiDecoder`` in static mode: Paddle 2.6's viterbi_decode op (the
registry's, pe_cli/ops/viterbi.py) with Paddle's argument checks."""

from ...layers.checks import check_type, check_variable_and_dtype
from ...layers.helper import LayerHelper
from ..nn.layer import Layer


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """(scores [B], path [B, max(lengths)] int64): the best tag path of each sequence of ``potentials``
    [B, T, tags] under ``transition_params`` [tags, tags] over its first ``lengths[b]`` steps."""
    fn = "viterbi_decode"
    check_variable_and_dtype(potentials, "input", ("float32", "float64"), fn)
    check_variable_and_dtype(transition_params, "transitions", ("float32", "float64"), fn)
    check_variable_and_dtype(lengths, "length", ("int64",), fn)
    check_type(include_bos_eos_tag, "include_tag", bool, fn)
    helper = LayerHelper(fn, name=name)
    scores = helper.create_variable_for_type_inference(potentials.dtype)
    path = helper.create_variable_for_type_inference("int64")
    helper.append_op(
        fn,
        {"Input": [potentials], "Transition": [transition_params], "Length": [lengths]},
        {"Scores": [scores], "Path": [path]},
        {"include_bos_eos_tag": include_bos_eos_tag},
    )
    return scores, path


class ViterbiDecoder(Layer):
    """``viterbi_decode`` with its ``transitions`` [tags, tags] kept: ``decoder(potentials, lengths)``."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name)

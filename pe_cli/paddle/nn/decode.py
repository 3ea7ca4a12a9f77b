"""``paddle.nn.dynamic_decode``: Fluid's loop (pe_cli/layers/decode.py) with Paddle 2.x's rule, where a
decoder that tracks its own finished flags and lengths (``tracks_own_finished``: BeamSearchDecoder,
whose beams change slots) keeps them, instead of Fluid 1.8.5's OR per slot."""

from ...layers.decode import BeamSearchDecoder, decode_loop  # noqa: F401 (Fluid's, the same in 2.x)
from ...framework.program_release import paddle_face

__all__ = ["BeamSearchDecoder", "dynamic_decode"]


@paddle_face
def dynamic_decode(
    decoder,
    inits=None,
    max_step_num=None,
    output_time_major=False,
    impute_finished=False,
    is_test=False,
    return_length=False,
    **kwargs,
):
    """fluid.layers.dynamic_decode's loop (its docstring), a decoder's ``tracks_own_finished`` honoured."""
    return decode_loop(
        decoder, inits, max_step_num, output_time_major, impute_finished, is_test, return_length, True, kwargs
    )

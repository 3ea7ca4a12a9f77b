"""LoD elements on CUDA (the simulator in CI): the rank-table ops, split/merge_lod_tensor and
DynamicRNN over nested LoD and LoD static inputs give on a CUDA place what the CPU tests check."""

from pe_cli import fluid
from tests.layers import test_dynamic_rnn_lod as drnn
from tests.layers import test_lod_elements as elements

GPU = fluid.CUDAPlace(0)


def test_rank_table_ops_on_cuda():
    elements.test_a_declared_plain_variable_fed_sequences_is_ranked_and_cut_into_sequences(GPU)
    elements.test_reorder_by_rank_moves_whole_sequences_and_the_gradient_keeps_the_lod(GPU)


def test_split_and_merge_on_cuda():
    elements.test_split_and_merge_by_sequence_keep_the_lod(GPU)


def test_dynamic_rnn_nested_and_static_lod_on_cuda():
    drnn.check_nested(GPU)
    drnn.check_static_input(GPU)

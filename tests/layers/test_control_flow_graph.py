"""pe's program text and DOT show the blocks that control-flow ops own: nested under the op in
text, as DOT clusters with a dashed "runs" edge from the op."""

from pe_cli.run.graph import program_dot, program_text
from tests.layers.test_control_flow_rnn import static_rnn_program


def test_text_nests_the_step_block_and_its_gradient_block():
    main, *_ = static_rnn_program()
    text = program_text(main)
    assert "block 1 (parent 0), run by recurrent: " in text
    assert "block 2 (parent 1), run by recurrent_grad: " in text
    assert "contextlib" not in text  # ops built at a `with` exit name the user's line
    nested = [line for line in text.splitlines() if line.startswith("          ")]
    assert any("= mul_grad(" in line for line in nested)


def test_dot_draws_each_block_as_a_cluster():
    main, *_ = static_rnn_program()
    dot = program_dot(main)
    assert dot.count("subgraph cluster_block") == 2
    assert '"op:b1:0"' in dot and 'label="runs"' in dot
    assert dot.count("{") == dot.count("}")

"""The registry imports only the family of the op it is asked for, through pe_cli/ops/family_index.py:
that index is what tools/op_family_index.py computes from every family (else run it with --write), and
a lookup through it gives what a lookup after importing every family gives."""

from generated_checks import assert_current, python


def test_the_index_is_current():
    assert_current("tools/op_family_index.py", "pe_cli/ops/family_index.py")


def test_a_lookup_imports_only_the_family_of_the_op():
    said = python(
        "import sys\n"
        "from pe_cli.ops import registry\n"
        "assert registry.get('relu').type == 'relu' and registry.known('conv2d_grad')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('pe_cli.ops.'))))\n"
    ).split()
    assert "pe_cli.ops.activation" in said and "pe_cli.ops.convolution" in said
    assert "pe_cli.ops.detection_nms" not in said and "pe_cli.ops.fft" not in said


def test_traits_and_unknown_ops_answer_as_with_every_family_loaded():
    said = python(
        "from pe_cli.ops import define, registry\n"
        "from pe_cli.base.errors import UnknownOpError\n"
        "traits = {t: registry.with_trait(t) for t in define.TRAITS}\n"
        "said = []\n"
        "for name in ('reluu', 'qqqq_nothing'):\n"
        "    try:\n"
        "        registry.get(name)\n"
        "    except UnknownOpError as e:\n"
        "        said.append(str(e))\n"
        "known = registry.all_op_types()\n"
        "assert traits == {t: sorted(o for o in known if registry.get(o).has(t)) for t in define.TRAITS}\n"
        "assert \"did you mean 'relu'\" in said[0] and all(t in said[1] for t in known), said\n"
        "assert not registry.known('reluu') and not registry.registered('reluu')\n"
        "print('ok')\n"
    )
    assert said == "ok\n"

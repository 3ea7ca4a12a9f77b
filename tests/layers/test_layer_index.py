"""pe_cli.layers (Fluid's fluid.layers) imports a name's module on its first use, through
pe_cli/layers/layer_index.py: that index is what tools/layer_index.py computes from the modules (else run
it with --write), a name gives its module's object whichever modules were imported before, and a layer
type a model file names loads its own module alone."""

from generated_checks import assert_current, python


def test_the_index_is_current():
    assert_current("tools/layer_index.py", "pe_cli/layers/layer_index.py")


def test_a_name_imports_only_its_module():
    said = python(
        "import sys\n"
        "import pe_cli.layers as L\n"
        "assert L.fc.__module__ == 'pe_cli.layers.linalg'\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('pe_cli.layers.'))))\n"
    ).split()
    assert "pe_cli.layers.linalg" in said
    assert not {"pe_cli.layers.convolution", "pe_cli.layers.rnn_api", "pe_cli.layers.detection_box"} & set(said)


def test_a_name_shared_with_a_submodule_stays_the_function():
    """``dropout``, ``rnn``, ``lstm``: Fluid's names are functions, whether or not their modules (of
    the same names) were imported first; Fluid's submodule names (layers.nn, layers.detection) are
    the modules."""
    said = python(
        "import sys, types\n"
        "import pe_cli.layers.dropout, pe_cli.layers.rnn, pe_cli.layers.lstm\n"
        "import pe_cli.layers as L\n"
        "module = sys.modules\n"
        "from pe_cli.layers.rnn_api import rnn\n"
        "assert L.dropout is module['pe_cli.layers.dropout'].dropout\n"
        "assert L.rnn is rnn and L.lstm.__module__ == 'pe_cli.layers.lstm_cudnn'\n"
        "assert isinstance(L.nn, types.ModuleType) and L.detection.__name__ == 'pe_cli.layers.detection'\n"
        "import pe_cli.layers.embedding\n"
        "assert L.embedding is module['pe_cli.layers.embedding'].embedding\n"
        "print('ok')\n"
    )
    assert said == "ok\n"


def test_every_name_resolves_and_a_star_import_gives_them_all():
    said = python(
        "import pe_cli.layers as L\n"
        "names = [n for n in dir(L) if not n.startswith('_')]\n"
        "assert set(L.__all__) <= set(names)\n"
        "values = {n: getattr(L, n) for n in L.__all__}\n"
        "space = {}\n"
        "exec('from pe_cli.layers import *', space)\n"
        "assert all(space[n] is v for n, v in values.items()), 'a star import differs'\n"
        "print(len(values))\n"
    )
    assert int(said) > 400


def test_a_layer_type_loads_its_module_alone():
    said = python(
        "import sys\n"
        "from pe_cli.config import registries\n"
        "types = registries.layers()\n"
        "assert 'conv2d' in types.members and 'no_such_layer' not in types.members\n"
        "assert types.lookup('conv2d')[1].__module__ == 'pe_cli.layers.convolution'\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('pe_cli.layers.'))\n"
        "assert 'pe_cli.layers.convolution' in loaded and 'pe_cli.layers.rnn_api' not in loaded, loaded\n"
        "assert types.lookup('Linear')[1].__module__ == 'pe_cli.layers.paddle_nn'\n"
        "assert 'data' not in types.members and 'exponential_decay' not in types.members\n"
        "print('ok')\n"
    )
    assert said == "ok\n"

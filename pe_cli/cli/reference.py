"""The reference commands: ``pe layers`` (the layer types and learning-rate schedules a model file can use) and
``pe keys`` (every key of the model file and the run config), read from the code and the schema. Registered
on the ``pe`` group by pe_cli/cli/main.py; each imports the engine in its body, as there."""

import inspect

import click

from .errors import CONTEXT, EPILOG, _fail, debug_option, guarded


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("names", nargs=-1)
@debug_option
@guarded
def layers(names):
    """List the layer types a model file can use, and the learning-rate schedules
    optimizer.learning_rate takes, with their arguments.

    They are the functions of pe_cli.layers (the Python API), read from the code; NAMES shows only
    those, with their documentation.
    """
    from ..config.errors import suggest
    from ..config.registries import layers as layer_types
    from ..config.registries import schedules as lr_schedules

    namespaces = (layer_types(), lr_schedules())
    if not names:
        for ns, title in zip(
            namespaces, ("layer types", "learning-rate schedules (optimizer.learning_rate: {type: NAME, ...})")
        ):
            click.echo(f"# {title}")
            for name in ns.names():
                _describe_function(name, ns.members[name], False)
        return
    for name in names:
        ns = next((ns for ns in namespaces if name in ns.members), None)
        if ns is None:
            known = [n for ns in namespaces for n in ns.names()]
            _fail(f"pe: error: unknown layer type or schedule '{name}'; {suggest(name, known)}", 2)
        _describe_function(name, ns.members[name], True)


def _describe_function(name, fn, with_doc):
    sig = str(inspect.signature(fn)).replace("name=None, ", "").replace(", name=None", "")
    click.echo(f"{name}{sig}")
    if with_doc and fn.__doc__:
        click.echo("    " + inspect.cleandoc(fn.__doc__).replace("\n", "\n    "))


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("which", type=click.Choice(["model", "run", "all"]), default="all")
@debug_option
@guarded
def keys(which):
    """List every key of the model file and the run config, with type, default and meaning.

    Read from the schema the loader validates with, so it is exactly what is accepted
    (docs/CONFIG.md documents the same keys).
    """
    from ..config.describe import describe_keys

    click.echo(describe_keys(which), nl=False)

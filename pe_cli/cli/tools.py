"""The commands beside training: ``pe summary``, ``pe predict``, ``pe infer``, ``pe export``, ``pe plot`` and
``pe info`` (registered on the ``pe`` group by pe_cli/cli/main.py; each imports the engine in its body, as there)."""

import functools
import os

import click

from ..base.errors import UsageError
from .errors import CONTEXT, EPILOG, debug_option, guarded
from .options import threads_option, use_threads


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("file", type=click.Path())
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@debug_option
@guarded
def summary(file, overrides):
    """Print a model as a table: each feed and layer, its output shape, its parameters, its line.

    FILE is a run config (overrides apply), a model file, or a run directory or checkpoint (the
    model the run trained: its best checkpoint's, else its newest's).
    """
    from ..run.summary import summary as model_summary

    click.echo(model_summary(file, overrides), nl=False)


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("config", type=click.Path(dir_okay=False))
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--checkpoint",
    "-c",
    required=True,
    metavar="PATH",
    help="A run directory (its best checkpoint where it kept one, else its newest), ckpt/last, ckpt/best "
    "or ckpt/step-N.",
)
@click.option(
    "--data",
    "data_path",
    required=True,
    metavar="FILE",
    multiple=True,
    help="Samples without labels: .npy, .npz (arrays named after the feeds), IDX images, a table read by "
    "column name (.csv, .tsv, .jsonl), a folder of images, or image files (--data a.png --data b.png); "
    "- (stdin) or a FIFO: table rows predicted as they arrive (written to stdout unless -o names a table).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "tsv", "jsonl"]),
    help="The rows' format where --data's name does not say it (stdin, a FIFO); default: JSON Lines when "
    "the first non-blank character is '{', else CSV with a header.",
)
@click.option(
    "-o",
    "--out",
    metavar="FILE",
    help="Where to write the predictions, .npz or .csv, or - (stdout: rows in --data's format, CSV or JSON "
    "Lines) (default: predictions-step-N.npz in the run directory; stdout for rows piped in).",
)
@click.option(
    "--keep",
    multiple=True,
    metavar="COLUMN",
    help="A column of the --data table to copy into the predictions (an id to join on); with predict.keep_columns.",
)
@click.option(
    "--output",
    metavar="LAYER",
    help="The layer to predict with (default: the one nearest the loss that does not read the label, e.g. the logits).",
)
@click.option(
    "--probabilities/--no-probabilities",
    default=True,
    show_default=True,
    help="A classifier: write each class's probability beside the class (and its name).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar (with -o -: no lines on stderr but errors).")
@threads_option
@debug_option
@guarded
def predict(config, overrides, checkpoint, data_path, fmt, out, output, probabilities, quiet, threads, keep):
    """Predict with a checkpoint on data without labels.

    A classifier (an integer label feed) writes each sample's class, its name (with a label
    preprocessing) and the class probabilities; any other model the prediction layer's values.
    The run's preprocessing.json is applied to the raw data first. With --data - (or a FIFO) table
    rows are predicted as they arrive, batch by batch, and answered on stdout in their own format.
    """
    from ..config import load_config
    from ..run.output_paths import check_output
    from ..run.predict import predict as run_predict
    from ..run.predict_stream import is_stream

    if out == "-" or (len(data_path) == 1 and is_stream(data_path[0])) or fmt:
        cfg = _stream_config(config, overrides, data_path, fmt, out)
        use_threads(threads, cfg)
        _predict_rows(cfg, checkpoint, data_path[0], fmt, out or "-", (output, quiet, probabilities, keep))
        return
    check_output(
        out,
        "pe predict -o",
        "predictions.csv" if (out or "").endswith(".csv") else "predictions.npz",
        inputs=[(config, "the config")] + [(path, "the data file") for path in data_path],
    )
    cfg = load_config(config, overrides)
    use_threads(threads, cfg)
    result = run_predict(cfg, checkpoint, list(data_path), out, output, quiet, probabilities, keep)
    classes = "classes and probabilities" if probabilities else "classes"
    layers = [f"'{layer}' ({classes if classifier else 'values'})" for layer, classifier in result["outputs"]]
    click.echo(f"checkpoint: {result['checkpoint']} (step {result['step']})")
    which = "layer" if len(layers) == 1 else "layers"
    click.echo(f"predicted {result['samples']} samples with {which} {', '.join(layers)}: {result['out']}")


def _stream_config(config, overrides, data_path, fmt, out):
    """The run config of pe predict on rows as they arrive (--data -, a FIFO, or a table with -o -),
    once --data and -o are checked: one table, written to stdout or a table file."""
    from ..config import load_config
    from ..run.output_paths import check_output
    from ..run.predict_stream import check_source

    if len(data_path) != 1:
        raise UsageError("rows read as they arrive (--data -, a FIFO, -o -) come from one --data")
    check_source(data_path[0], fmt)
    if out not in (None, "-"):
        inputs = [(config, "the config")] + ([] if data_path[0] == "-" else [(data_path[0], "the data file")])
        check_output(out, "pe predict -o", "predictions.csv", inputs=inputs)
    return load_config(config, overrides)


def _predict_rows(cfg, checkpoint, path, fmt, out, how):
    """pe predict's rows as they arrive (run/predict_stream.py); its lines on stderr (none with -q)
    where the predictions go to stdout."""
    from ..run.predict_stream import stream_predict

    output, quiet, probabilities, keep = how
    result = stream_predict(cfg, checkpoint, path, out, fmt, output, quiet, probabilities, keep)
    if quiet and out == "-":
        return
    layers = [f"'{layer}'" for layer, _ in result["outputs"]]
    where = "stdout" if out == "-" else out
    echo = functools.partial(click.echo, err=out == "-")
    echo(f"checkpoint: {result['checkpoint']} (step {result['step']})")
    echo(f"predicted {result['samples']} rows ({result['format']}) with {', '.join(layers)}: {where}")


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("model_dir", type=click.Path(file_okay=False), metavar="MODEL_DIR|PREFIX")
@click.option(
    "--data",
    "data_path",
    required=True,
    metavar="FILE",
    help="The feeds: .npy or IDX (one feed), .npz (arrays named after the feeds), .csv.",
)
@click.option("-o", "--out", required=True, metavar="FILE.npz", help="Where to write each fetch target's values.")
@click.option("--model-filename", metavar="NAME", help="The program's file in MODEL_DIR (default: __model__).")
@click.option(
    "--params-filename",
    metavar="NAME",
    help="The parameters' single file in MODEL_DIR (default: one file per parameter).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=256,
    show_default=True,
    help="Samples per run (a model that reduces over its batch gives per-batch values).",
)
@threads_option
@debug_option
@guarded
def infer(model_dir, data_path, out, model_filename, params_filename, batch_size, threads):
    """Run an inference model directory on a data file: one that PaddlePaddle saved (Fluid's
    save_inference_model, or Paddle 2.x's .pdmodel/.pdiparams) or pe saved; or Paddle 2.x's path
    prefix (paddle.jit.save's, save_inference_model's: PREFIX.pdmodel), as paddle.jit.load takes it.
    No config is needed; the data must already be preprocessed as the model expects."""
    from ..run.infer import infer as run_infer, saved_model_files
    from ..run.output_paths import check_output

    model_dir, model_filename, params_filename = saved_model_files(model_dir, model_filename, params_filename)
    model = os.path.join(model_dir, model_filename or "__model__")
    params = params_filename and os.path.join(model_dir, params_filename)
    check_output(
        out,
        "pe infer -o",
        "values.npz",
        inputs=[(data_path, "the data file"), (model, "the model file"), (params, "the parameters file")],
    )
    use_threads(threads)
    result = run_infer(model_dir, data_path, out, model_filename, params_filename, batch_size)
    click.echo(
        f"ran {result['samples']} samples through {', '.join(result['feeds'])} -> "
        f"{', '.join(result['fetches'])}: {result['out']}"
    )


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("run_dir", type=click.Path(file_okay=False), metavar="RUN_DIR")
@click.option("-o", "--out", metavar="FILE", help="The image to write (default: RUN_DIR/curves.png).")
@click.option("--metric", metavar="NAMES", help="Comma-separated metrics to draw (default: every one).")
@debug_option
@guarded
def plot(run_dir, out, metric):
    """Draw a run's training and evaluation curves (needs matplotlib: pip install 'pe-cli[plot]')."""
    from ..run.plot import plot as plot_curves

    path = plot_curves(run_dir, out, [m.strip() for m in metric.split(",")] if metric else None)
    click.echo(f"wrote {path}")


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@click.argument("config", type=click.Path(dir_okay=False))
@click.argument("overrides", nargs=-1, metavar="[KEY=VALUE]...")
@click.option(
    "--checkpoint",
    "-c",
    required=True,
    metavar="PATH",
    help="A ckpt/step-N directory, ckpt/last, ckpt/best or a run directory (its best checkpoint where it "
    "kept one, else its newest).",
)
@click.option(
    "--onnx",
    "onnx_path",
    metavar="FILE",
    help="Write the inference program as ONNX (opset 17; needs: pip install 'pe-cli[onnx]').",
)
@click.option(
    "--inference-dir",
    metavar="DIR",
    help="Write save_inference_model's directory (__model__ and the parameters, in Fluid's formats: "
    "pe's and PaddlePaddle's load_inference_model read it).",
)
@click.option(
    "--output",
    "output_layer",
    metavar="LAYER",
    help="The layer to export as the output (default: the last layer that needs no label; of a model "
    "with several output features, every one's head).",
)
@threads_option
@debug_option
@guarded
def export(config, overrides, checkpoint, onnx_path, inference_dir, output_layer, threads):
    """Export a checkpoint's inference program (the test program from the input feeds to the
    output layer, without loss and metric layers) as ONNX and/or an inference-model directory."""
    from ..config import load_config
    from ..export import export_inference_dir, export_onnx, summary_line, unscaled_targets
    from ..run.inference import load_inference
    from ..run.output_paths import check_output

    if not onnx_path and not inference_dir:
        raise click.UsageError("nothing to export: give --onnx FILE and/or --inference-dir DIR")
    read = [(config, "the config")]
    check_output(onnx_path, "pe export --onnx", "model.onnx", inputs=read)
    check_output(inference_dir, "pe export --inference-dir", "inference", directory=True, inputs=read)
    cfg = load_config(config, overrides)
    use_threads(threads, cfg)
    inference = load_inference(cfg, checkpoint, output_layer, "export")
    heads = inference.heads or [inference]
    if inference_dir:
        unscaled_targets(inference, heads)  # what the directory cannot hold is refused before anything is written
    click.echo(
        f"checkpoint: {inference.checkpoint} (step {inference.step}); inputs {', '.join(inference.inputs)}, "
        f"output{'s' if inference.heads else ''} {', '.join(f'{h.output!r} ({h.target.name})' for h in heads)}"
    )
    if onnx_path:
        inputs, outputs, inside, outside = export_onnx(inference, onnx_path)
        if inside or outside:
            click.echo(summary_line(inside, outside))
        click.echo(f"wrote {onnx_path} (inputs {', '.join(inputs)})")
        click.echo(f"outputs: {', '.join(outputs)} (docs/ONNX.md)")
    if inference_dir:
        export_inference_dir(inference, inference_dir)
        click.echo(f"wrote {inference_dir}")


@click.command(context_settings=CONTEXT, epilog=EPILOG)
@threads_option
@debug_option
@guarded
def info(threads):
    """Show what pe runs on here and what it chose: the CPU, the BLAS its loops call (measured on
    this CPU at first use and kept beside numba's cache), oneDNN, threads, CUDA and MPI."""
    from ..run.machine_info import report

    use_threads(threads)
    click.echo("\n".join(report()))

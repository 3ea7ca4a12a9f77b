"""Every key of the two YAML documents: the model file (``MODEL``) and the run config (``RUN``).

docs/CONFIG.md documents exactly these (tests/config/test_docs.py compares them). Names follow the
Python API: a layer's arguments are its builder's, ``optimizer`` takes its class's arguments,
``build_strategy`` and ``exec_strategy`` are the attributes of ``BuildStrategy`` and
``ExecutionStrategy``.
"""

import enum

from ..compiler import strategy
from ..data import preprocessing
from ..data.missing import LABEL_POLICIES, MISSING
from .schema import REQUIRED, Custom, Field, ListOf, MapOf, Section

LOGGERS = ("tensorboard",)  # run/loggers.py writes each

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool")
FORMATS = ("mnist", "idx", "npy", "npz", "csv", "tsv", "jsonl", "folders", "multislot")
GRAPH_KINDS = ("forward", "train", "startup", "test", "ssa")
SEED_MAX = 2**32 - 1  # numpy's and Fluid's seeds are 32-bit
STEPS_MAX = 10**12  # a million steps a second for eleven days: more cannot be meant

LAYER_KEYS = {
    "[].<name>.type": "the layer type: a layer function of pe_cli.layers (pe layers lists them)",
    "[].<name>.<argument>": "an argument of that layer function, by name",
    "[].<name>.param_attr.name": "parameter name (share a parameter by giving two layers the same name)",
    "[].<name>.param_attr.initializer": "an initializer: {type: Xavier|Normal|Uniform|Constant|MSRA|"
    "TruncatedNormal, its arguments}",
    "[].<name>.param_attr.learning_rate": "learning-rate scale of this parameter",
    "[].<name>.param_attr.regularizer": "{type: L2Decay|L1Decay, regularization_coeff: c}",
    "[].<name>.param_attr.trainable": "false freezes the parameter",
    "[].<name>.param_attr.gradient_clip": "a gradient clip for this parameter ({type: ..., args})",
    "[].<name>.param_attr.do_model_average": "include in model averaging",
}

MODEL = Section(
    {
        "name": Field("str|null", None, "the model's name (default: the file name without .yaml)"),
        "include": Field("path|list[path]|null", None, "model file(s) whose feeds and layers come before this file's"),
        "feeds": MapOf(
            Section(
                {
                    "shape": Field("list[int]", REQUIRED, "shape of one sample, or with -1 for the batch"),
                    "dtype": Field("str", "float32", "element type", choices=DTYPES),
                    "lod_level": Field("int", 0, "sequence nesting depth (0: plain tensor)", min=0),
                    "append_batch_size": Field("bool", True, "put a -1 batch dimension first unless shape has -1"),
                }
            ),
            "the variables the program is fed through (fluid.layers.data)",
            key_doc="feed",
        ),
        "layers": Custom("the layers, in order: '- name: {type: ..., arguments}'", LAYER_KEYS, default=[]),
        "loss": Field(
            "str|map|null",
            None,
            "the layer whose (scalar) output training minimizes, or a loss layer "
            "written in place ({type: softmax_with_cross_entropy, logits: out, label: y}): the layer "
            "'loss', its mean over the batch",
        ),
        "fetches": Field("list[str]|null", None, "layers and feeds reported by default (default: [loss])"),
        "input_features": Custom(
            "instead of layers: the input columns and their kinds, which pe expands into layers and "
            "data.preprocessing entries",
            {
                "[].column": "the table column (a folder source: image); numeric: a list of columns side by side",
                "[].kind": "numeric, category, binary, text, sequence, set, image or date",
                "[].name": "the feed's name (default: the column's)",
                "[].encoder": "category: {type: embed|one_hot, size}; text, sequence, set: {type: pooled|rnn, size, pool}; "
                "image: {type: cnn, filters, size}",
                "[].preprocessing": "keys of the feed's data.preprocessing entry (image: size, mode)",
            },
        ),
        "output_features": Custom(
            "with input_features: the columns to predict, one head each",
            {
                "[].column": "the table column (a folder source: label)",
                "[].kind": "category or binary (a classifier), numeric (a regression)",
                "[].name": "the feed's name (default: the column's)",
                "[].preprocessing": "keys of the feed's data.preprocessing entry",
            },
        ),
        "combiner": Custom(
            "with input_features: the fc layers between the joined inputs and the heads",
            {"size": "their width (default 32)", "layers": "how many (default 1; 0: none)"},
        ),
    }
)

SOURCE = Section(
    {
        "format": Field(
            "str", REQUIRED, "mnist, idx, npy, npz, csv, tsv, jsonl, folders or multislot", choices=FORMATS
        ),
        "path": Field(
            "path|null",
            None,
            "mnist, folders: the directory; npz, csv, tsv, jsonl: the file; multislot: a file or a directory of them",
        ),
        "files": MapOf(Field("path"), "idx, npy: one file per feed", key_doc="feed"),
        "split": Field(
            "str", "all", "mnist: train (first 8,000), eval (last 2,000) or all", choices=("train", "eval", "all")
        ),
        "columns": MapOf(
            Field("str|int|list[str]|list[int]"),
            "feed -> source column: npz array name, csv column name(s)/index(es), "
            "mnist image|label (default: the feed's own name)",
            key_doc="feed",
        ),
        "header": Field("bool", True, "csv: the first line names the columns"),
        "delimiter": Field(
            "str|null",
            None,
            "csv: the field separator (default: sniffed: ',' where the first line splits on it, else ; tab or |)",
        ),
        "start": Field("int", 0, "first sample used", min=0),
        "stop": Field("int|null", None, "one past the last sample used (default: the end)", min=0),
        "limit": Field("int|null", None, "use at most this many samples (after start/stop)", min=1),
    },
    "a data source",
    default=None,
)

PREPROCESSING = MapOf(
    Section(
        {
            "kind": Field(
                "str", REQUIRED, "numeric, category, text, image, label or date", choices=preprocessing.KINDS
            ),
            "columns": Field(
                "str|list[str]|null",
                None,
                "the table column this feed reads in every source (numeric and a "
                "one-hot category: a list of columns side by side); default: the feed's name",
            ),
            "scaling": Field(
                "str|null", None, "numeric: standardize (default), minmax, log or none", choices=preprocessing.SCALINGS
            ),
            "fill": Field(
                "str|float|null",
                None,
                "numeric: a missing value's replacement: mean (default), median, zero "
                "or a number; category: the value a missing field stands for (default: the unknown id 0)",
            ),
            "missing": Field(
                "list[str]|null", None, "the fields of this feed's column(s) read as missing (default: data.missing)"
            ),
            "encoding": Field(
                "str|null",
                None,
                "category: ids (default: int64 [1], for an embedding) or one_hot (float32 "
                "[the vocabulary sizes summed], each column one-hot side by side, for an fc)",
                choices=preprocessing.ENCODINGS,
            ),
            "min_count": Field(
                "int|null", None, "category, text: keep values seen this often in training (default 1)", min=1
            ),
            "max_vocabulary": Field("int|null", None, "category, text: at most this many ids (default: all)", min=2),
            "tokenizer": Field(
                "str|null",
                None,
                "text: space_punct (default: words and punctuation marks), whitespace, character or regex",
                choices=preprocessing.TOKENIZERS,
            ),
            "pattern": Field(
                "str|null", None, "text: the tokens are this regular expression's matches (tokenizer: regex)"
            ),
            "lowercase": Field("bool|null", None, "text: lowercase before splitting (default true)"),
            "max_length": Field("int|null", None, "text: tokens kept per sample (default 64)", min=1),
            "sequence": Field(
                "str|null",
                None,
                "text: ragged (default: a lod_level 1 feed) or padded ([N, max_length])",
                choices=preprocessing.SEQUENCES,
            ),
            "lengths_feed": Field("str|null", None, "text, padded: the feed that gets each sample's length"),
            "size": Field("list[int]|null", None, "image: resize to [height, width]"),
            "crop": Field("list[int]|null", None, "image: cut the centre [height, width] (after size)"),
            "mode": Field(
                "str|null", None, "image: L (one channel), RGB (default) or BGR", choices=preprocessing.MODES
            ),
            "scale": Field("float|null", None, "image: multiply the 0..255 values by this (default 1/255)"),
            "mean": Field("float|list[float]|null", None, "image: subtract, per channel (after scale)"),
            "std": Field("float|list[float]|null", None, "image: divide by, per channel (after mean)"),
        }
    ),
    "per feed, preprocessing fitted on data.train and saved as <run dir>/preprocessing.json",
    key_doc="feed",
)

TRANSFORM_KEYS = {
    "scale": "multiply by a number (0.00392156 maps 0..255 to 0..1)",
    "normalize": "{mean: m, std: s}: (x - mean) / std; numbers or per-channel lists",
    "reshape": "new shape of one sample",
    "one_hot": "number of classes: integer labels -> one-hot float rows",
    "cast": "convert to a dtype",
}

OPTIMIZER_KEYS = {
    "type": "an optimizer class of pe_cli.training.optimizer or optimizer_adaptive: SGD, Momentum, Adam, ... (case does not matter)",
    "learning_rate": "a number, or a schedule {type: exponential_decay|piecewise_decay|..., its arguments}",
    "learning_rate.type": "a learning-rate schedule function of pe_cli.layers",
    "learning_rate.<argument>": "an argument of that function",
    "regularization": "weight decay for all parameters: {type: L2Decay|L1Decay, regularization_coeff: c}",
    "regularization.type": "L2Decay or L1Decay",
    "regularization.regularization_coeff": "the decay coefficient",
    "grad_clip": "gradient clipping: {type: GradientClipByGlobalNorm|GradientClipByNorm|"
    "GradientClipByValue, its arguments}",
    "grad_clip.type": "a clip class of pe_cli.training.clip",
    "grad_clip.<argument>": "an argument of that class (clip_norm, max, min)",
    "<argument>": "any other argument of the optimizer class (momentum, beta1, epsilon, ...)",
}

_STRATEGY_DOCS = {
    "reduce_strategy": "AllReduce (every device updates its copy) or Reduce (one owner per parameter)",
    "gradient_scale_strategy": "initial loss gradient: CoeffNumDevice (1/devices), One, or Customized (fed)",
    "debug_graphviz_path": "write the multi-device graph as DOT to <this path>_multi_devices_graph (Fluid's file name)",
    "enable_sequential_execution": "run ops one at a time in program order",
    "sync_batch_norm": "batch_norm statistics over all devices",
    "num_trainers": "trainer processes: K > 1 trains under mpiexec -n K (the mpi extra), each on its share "
    "of every batch; rank 0 alone writes the run directory (docs/DISTRIBUTED.md)",
    "trainer_id": "this trainer's rank (pe train sets it from the MPI rank)",
    "trainers_endpoints": "the trainers' endpoints",
    "fuse_elewise_add_act_ops": "fuse elementwise_add + an activation (and their gradient ops) into one op "
    "(a program pass; numbers unchanged; docs/PARALLEL.md)",
    "fuse_bn_act_ops": "fuse batch_norm + relu (and their gradient ops) into one op",
    "fuse_gemm_epilogue": "a fully connected layer (mul + bias add + relu, and their gradient ops) becomes one "
    "fused_gemm_epilogue op that adds the bias and applies relu to each block of the product "
    "in cache (a program pass; numbers unchanged; docs/PARALLEL.md)",
    "fuse_attention": "an attention's heads, scores, mask, softmax and product by the values (and their gradient "
    "ops) become one scaled_dot_product_attention op, each (sample, head) in cache, no "
    "transposed copies (a program pass; within float32 rounding; docs/PARALLEL.md)",
    "fuse_embedding_seq_pool": "an embedding (lookup_table) summed over each sequence by sequence_pool, and their "
    "gradient ops, become one fused_embedding_seq_pool (_grad) op (pe's own program pass; "
    "numbers unchanged; docs/PARALLEL.md)",
    "memory_optimize": "release each temporary after its last reader (graph pass; see docs/PARALLEL.md)",
    "enable_inplace": "let ops the registry declares write over a dead input (graph pass; docs/PARALLEL.md)",
    "remove_unnecessary_lock": "drop locks the graph proves unneeded",
    "fuse_all_optimizer_ops": "the update ops of one type (sgd, momentum, adam) with the same attributes and "
    "learning rate become one fused op (a program pass under AllReduce; numbers "
    "unchanged; docs/PARALLEL.md)",
    "enable_backward_optimizer_op_deps": "each device runs its optimizer ops after its backward pass, one after "
    "another in the order their gradients became final (a graph pass; "
    "numbers unchanged; docs/PARALLEL.md)",
    "fuse_relu_depthwise_conv": "fold a relu that only a depthwise_conv2d reads into it (forward and gradient; a "
    "program pass; numbers unchanged; docs/PARALLEL.md)",
    "enable_auto_fusion": "runs of consecutive elementwise ops and activations become one fusion_group op (a "
    "program pass; numbers unchanged; docs/PARALLEL.md)",
    "allow_cuda_graph_capture": "on one CUDA device: each step recorded once and replayed as CUDA graphs (as "
    "PE_CUDA_GRAPHS=1; numbers unchanged; docs/CUDA.md)",
    "fuse_all_reduce_ops": "sum the gradients over the devices (and processes) in buckets of up to 32 MiB, one collective each",
    "num_threads": "thread-pool size (0: devices x 4)",
    "num_iteration_per_drop_scope": "drop the per-device local scopes every N iterations",
    "num_iteration_per_run": "iterations per run call",
    "allow_op_delay": "delay communication ops",
}


def _strategy_section(cls_name, doc):
    """The options of fluid.BuildStrategy / ExecutionStrategy, read from the class itself, so the
    YAML accepts exactly what Python does."""
    cls = getattr(strategy, cls_name)
    fields = {}
    for name, (default, _check) in cls._OPTIONS.items():
        value = default() if callable(default) else default
        if isinstance(value, enum.Enum):
            field = Field("str", value.name, choices=tuple(m.name for m in type(value)))
        elif isinstance(value, bool):
            field = Field("bool|null" if name in ("memory_optimize", "enable_inplace") else "bool", value)
        elif isinstance(value, int):
            field = Field("int", value, min=0)
        elif isinstance(value, list):
            field = Field("list[str]", value)
        else:
            field = Field("str", value)
        note = " (accepted; no effect yet)" if name in getattr(cls, "NO_EFFECT_YET", ()) else ""
        if name in getattr(cls, "NOTHING_TO_DO", {}):
            note = " (accepted; nothing to do in pe: see docs/PARALLEL.md)"
        field.doc = _STRATEGY_DOCS.get(name, name.replace("_", " ")) + note
        fields[name] = field
    return Section(fields, doc)


BUILD_STRATEGY = _strategy_section("BuildStrategy", "how the multi-device graph is built (fluid.BuildStrategy)")
EXEC_STRATEGY = _strategy_section("ExecutionStrategy", "how the multi-device graph runs (fluid.ExecutionStrategy)")
# pe's own: AsyncExecutor's Hogwild threads for pe train (seed 004; run/async_epoch.py)
EXEC_STRATEGY.fields["mode"] = Field(
    "str",
    "sync",
    "sync: one step after another; async: thread_num threads train each epoch's batches at once, Hogwild",
    choices=("sync", "async"),
)
EXEC_STRATEGY.fields["thread_num"] = Field("int", 2, "threads of async mode", min=1)
ASYNC_ONLY = ("mode", "thread_num")  # not options of fluid.ExecutionStrategy

RUN = Section(
    {
        "model": Field("path", REQUIRED, "the model file (relative to this file)"),
        "seed": Field("int", 1, "random seed of the programs and the data order", min=0, max=SEED_MAX),
        "place": Field("str", "cpu", "cpu or cuda", choices=("cpu", "cuda")),
        "devices": Field("int", 1, "devices to train on in parallel (data parallelism)", min=1),
        "threads": Field(
            "int|null",
            None,
            "threads pe's kernels use in all (default: PE_NUM_THREADS, else every CPU "
            "this process may run on); --threads N overrides it",
            min=1,
        ),
        "epochs": Field("int", 1, "passes over the training data", min=1, max=STEPS_MAX),
        "max_steps": Field("int|null", None, "stop after this many steps (batches) in all", min=1, max=STEPS_MAX),
        "check_nan_inf": Field("bool", False, "check every op's float outputs; stop at the first NaN or Inf"),
        "data": Section(
            {
                "train": SOURCE,
                "eval": SOURCE,
                "batch_size": Field("int", 64, "samples per training step (over all devices)", min=1),
                "eval_batch_size": Field("int|null", None, "samples per evaluation step (default: batch_size)", min=1),
                "shuffle": Field("bool", True, "shuffle the training data every epoch (seeded)"),
                "drop_last": Field("bool", False, "drop the last batch of an epoch when it is smaller"),
                "seed": Field("int|null", None, "seed of the shuffle (default: seed)", min=0, max=SEED_MAX),
                "transforms": MapOf(
                    ListOf(Custom("a transform", TRANSFORM_KEYS), "this feed's transforms, in order"),
                    "per-feed transforms applied in order",
                    key_doc="feed",
                ),
                "preprocessing": PREPROCESSING,
                "missing": Field(
                    "list[str]",
                    list(MISSING),
                    "table fields read as missing (stripped, case ignored; "
                    "JSON null too): numeric fills them, category and text as said, a label drops the row",
                ),
                "split": Section(
                    {
                        "eval": Field(
                            "float|null",
                            None,
                            "the fraction of data.train's rows held out as the eval part "
                            "(instead of a data.eval source)",
                            min=0,
                            max=1,
                        ),
                        "test": Field(
                            "float|null",
                            None,
                            "the fraction held out as the test part (pe eval --split test)",
                            min=0,
                            max=1,
                        ),
                        "seed": Field("int|null", None, "seed of the split (default: data.seed)", min=0, max=SEED_MAX),
                        "stratify": Field(
                            "str|null",
                            None,
                            "a feed or column: each of its values is split in the same "
                            "fractions (a class-sorted file gives every class to every part)",
                        ),
                    },
                    "data.train split at random into train / eval / test rows, recorded in <run dir>/split.json "
                    "(not data.train.split, the mnist format's fixed parts)",
                    default=None,
                ),
                "on_missing_label": Field(
                    "str",
                    "drop",
                    "a row whose label is missing: drop (counted on stderr) or error",
                    choices=LABEL_POLICIES,
                ),
            },
            "where the samples come from and how they are batched",
        ),
        "optimizer": Custom(
            "the optimizer and its schedule", OPTIMIZER_KEYS, default={"type": "SGD", "learning_rate": 0.01}
        ),
        "build_strategy": BUILD_STRATEGY,
        "exec_strategy": EXEC_STRATEGY,
        "distributed": Section(
            {
                "mode": Field(
                    "str",
                    "collective",
                    "with build_strategy.num_trainers K > 1: collective (the trainers sum "
                    "their gradients) or pserver (parameter servers hold the parameters and run the updates)",
                    choices=("collective", "pserver"),
                ),
                "pservers": Field(
                    "int",
                    1,
                    "pserver mode: parameter-server processes (MPI ranks 0..P-1, the trainers "
                    "after them: mpiexec -n P+K)",
                    min=1,
                ),
                "sync": Field(
                    "bool",
                    True,
                    "pserver mode: update with the global batch's gradients (false: "
                    "asynchronously, with each trainer's as they come)",
                ),
                "split_method": Field(
                    "str",
                    "round_robin",
                    "pserver mode: how parameter blocks are placed on the servers",
                    choices=("round_robin", "hash_name"),
                ),
                "slice_var_up": Field(
                    "bool", True, "pserver mode: cut each parameter into row blocks over the servers"
                ),
                "min_block_size": Field("int", 8192, "pserver mode: the fewest values in a block", min=1),
            },
            "how several trainer processes train together (docs/DISTRIBUTED.md)",
        ),
        "fetch": Section(
            {
                "names": Field("list[str]|null", None, "layers to fetch while training (default: the model's fetches)"),
                "every": Field("int", 50, "report and record metrics every N steps", min=1),
                "save": Field(
                    "str",
                    "npz",
                    "keep fetched values: npz (fetches.npz), npy (one file per step) or none",
                    choices=("npz", "npy", "none"),
                ),
            },
            "what to fetch and how often",
        ),
        "eval": Section(
            {
                "fetches": Field(
                    "list[str]|null", None, "layers to average over data.eval (default: the model's fetches)"
                ),
                "every_epochs": Field("int", 1, "evaluate every N epochs (0: only at the end)", min=0),
                "every_steps": Field("int|null", None, "also evaluate every N steps", min=1),
            },
            "evaluation on data.eval during and after training",
        ),
        "checkpoint": Section(
            {
                "every_steps": Field("int|null", None, "save every N steps", min=1),
                "every_epochs": Field("int", 1, "save at the end of every N epochs (0: only at the end)", min=0),
                "keep": Field("int", 3, "keep the newest N checkpoints (0: all)", min=0),
                "keep_best": Section(
                    {
                        "metric": Field(
                            "str|null", None, "an eval fetch: keep the checkpoint where it was best as ckpt/best"
                        ),
                        "mode": Field("str", "max", "max: higher is better; min: lower is", choices=("max", "min")),
                    },
                    "the best checkpoint by an evaluation metric",
                ),
            },
            "checkpoints under <run dir>/ckpt/",
        ),
        "early_stopping": Section(
            {
                "metric": Field("str|null", None, "an eval fetch watched after each evaluation (null: off)"),
                "mode": Field("str", "max", "max: higher is better; min: lower is", choices=("max", "min")),
                "patience": Field("int", 3, "stop after this many evaluations without improvement", min=1),
                "min_delta": Field("float", 0.0, "an improvement must exceed this", min=0),
            },
            "stop when an evaluation metric stops improving",
        ),
        "logger": Field(
            "str|list[str]|null",
            None,
            "loggers beside metrics.csv and metrics.jsonl: tensorboard "
            "(event files in <run dir>/tensorboard; needs the tensorboard extra)",
            choices=LOGGERS,
        ),
        "predict": Section(
            {
                "keep_columns": Field(
                    "list[str]",
                    [],
                    "columns of pe predict's --data table copied into the predictions "
                    "(ids to join on; --keep adds more)",
                ),
            },
            "what pe predict writes beside the predictions",
        ),
        "output": Section(
            {
                "dir": Field("path|null", None, "the run directory (default: runs/<config name>)"),
                "graphs": Field(
                    "list[str]",
                    [],
                    "graphs to dump into the run directory: " + ", ".join(GRAPH_KINDS),
                    choices=GRAPH_KINDS,
                ),
                "curves": Field(
                    "bool",
                    False,
                    "draw curves.png at the end of pe train (needs matplotlib; pe plot RUN_DIR draws them at any time)",
                ),
            },
            "where results go",
        ),
    }
)

"""Every key of the two YAML documents: the model file (``MODEL``) and the run config (``RUN``).

docs/CONFIG.md documents exactly these (tests/config/test_docs.py compares them). Names follow the
Python API: a layer's arguments are its builder's, ``optimizer`` takes its class's arguments,
``build_strategy`` and ``exec_strategy`` are the attributes of ``BuildStrategy`` and
``ExecutionStrategy``. The data keys are keys_data.py's, the strategies' keys_strategy.py's.
"""

from ..data.missing import LABEL_POLICIES, MISSING
from .keys_data import PREPROCESSING, SOURCE, TRANSFORM_KEYS
from .keys_strategy import ASYNC_ONLY, BUILD_STRATEGY, EXEC_STRATEGY  # noqa: F401 (ASYNC_ONLY: run/placement.py's)
from .schema import REQUIRED, Custom, Field, ListOf, MapOf, Section

LOGGERS = ("tensorboard",)  # run/loggers.py writes each

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool")
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
                "[].loss": "{weight: w}: this output's factor in the total loss (default 1; a number above 0)",
            },
        ),
        "combiner": Custom(
            "with input_features: the fc layers between the joined inputs and the heads",
            {
                "size": "their width (default 32)",
                "layers": "how many (default 1; 0: none)",
                "dropout": "the probability of dropping each one's outputs while training (default 0)",
            },
        ),
    }
)

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
                            "str|null",
                            None,
                            "a number each evaluation reports (an eval fetch, <output>_rmse, _mae, _r2, "
                            "_accuracy): keep the checkpoint where it was best as ckpt/best",
                        ),
                        "mode": Field(
                            "str|null",
                            None,
                            "max: higher is better; min: lower is (null: as the metric is)",
                            choices=("max", "min"),
                        ),
                    },
                    "the best checkpoint by an evaluation metric",
                ),
            },
            "checkpoints under <run dir>/ckpt/",
        ),
        "early_stopping": Section(
            {
                "metric": Field(
                    "str|null", None, "a number each evaluation reports, watched after each one (null: off)"
                ),
                "mode": Field(
                    "str|null",
                    None,
                    "max: higher is better; min: lower is (null: as the metric is)",
                    choices=("max", "min"),
                ),
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

"""How much pe reads and starts: one set of limits, derived from the machine (its cores and usable
memory) or fixed far above any real model, each raised by an environment variable
(docs/LIMITS.md lists them). Every reader calls these before it allocates: a header that claims
10^12 rows, a model of a million ops or 100,000 devices is one line naming the file or key and
the variable that raises the limit, never a hang or a MemoryError.

Also the one test of what pe may read at all: a regular file (``regular_file``). A FIFO blocks the
reader forever, a device never ends, a directory is not data.
"""

import errno
import os
import stat
from dataclasses import dataclass

from .errors import PeError
from .output_rule import note_read
from .dims import numel

try:
    import resource
except ImportError:  # not Unix
    resource = None


class LimitError(PeError):
    """A value or an input beyond one of pe's limits."""


class NotRegularFile(PeError):
    """A path pe would read that is a FIFO, device, socket, directory or symlink loop."""


def cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def usable_memory():
    """Bytes of memory this process may use: the physical memory, or less where an address-space
    rlimit (ulimit -v) or a cgroup's memory.max says so (4 GiB where the system does not say)."""
    try:
        sizes = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    except (AttributeError, ValueError, OSError):
        sizes = [4 << 30]
    if resource is not None:
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            sizes.append(soft)
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            value = f.read().strip()
        if value.isdigit():
            sizes.append(int(value))
    except OSError:
        pass
    return min(sizes)


@dataclass(frozen=True)
class Limit:
    env: str  # the environment variable that sets it
    default: object  # an int, or a function of nothing giving one
    what: str  # what it bounds, for messages and docs/LIMITS.md
    derived: str  # how the default is derived


GiB = 1 << 30
LIMITS = {
    "data_bytes": Limit(
        "PE_MAX_DATA_BYTES",
        lambda: usable_memory() // 2,
        "bytes of one data file's arrays (.npy, .npz members together, IDX, MultiSlot, CSV)",
        "half this machine's usable memory",
    ),
    "unpack_ratio": Limit(
        "PE_MAX_UNPACK_RATIO",
        100,
        "times its archive's size that an archive member above 64 MiB may unpack to",
        "real datasets' members unpack to at most a few times their archive",
    ),
    "model_ops": Limit("PE_MAX_MODEL_OPS", 100_000, "ops in one model file (all blocks)", "far above any real model"),
    "model_vars": Limit(
        "PE_MAX_MODEL_VARS", 300_000, "variables in one model file (all blocks)", "far above any real model"
    ),
    "model_blocks": Limit("PE_MAX_MODEL_BLOCKS", 10_000, "blocks in one model file", "far above any real model"),
    "block_depth": Limit(
        "PE_MAX_BLOCK_DEPTH",
        64,
        "nesting of a model's sub-blocks (a While in an IfElse ...)",
        "far above any real model",
    ),
    "devices": Limit(
        "PE_MAX_DEVICES",
        lambda: max(64, 8 * cores()),
        "devices of one process (devices, --devices, CPU_NUM)",
        "8 per core, at least 64",
    ),
    "threads": Limit(
        "PE_MAX_THREADS",
        lambda: max(64, 16 * cores()),
        "threads of one executor (exec_strategy.num_threads, thread_num, a Dataset's threads)",
        "16 per core, at least 64",
    ),
    "processes": Limit(
        "PE_MAX_PROCESSES",
        lambda: max(1, min(max(8, 4 * cores()), usable_memory() // (256 << 20))),
        "processes one command starts (--np, pe launch), trainers (num_trainers)",
        "4 per core, at least 8, at most one per 256 MiB of memory",
    ),
    "layer_width": Limit(
        "PE_MAX_LAYER_WIDTH",
        1_000_000,
        "units of one layer a model file's features make (an encoder's size, the combiner's, a filter count)",
        "far above any real model",
    ),
    "feature_layers": Limit(
        "PE_MAX_FEATURE_LAYERS",
        1_000,
        "fc layers of a model file's combiner (combiner.layers)",
        "far above any real model",
    ),
    "parameters": Limit(
        "PE_MAX_PARAMETERS",
        lambda: max(1, usable_memory() // 16),
        "parameters a model file's features make (float32 weights, gradients and two optimizer moments)",
        "a sixteenth of this machine's usable memory (16 bytes a parameter)",
    ),
    "vocabulary": Limit(
        "PE_MAX_VOCABULARY",
        1_000_000,
        "entries of one fitted vocabulary (a category or text feed's, in preprocessing.json)",
        "far above a real vocabulary (a large language's is a few hundred thousand words)",
    ),
    "classes": Limit(
        "PE_MAX_CLASSES", 100_000, "classes of one label feed (in preprocessing.json)", "far above a real classifier's"
    ),
    "feed_columns": Limit(
        "PE_MAX_FEED_COLUMNS",
        100_000,
        "values per sample of one numeric feed (its columns and statistics in preprocessing.json)",
        "far above a real table's width",
    ),
    "text_length": Limit(
        "PE_MAX_TEXT_LENGTH",
        100_000,
        "tokens kept per text sample (max_length)",
        "far above a real model's sequence length",
    ),
}


def limit(name):
    """The value of the limit ``name`` (a key of LIMITS): its environment variable, else its default."""
    spec = LIMITS[name]
    value = os.environ.get(spec.env)
    if value is not None:
        try:
            n = int(value)
            if n < 1:
                raise ValueError
            return n
        except ValueError:
            raise LimitError(f"{spec.env}={value!r} is not a positive integer") from None
    return spec.default() if callable(spec.default) else spec.default


def check(name, value, what):
    """Raises LimitError when ``value`` exceeds the limit ``name``; ``what`` names the key or file
    ("--np", "model.pdmodel: ops"). Returns ``value``."""
    most = limit(name)
    if value > most:
        spec = LIMITS[name]
        raise LimitError(
            f"{what} is {value:,}, above pe's limit of {most:,} {spec.what.split(' (')[0]} "
            f"({_source(spec)}); lower it, or if it is meant, raise the limit with {spec.env}=N"
        )
    return value


def check_bytes(nbytes, what):
    """``check("data_bytes")`` with the sizes in readable units."""
    most = limit("data_bytes")
    if nbytes > most:
        raise LimitError(
            f"{what} needs {_size(nbytes)} of memory, above pe's limit of {_size(most)} for one data "
            f"file or batch ({_source(LIMITS['data_bytes'])}); if that is meant, raise the limit with "
            f"PE_MAX_DATA_BYTES=N"
        )
    return nbytes


def _source(spec):
    return f"set by {spec.env}" if spec.env in os.environ else spec.derived


def _size(n):
    for unit, scale in (("TiB", 1 << 40), ("GiB", GiB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n} bytes"


def file_kind(path):
    """None for a regular file (after symlinks); else what it is: 'a directory', 'a FIFO',
    'a device', 'a socket', 'a symlink loop', 'missing'. Every reader asks this first, so the path
    is noted as an input of the command here (output_rule.note_read: no output may replace it)."""
    note_read(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return "a symlink loop" if e.errno == errno.ELOOP else "missing"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def regular_file(path, what="file"):
    """``path`` when it is a regular file (or a symlink to one); else NotRegularFile, one line
    saying what it is. A missing path raises FileNotFoundError, for the caller to word."""
    kind = file_kind(path)
    note_read(path, what)
    if kind == "missing":
        raise FileNotFoundError(errno.ENOENT, f"no such {what}", path)
    if kind is not None:
        raise NotRegularFile(f"{path} is {kind}, not a regular file, so pe does not read it as a {what}")
    return path


def refuse_special(path, what="file"):
    """NotRegularFile when ``path`` is a FIFO, a device, a socket or a symlink loop; nothing when it is
    a regular file, a directory or missing. Called before a reader says "does not exist" of a path it
    tested with ``os.path.isfile`` / ``isdir`` (false for those too), so the message says what it is."""
    kind = file_kind(path)
    if kind not in (None, "missing", "a directory"):
        raise NotRegularFile(f"{path} is {kind}, not a regular file or a directory, so pe does not read it as a {what}")


def read_regular_file(path, what, label):
    """The bytes of the regular file ``path`` (a FIFO or a device is refused unread: NotRegularFile),
    its size checked against pe's data limit first (``label`` names it in that error). A missing
    or unreadable file raises OSError, for the caller to word."""
    regular_file(path, what)
    check_bytes(os.path.getsize(path), label)
    with open(path, "rb") as f:
        return f.read()


def check_blocks(parents, ops, where, variables=0):
    """The block tree of a model file read from disk: ``parents`` holds each block's parent index
    (block 0's is ignored), ``ops`` each block's op count, ``variables`` the variables of all blocks.
    Every parent must come before its block (so parents never form a cycle, which would make variable
    lookups loop forever), and the counts and the nesting stay within the limits."""
    check("model_blocks", len(parents), f"{where}: the block count")
    check("model_ops", sum(ops), f"{where}: the op count")
    check("model_vars", variables, f"{where}: the variable count")
    depth = [0] * len(parents)
    for i in range(1, len(parents)):
        p = parents[i]
        if not isinstance(p, int) or not 0 <= p < i:
            raise PeError(
                f"{where}: block {i} names block {p} as its parent; a parent must be an earlier block "
                f"(a cycle or a missing block): the model file is damaged"
            )
        depth[i] = depth[p] + 1
        check("block_depth", depth[i], f"{where}: the nesting depth of block {i}")


def check_dims(dims, where, known=False, itemsize=4):
    """A variable's dims from a model file: sizes >= 0, or -1 (unknown: the batch) unless ``known``
    (a parameter's). Paddle stores other negative dims for temporaries whose shape is a product
    with an unknown one (-4 for -1 x 4); only parameters and feeds are checked. The product of the
    known dims (in Python's ints: [2^32, 2^32] is 2^64, not int64's 0) times ``itemsize`` is
    within pe's data limit."""
    lowest = 0 if known else -1
    bad = [d for d in dims if not isinstance(d, int) or isinstance(d, bool) or d < lowest]
    if bad:
        raise PeError(
            f"{where}: dims {list(dims)} hold {bad[0]}; {'a parameter' if known else 'a feed'}'s "
            f"dimension is {'a size >= 0' if known else '-1 (unknown) or a size >= 0'}, "
            f"so the model file is damaged"
        )
    check_bytes(numel(d for d in dims if d >= 0) * itemsize, f"{where}: an array of dims {list(dims)}")
    return dims

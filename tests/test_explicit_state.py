"""Explicit state instead of tricks (issue 95 item 3), beside tests/test_architecture.py: no pe_cli source
keeps a flag in an op's attributes under a key beginning with "_" (an attribute no Paddle op has, which a
saved program loses and a reader cannot find in the op's definition), and none decides anything by
counting references (``sys.getrefcount``) or by looking at the call stack (``sys._getframe``). What pe
needs to know about an op beyond its attributes is a field of the Operator (``fwd_index``, ``run_state``,
``zero_dim``, ``paddle2``)
or of the kernel's context (``input_names``, ``op_state``, ``zero_dim``, ``paddle2``: pe_cli/kernels/context.py).

The sites not converted yet are named below, each with what it is; the lists only shrink: a site that is
gone must be taken off its list (the test fails on a stale entry too)."""

import ast
import os
import re

from paths import REPO

ROOT = os.path.join(REPO, "pe_cli")

# attribute keys beginning with "_" still used, file -> keys (none left: issue 95 item 3)
UNDERSCORE_ATTRS = {}

# calls of sys.getrefcount / sys._getframe still made, file -> count
STACK_AND_REFCOUNTS = {
    "pe_cli/framework/source.py": 2,  # the op's source line; called_function: a message's name
    "pe_cli/data/reader_processes.py": 1,  # a warning's stacklevel (the user's line)
    "pe_cli/kernels/cuda/_simulator.py": 1,  # the CUDA simulator's shared arrays, one per call site
}

_ATTRS_NAME = re.compile(r"attrs$|^attrs")
_OP_MAKERS = {"append_op", "_insert_op", "_prepend_op", "op", "append", "fused_op", "Operator"}
_KEY = re.compile(r"_[a-z]")


def _sources():
    for base, _, files in os.walk(ROOT):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(base, name)
                yield os.path.relpath(path, REPO), ast.parse(open(path, encoding="utf-8").read(), path)


def _attrs_expr(node, aliases=frozenset()):
    """Whether ``node`` is an op's attributes: a name or attribute called ``attrs`` (``op.attrs``,
    ``ctx.attrs``, ``fwd_attrs``), a call of a function whose name ends with ``attrs``, or a name the
    module gave one of those (``a = ctx.attrs``: ``aliases``)."""
    if isinstance(node, ast.Call):
        node = node.func
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(_ATTRS_NAME.search(name)) or (isinstance(node, ast.Name) and name in aliases)


def _aliases(tree):
    """The names a module assigns an op's attributes to (``a = ctx.attrs``)."""
    return frozenset(
        t.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _attrs_expr(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    )


def _key(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _KEY.match(node.value):
        return node.value
    return None


def _dict_keys(node):
    return {k for k in map(_key, node.keys if isinstance(node, ast.Dict) else ()) if k}


def _underscore_keys(tree):
    """The "_..." keys the module reads or writes in an op's attributes."""
    keys, aliases = set(), _aliases(tree)

    def _names_attrs(node):
        return _attrs_expr(node, aliases)

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _names_attrs(node.value) and _key(node.slice):
            keys.add(_key(node.slice))  # attrs["_x"], attrs["_x"] = v
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "setdefault", "pop") and _names_attrs(node.func.value) and node.args:
                keys |= {_key(node.args[0])} - {None}  # attrs.get("_x")
            if node.func.attr in ("update",) and _names_attrs(node.func.value):
                keys |= set().union(
                    *map(_dict_keys, node.args), {kw.arg for kw in node.keywords if _KEY.match(kw.arg or "")}
                )
        if isinstance(node, ast.Compare) and any(_names_attrs(c) for c in node.comparators):
            keys |= {_key(node.left)} - {None}  # "_x" in attrs
        if isinstance(node, ast.Call):  # append_op(..., {"_x": v}), attrs={"_x": v}
            func = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if func in _OP_MAKERS:
                keys |= set().union(*map(_dict_keys, node.args))
            keys |= set().union(*(_dict_keys(kw.value) for kw in node.keywords if kw.arg == "attrs"))
        if isinstance(node, ast.Assign) and any(_names_attrs(t) for t in node.targets):
            keys |= _dict_keys(node.value)  # attrs = {"_x": v}
        if isinstance(node, ast.FunctionDef) and _ATTRS_NAME.search(node.name):
            for ret in ast.walk(node):  # def matmul_v1_attrs(...): return {"_x": v}
                if isinstance(ret, ast.Return) and ret.value is not None:
                    keys |= _dict_keys(ret.value)
    return keys


def _stack_and_refcount_calls(tree):
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ("getrefcount", "_getframe")
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def test_no_op_attribute_key_begins_with_an_underscore():
    found = {path: keys for path, tree in _sources() if (keys := _underscore_keys(tree))}
    new = {
        p: sorted(k - UNDERSCORE_ATTRS.get(p, set())) for p, k in found.items() if k - UNDERSCORE_ATTRS.get(p, set())
    }
    assert not new, (
        f"op attributes under a key beginning with '_' (declare the attribute in the op's definition, or "
        f"make it a field of the Operator or of the kernel's context): {new}"
    )
    stale = {p: sorted(k - found.get(p, set())) for p, k in UNDERSCORE_ATTRS.items() if k - found.get(p, set())}
    assert not stale, f"converted: take these off UNDERSCORE_ATTRS: {stale}"


def test_nothing_counts_references_or_reads_the_call_stack():
    found = {path: n for path, tree in _sources() if (n := _stack_and_refcount_calls(tree))}
    new = {p: n for p, n in found.items() if n > STACK_AND_REFCOUNTS.get(p, 0)}
    assert not new, f"sys.getrefcount / sys._getframe called (say what is meant explicitly instead): {new}"
    stale = {p: (n, found.get(p, 0)) for p, n in STACK_AND_REFCOUNTS.items() if found.get(p, 0) < n}
    assert not stale, f"fewer calls than listed (listed, found): lower STACK_AND_REFCOUNTS: {stale}"


def test_the_scan_finds_what_it_forbids():
    tree = ast.parse(
        "op.attrs['_a'] = 1\nattrs.get('_b')\nctx.attrs.setdefault('_c', [0])\n"
        "helper.append_op('t', {}, {}, {'_d': 1})\n'_e' in op.attrs\nx = op.attrs.get('keep_dim')\n"
        "a = ctx.attrs\na.get('_g')\nother.get('_h')\n"
        "def v1_attrs(a):\n    return {'_f': False}\nsys._getframe(1)\nsys.getrefcount(x)\n"
    )
    assert _underscore_keys(tree) == {"_a", "_b", "_c", "_d", "_e", "_f", "_g"}
    assert _stack_and_refcount_calls(tree) == 2

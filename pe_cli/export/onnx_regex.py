"""The RE2 form (onnxruntime's com.microsoft Tokenizer ``tokenexp``) of a tokenizer pattern pe runs
(data/patterns.py's safe subset), where the two engines then find the same tokens in every text.

The pattern is rewritten from Python's parse of it, never passed through: each one-character part
(a literal, ``.``, a class such as ``\\w``, ``[^\\w\\s]``, under the pattern's flags ``(?i)``,
``(?a)``, ``(?s)``) becomes an RE2 class of exactly the code points Python's ``re`` matches with it
(data/patterns.py's ``char_mask``, a sweep of all of Unicode: RE2's ``\\w``, ``\\d``, ``\\s`` and
case folding are ASCII or differ); groups become ``(?:...)``; repeats and anchors their RE2 forms.

onnxruntime runs RE2 with leftmost-longest matching and drops empty matches, where Python takes the
first way that matches and ``finditer`` keeps empty ones. In the safe subset the next character
decides every choice but one: whether the match ends where it could (data/patterns.py, rule 1). A
greedy repeat and an alternation that tries its non-empty alternatives first then take the longest
match, as RE2 does. So a pattern stays outside the graph (NotInGraph, naming the construct) when
it holds a lazy (``+?``), possessive or atomic repeat, an alternation with an empty-matching
alternative before another, a pattern that can match nothing at all (pe keeps its empty tokens),
``$`` without ``(?m)`` (Python's also matches before a final newline), ``\\b``/``\\B`` (RE2's are
ASCII), or a count above RE2's 1000.
"""

import functools

import numpy as np

from ..data.patterns import char_mask, safe_pattern, sre, sre_parse

RE2_MAX_COUNT = 1000
_CHAR = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)
_NEVER = "[^\\x{0}-\\x{10ffff}]"  # a class no character is in (Python's [^\s\S])


class NotInGraph(ValueError):
    """A pattern RE2 cannot run as Python does; the message names the construct."""


@functools.lru_cache(maxsize=16)
def re2_pattern(pattern):
    """The RE2 pattern that tokenizes as ``re.finditer(pattern)``'s whole matches do (the pattern in
    the safe subset: UnsafePattern otherwise), or NotInGraph."""
    safe_pattern(pattern)
    parsed = sre_parse.parse(pattern)
    items = list(parsed)
    if _nullable(items):
        raise NotInGraph("it can match an empty string (pe keeps those empty tokens; onnxruntime drops them)")
    return _Writer(parsed.state).sequence(items)


def character_class(mask):
    """An RE2 class of the code points where ``mask`` (bool, over all of Unicode) is true; the
    surrogates, which no UTF-8 text holds, left out."""
    mask = np.array(mask, dtype=bool)
    mask[0xD800:0xE000] = False
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.view(np.int8), [0]])))
    if not edges.size:
        return _NEVER
    parts = (
        f"\\x{{{a:x}}}" if a == b - 1 else f"\\x{{{a:x}}}-\\x{{{b - 1:x}}}" for a, b in zip(edges[::2], edges[1::2])
    )
    return "[" + "".join(parts) + "]"


def _nullable(items):
    return all(_node_nullable(op, av) for op, av in items)


def _node_nullable(op, av):
    if op in _CHAR:
        return False
    if op == sre.SUBPATTERN:
        return _nullable(list(av[-1]))
    if op == sre.BRANCH:
        return any(_nullable(list(b)) for b in av[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) or op == getattr(sre, "POSSESSIVE_REPEAT", None):
        return av[0] == 0 or _nullable(list(av[2]))
    if op == getattr(sre, "ATOMIC_GROUP", None):
        return _nullable(list(av))
    return True  # an anchor matches no character


class _Writer:
    def __init__(self, state):
        self.state = state
        self.multiline = bool(state.flags & sre.SRE_FLAG_MULTILINE)

    def sequence(self, items):
        return "".join(self.node(op, av) for op, av in items)

    def node(self, op, av):
        if op in _CHAR:
            return character_class(char_mask(self.state, (op, av)))
        if op == sre.SUBPATTERN:
            return f"(?:{self.sequence(list(av[-1]))})"
        if op == sre.BRANCH:
            return self.branch([list(b) for b in av[1]])
        if op == sre.MAX_REPEAT:
            return self.repeat(*av)
        if op == sre.AT:
            return self.anchor(av)
        raise NotInGraph(f"it holds {_NAMES.get(op, str(op).lower())}, which RE2 (leftmost-longest) runs otherwise")

    def branch(self, alternatives):
        for b in alternatives[:-1]:
            if _nullable(b):
                raise NotInGraph(
                    "an alternative that can match nothing comes before another (x(?:|a)): Python "
                    "takes it first, RE2 the longer; put it last"
                )
        return "(?:" + "|".join(self.sequence(b) for b in alternatives) + ")"

    def repeat(self, lo, hi, body):
        if lo > RE2_MAX_COUNT or (hi != sre.MAXREPEAT and hi > RE2_MAX_COUNT):
            raise NotInGraph(f"a repeat count is above RE2's {RE2_MAX_COUNT}")
        if hi == sre.MAXREPEAT:
            count = {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
        else:
            count = "?" if (lo, hi) == (0, 1) else f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
        return f"(?:{self.sequence(list(body))}){count}"

    def anchor(self, at):
        if at == sre.AT_BEGINNING:
            return "(?m:^)" if self.multiline else "\\A"
        if at == sre.AT_BEGINNING_STRING:
            return "\\A"
        if at == sre.AT_END and self.multiline:
            return "(?m:$)"
        if at == sre.AT_END_STRING:
            return "\\z"
        if at == sre.AT_END:
            raise NotInGraph("it holds $ without (?m): Python's also matches before a final newline; write \\Z")
        raise NotInGraph("it holds \\b or \\B, whose word characters are ASCII in RE2")


_NAMES = {sre.MIN_REPEAT: "a lazy repeat (+?, *?, ??)"}
_NAMES.update(
    {
        getattr(sre, k): v
        for k, v in (("POSSESSIVE_REPEAT", "a possessive repeat (a++)"), ("ATOMIC_GROUP", "an atomic group ((?>...))"))
        if hasattr(sre, k)
    }
)

"""Regular expressions a text feed's tokenizer may run (``tokenizer: regex``, ``pattern:``): only
those that find every token of a text in time linear in its length (times the pattern's size).

Python's ``re`` backtracks: ``(a+)+$`` on 25 a's and a b tries 2^25 ways (11 s); ``[a-z]+1`` on a
100,000-letter word retries from every letter (15 s); and a pattern comes from a config or from a
``preprocessing.json`` someone may have edited. pe compiles a pattern only when
1. at every choice the matcher makes (one more repetition or stop; which alternative), the next
   character decides: the characters that can start one option are disjoint from those that can
   start every other (what follows a repeat counts as the option "stop"), so a wrong option fails
   on its first character and no match attempt backtracks more than a step at a time; and
2. nothing that can fail follows a repeat that can run more than MAX_SPAN times (only optional
   parts, or the pattern's end), and no repeat must run more than MAX_SPAN times, so an attempt
   that fails fails within MAX_SPAN steps of its start, and one that succeeds reads only
   its own match (and what its optional parts tried).
Refused, in one line naming the construct: backreferences, conditionals, lookaround; a repeat of
something that can match nothing (``(a*)*``); a repeat followed by a character it can also match
(``(a+)+``, ``\\w+\\w``, ``.*x``); alternatives that can start with the same character (``a|ab``:
write ``ab?``); a repeat followed by something that can fail (``\\d+\\.\\d+``: write
``\\d+(?:\\.\\d+)?``; ``\\b\\w+\\b``: ``\\w+``); local flags (``(?i:...)``; ``(?i)`` for the whole
pattern is fine); patterns over MAX_LENGTH characters; a pattern that can match the empty string
(``''``, ``a*``: every text would be empty tokens). Token patterns pass: ``[a-z]+``,
``\\w+|[^\\w\\s]``, ``[a-z]+(?:'[a-z]+)?``, ``\\d+(?:\\.\\d+)?``, ``\\w+(?:-\\w+)*``, ``\\S+``, ``#\\w+``.

The sets of characters are compared over all of Unicode: each class is matched against a string of
every code point once (a numpy mask, cached), so ``\\w`` and ``[^\\w\\s]`` are known disjoint exactly.
"""

import functools
import re

import numpy as np

try:  # Python 3.11+
    from re import _compiler as sre_compile, _constants as sre, _parser as sre_parse
except ImportError:  # Python 3.8 - 3.10
    import sre_compile
    import sre_constants as sre
    import sre_parse

MAX_LENGTH = 500
MAX_SPAN = 64  # a repeat that may run more often than this is unbounded
_CHAR = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT) + ((sre.POSSESSIVE_REPEAT,) if hasattr(sre, "POSSESSIVE_REPEAT") else ())
_REFUSED = {
    sre.GROUPREF: "a backreference (\\1, (?P=name))",
    sre.GROUPREF_EXISTS: "a conditional (?(1)...)",
    sre.ASSERT: "a lookahead or lookbehind ((?=...), (?<=...))",
    sre.ASSERT_NOT: "a negative lookahead or lookbehind ((?!...), (?<!...))",
}


class UnsafePattern(ValueError):
    """A pattern outside the subset pe runs; the message names the construct."""


@functools.lru_cache(maxsize=64)
def safe_pattern(pattern):
    """``re.compile(pattern)`` when the pattern is in the safe subset; else UnsafePattern (or
    re.error / TypeError for a pattern that is not a regular expression)."""
    if not isinstance(pattern, str):
        raise TypeError(f"a pattern is a string, got {type(pattern).__name__}")
    if len(pattern) > MAX_LENGTH:
        raise UnsafePattern(f"it is {len(pattern)} characters long; pe takes patterns of at most {MAX_LENGTH}")
    compiled = re.compile(pattern)
    parsed = sre_parse.parse(pattern)
    _Check(parsed.state).sequence(list(parsed), [], True, (1, 1))
    if parsed.getwidth()[0] == 0:
        raise UnsafePattern(
            "it can match the empty string, so a text would become empty tokens; make every "
            "token at least one character ('a+', not 'a*')"
        )
    return compiled


class _Check:
    def __init__(self, state):
        self.state = state

    def sequence(self, items, follow, sure, bound):
        """Checks ``items`` (parsed nodes) followed by the characters ``follow`` (char nodes); ``sure``:
        whether what follows cannot fail; ``bound``: (at most, at least) how often the enclosing repeats
        run it."""
        for i, node in enumerate(items):
            rest, nullable = self.first(items[i + 1 :])
            rest_sure = sure and all(self.cannot_fail(n) for n in items[i + 1 :])
            self.node(node, rest + follow if nullable else rest, rest_sure, bound)

    def node(self, node, follow, sure, bound):
        op, av = node
        if op in _REFUSED:
            raise UnsafePattern(f"it holds {_REFUSED[op]}, which pe does not run")
        if op == sre.SUBPATTERN:
            self.local_flags(av)
            self.sequence(list(av[-1]), follow, sure, bound)
        elif op == getattr(sre, "ATOMIC_GROUP", None):
            self.sequence(list(av), follow, sure, bound)
        elif op == sre.BRANCH:
            self.branch(av[1], follow, sure, bound)
        elif op in _REPEATS:
            self.repeat(op, av, follow, sure, bound)
        elif op not in _CHAR and op != sre.AT:
            raise UnsafePattern(f"it holds {str(op).lower()}, which pe does not run")

    def branch(self, branches, follow, sure, bound):
        starts = []
        for b in branches:
            self.sequence(list(b), follow, sure, bound)
            chars, nullable = self.first(list(b))
            starts.append(chars + follow if nullable else chars)
        for i, a in enumerate(starts):
            for b in starts[i + 1 :]:
                both = self.overlap(a, b)
                if both is not None:
                    raise UnsafePattern(
                        f"two alternatives (a|b) can both start with {both}, which can backtrack "
                        f"for exponential time; merge them (a|ab -> ab?)"
                    )

    def repeat(self, op, av, follow, sure, bound):
        lo, hi, body = av
        chars, nullable = self.first(list(body))
        if nullable and hi > 1:
            raise UnsafePattern(
                "it repeats something that can match nothing ((a*)*, (a?)+), which can backtrack for exponential time"
            )
        most, least = bound[0] * hi if hi != sre.MAXREPEAT else MAX_SPAN + 1, bound[1] * lo
        if least > MAX_SPAN:
            raise UnsafePattern(
                f"a repeat must match {least} times (with its enclosing repeats), above pe's "
                f"{MAX_SPAN}: every failed try could read that far; use smaller counts"
            )
        bound = (min(most, MAX_SPAN + 1), least)
        self.sequence(list(body), chars + follow if hi > 1 else follow, sure and lo <= 1, bound)
        both = self.overlap(chars, follow) if hi > lo and op != getattr(sre, "POSSESSIVE_REPEAT", None) else None
        if both is not None:
            raise UnsafePattern(
                f"a repeat can be followed by a character it also matches ({both}), as in (a+)+, "
                f"\\w+\\w or .*x, which can backtrack for exponential or polynomial time; start what "
                f"follows a repeat with a character it cannot match ([a-z]+(?:'[a-z]+)?)"
            )
        if most > MAX_SPAN and not sure:
            raise UnsafePattern(
                "a repeat is followed by something that can fail to match (\\w+x, [a-z]+$, "
                "\\d+\\.\\d+), which takes time quadratic in a long text's length; end the pattern "
                "with the repeat and optional parts (\\d+(?:\\.\\d+)?)"
            )

    def cannot_fail(self, node):
        """Whether ``node`` always matches (the empty string at least): an optional part, a group of them."""
        op, av = node
        if op in _REPEATS:
            return av[0] == 0
        if op == sre.SUBPATTERN:
            return all(self.cannot_fail(n) for n in av[-1])
        if op == getattr(sre, "ATOMIC_GROUP", None):
            return all(self.cannot_fail(n) for n in av)
        if op == sre.BRANCH:
            return any(all(self.cannot_fail(n) for n in b) for b in av[1])
        return False

    def local_flags(self, av):
        if len(av) == 4 and (av[1] or av[2]):
            raise UnsafePattern(
                "it sets flags for part of the pattern ((?i:...)); set them for the whole pattern "
                "((?i) at its start) or not at all"
            )

    def first(self, items):
        """(the char nodes that can start ``items``, whether ``items`` can match nothing)."""
        chars = []
        for op, av in items:
            if op in _CHAR:
                return chars + [(op, av)], False
            if op == sre.SUBPATTERN:
                c, nullable = self.first(list(av[-1]))
            elif op == getattr(sre, "ATOMIC_GROUP", None):
                c, nullable = self.first(list(av))
            elif op == sre.BRANCH:
                parts = [self.first(list(b)) for b in av[1]]
                c, nullable = [x for p in parts for x in p[0]], any(p[1] for p in parts)
            elif op in _REPEATS:
                c, nullable = self.first(list(av[2]))
                nullable = nullable or av[0] == 0
            else:  # an anchor (^, $, \b) matches no character
                c, nullable = [], True
            chars += c
            if not nullable:
                return chars, False
        return chars, True

    def overlap(self, a, b):
        """A character both char-node lists can match (as shown in a message), or None."""
        for x in _unique(a):
            for y in _unique(b):
                both = np.flatnonzero(char_mask(self.state, x) & char_mask(self.state, y))
                if both.size:
                    return ascii(chr(both[0]))
        return None


def _unique(nodes):
    return list({repr(n): n for n in nodes}.values())


_MASKS = {}
_MAX_MASKS = 32  # 1.1 MB each: at most ~36 MB held, whatever the patterns


def char_mask(state, node):
    """Which code points the one-character node (a literal, ``.``, a class, under the pattern's flags
    ``state.flags``) matches, as Python's ``re`` decides: a bool array over all of Unicode (cached)."""
    key = (repr(node), state.flags)
    if key not in _MASKS:
        if len(_MASKS) >= _MAX_MASKS:
            _MASKS.clear()
        _MASKS[key] = _class_mask(sre_compile.compile(sre_parse.SubPattern(state, [node])))
    return _MASKS[key]


def _class_mask(compiled):
    marked = compiled.sub("\x00", _every_character())
    mask = np.frombuffer(marked.encode("utf-32-le", "surrogatepass"), np.uint32) == 0
    mask[0] = compiled.fullmatch("\x00") is not None
    return mask


@functools.lru_cache(maxsize=1)
def _every_character():
    return "".join(map(chr, range(0x110000)))

"""Screening a rule's regex with the words every match of it must contain.

Applying the rule pack was two thirds of the rules stage: 31 rules, 105 case-insensitive
patterns, each searched in every segment, where a typical segment holds the words of very few
of them. CPython's regex engine tries such a pattern at every position of the text, while
`needle in text` is a fast substring scan. So each pattern carries the literal strings one of
which any match must contain, read from its parsed form once when the pack is compiled, and a
segment that contains none of them is not searched: the answer is the same, found sooner.

Only what is certainly required counts (a literal run in the pattern's main sequence, a group
or a repeat of at least one, every branch of an alternation); lookarounds, optional parts and
classes wider than one letter count for nothing. A pattern with no such literal is always
searched. Needles are lower-case ASCII and texts are compared in lower case, after the four
other characters IGNORECASE equates with an ASCII letter (dotted and dotless i, the long s,
the Kelvin sign) are mapped to it.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]  # the parsed form of a pattern
from re import _parser as sre_parse  # type: ignore[attr-defined]

_Needles = frozenset[str]
ASCII_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The non-ASCII characters that an IGNORECASE pattern's ASCII letter also matches."""


def folded(text: str) -> str:
    """`text` as needles are compared with it."""
    return text.translate(ASCII_TWINS).lower()


@dataclass(frozen=True)
class ScreenedPattern:
    """A compiled pattern and its needles (empty: no screen, always searched)."""

    regex: re.Pattern[str]
    needles: tuple[str, ...]

    def found_in(self, text: str, lowered: str) -> bool:
        """Whether the pattern matches `text`; `lowered` is folded(text)."""
        if self.needles and not any(needle in lowered for needle in self.needles):
            return False
        return self.regex.search(text) is not None


class SegmentNeedles:
    """Which of a document's segments contain each needle.  Testing every needle of every
    pattern in every segment is itself most of the cost once the searches are screened (a
    generator step per test, ~28,000 tests a contract); one scan of the whole document per
    needle, jumping to the next segment at each hit, finds the same segments."""

    def __init__(self, lowered: Sequence[str]) -> None:
        """`lowered`: each segment's folded() text, in order."""
        self._text = "\x00".join(lowered)  # no needle holds NUL, so none spans two segments
        self._starts = [0]
        for text in lowered:
            self._starts.append(self._starts[-1] + len(text) + 1)
        self._every = range(len(lowered))
        self._found: dict[str, frozenset[int]] = {}

    def containing(self, needle: str) -> frozenset[int]:
        found = self._found.get(needle)
        if found is None:
            hits, at = [], self._text.find(needle)
            while at != -1:
                segment = bisect_right(self._starts, at) - 1
                hits.append(segment)
                at = self._text.find(needle, self._starts[segment + 1])
            found = self._found[needle] = frozenset(hits)
        return found

    def candidates(self, patterns: Iterable[ScreenedPattern]) -> Iterable[int]:
        """In order, the segments where one of `patterns` may match: every segment when one of
        them has no screen."""
        segments: set[int] = set()
        for pattern in patterns:
            if not pattern.needles:
                return self._every
            for needle in pattern.needles:
                segments |= self.containing(needle)
        return sorted(segments)


def screened(regex: re.Pattern[str]) -> ScreenedPattern:
    needles = _required(sre_parse.parse(regex.pattern, regex.flags))
    return ScreenedPattern(regex, tuple(sorted(needles)) if needles else ())


def _required(sequence) -> _Needles | None:  # type: ignore[no-untyped-def]
    """The best set of strings one of which every match of the parsed `sequence` contains
    (best: the longest shortest member), or None when nothing is certain."""
    best: _Needles | None = None
    run: list[str] = []

    def consider(needles: _Needles | None) -> None:
        nonlocal best
        if needles and all(needles) and (best is None or min(map(len, needles)) > min(map(len, best))):
            best = needles

    def end_run() -> None:
        if run:
            consider(frozenset({"".join(run)}))
            run.clear()

    for op, value in sequence:
        letter = _one_letter(op, value)
        if letter is not None:
            run.append(letter)
            continue
        end_run()
        if op is sre.SUBPATTERN:
            consider(_required(value[-1]))
        elif op is sre.ATOMIC_GROUP:
            consider(_required(value))
        elif op is sre.BRANCH:
            branches = [_required(branch) for branch in value[1]]
            if all(branches):
                consider(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and value[0] >= 1:
            consider(_required(value[2]))
        # anchors, \b, lookarounds, wide classes, backreferences: nothing certain, and a run ends
    end_run()
    return best


def _one_letter(op, value) -> str | None:  # type: ignore[no-untyped-def]
    """The lower-case ASCII character a literal (or a class of one letter in either case) stands for."""
    if op is sre.LITERAL and value < 128:
        return chr(value).lower()
    if op is sre.IN and value and all(kind is sre.LITERAL and code < 128 for kind, code in value):
        letters = {chr(code).lower() for _, code in value}
        if len(letters) == 1:
            return letters.pop()
    return None

"""Page text from lines of words, one rule for PDF text layers and for OCR.

Both give lines with word boxes; both must come out with `\\n` line ends and a blank line
where a paragraph starts, because the segmenter splits on blank lines and a page must split
the same way whether it was extracted or OCRed.
"""
from __future__ import annotations

from dataclasses import dataclass

from pipelines.datamodel import Box, Word

PARAGRAPH_PITCH_RATIO = 1.4
"""A line starts a paragraph when its distance to the previous line is this many times the
page's usual line pitch; CUAD filings use about 2.0 between paragraphs and 1.0 inside."""
_MIN_STEP_OF_HEIGHT = 0.8  # a step shorter than this share of a line's height is no new line


@dataclass
class Line:
    """One line of a raw page text: its span, its words (raw offsets) and its vertical extent."""

    start: int
    end: int
    words: list[tuple[int, int, Box]]

    @property
    def extent(self) -> tuple[float, float] | None:
        """(top, bottom) over the line's words, None for a line without words."""
        if not self.words:
            return None
        return min(box[1] for _, _, box in self.words), max(box[3] for _, _, box in self.words)


def assemble(raw: str, lines: list[Line]) -> tuple[str, list[Word]]:
    """Join lines with `\\n` (blank line before a paragraph) and move words to the new offsets."""
    breaks = paragraph_starts([line.extent for line in lines])
    pieces: list[str] = []
    words: list[Word] = []
    offset = 0
    for i, line in enumerate(lines):
        if i:
            separator = "\n\n" if breaks[i] else "\n"
            pieces.append(separator)
            offset += len(separator)
        segment = raw[line.start : line.end]
        shift = offset - line.start
        words.extend(Word(raw[s:e], s + shift, e + shift, box) for s, e, box in line.words)
        pieces.append(segment)
        offset += len(segment)
    return "".join(pieces).rstrip(), words


def paragraph_starts(extents: list[tuple[float, float] | None]) -> list[bool]:
    """Per line, whether a paragraph starts there: its top is further below the previous
    line's top than PARAGRAPH_PITCH_RATIO times the page's usual line pitch.

    `extents` are the lines' (top, bottom) in top-left points, None for lines without words
    (skipped: they already read as blank lines).  The usual pitch is the lower quartile of
    the steps that advance at least a line height, so a page with more paragraph breaks than
    wrapped lines still finds it, and superscripts or split text runs do not shrink it.
    """
    placed = [(i, extent) for i, extent in enumerate(extents) if extent is not None]
    steps = [
        (i, below[0] - above[0])
        for (_, above), (i, below) in zip(placed, placed[1:])
        if below[0] - above[0] >= _MIN_STEP_OF_HEIGHT * (below[1] - below[0])
    ]
    starts = [False] * len(extents)
    if not steps:
        return starts
    pitches = sorted(step for _, step in steps)
    threshold = PARAGRAPH_PITCH_RATIO * pitches[(len(pitches) - 1) // 4]
    for i, step in steps:
        starts[i] = step > threshold
    return starts

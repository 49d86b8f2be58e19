"""Pages as plain JSON values, the only form in which they leave a parsing child process.

The child read a hostile file, so the parent builds `PageText` and `Word` itself from
values of the types it expects, never from pickles.  A word's text is its slice of the page
text (the parsers make them so: pipelines/parsers/layout.py), so only its offsets and box
travel, packed as arrays of machine integers and doubles (base64 in the JSON): written out as
decimal floats, the boxes of a 9-page contract took 23 ms to encode and decode, more than
half the extraction itself; packed, they are exact and take about a millisecond.
"""
from __future__ import annotations

import base64
from array import array
from typing import Any

from pipelines.datamodel import PageText, Word

_SOURCES = ("text-layer", "ocr", "plain")


def page_to_json(page: PageText) -> dict[str, Any]:
    """`page` as JSON values; `ValueError` if a word is not its slice of the page text."""
    spans, boxes = array("q"), array("d")
    for word in page.words:
        if page.text[word.start : word.end] != word.text:
            raise ValueError(f"page {page.number}: word {word.text!r} is not the text at {word.start}:{word.end}")
        spans.extend((word.start, word.end))
        boxes.extend(word.box)
    return {
        "number": page.number, "text": page.text, "source": page.source, "width": page.width, "height": page.height,
        "unreadable_layer": page.unreadable_layer,
        "spans": base64.b64encode(spans.tobytes()).decode("ascii"),
        "boxes": base64.b64encode(boxes.tobytes()).decode("ascii"),
    }


def page_from_json(value: dict[str, Any]) -> PageText:
    """A `PageText` from `page_to_json`'s value; `ValueError` for anything else."""
    source, text = value["source"], value["text"]
    if source not in _SOURCES or not isinstance(text, str):
        raise ValueError(f"not a page: source {source!r}, text of type {type(text).__name__}")
    spans, boxes = array("q"), array("d")
    spans.frombytes(base64.b64decode(value["spans"], validate=True))
    boxes.frombytes(base64.b64decode(value["boxes"], validate=True))
    if len(spans) * 2 != len(boxes):
        raise ValueError(f"not a page: {len(spans) // 2} word spans but {len(boxes) // 4} boxes")
    corners = iter(boxes)
    words = [Word(text[start:end], start, end, box)
             for start, end, box in zip(spans[0::2], spans[1::2], zip(corners, corners, corners, corners))]
    return PageText(number=int(value["number"]), text=text, words=words, source=source,
                    width=float(value["width"]), height=float(value["height"]),
                    unreadable_layer=value.get("unreadable_layer") is True)

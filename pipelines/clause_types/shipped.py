"""The clause types clausemill ships, each with examples found and checked by hand in CUAD's
training contracts (pipelines/clause_types/shipped/*.yaml).

The files hold where each example is (a CUAD text file, character offsets, and a short hash of
the words), never the words: the contracts are The Atticus Project's (CUAD v1, CC BY 4.0), so the
words are read from CUAD's folder when a type is installed, and checked against the hash.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import yaml

SHIPPED = Path(__file__).with_name("shipped")


@dataclass(frozen=True)
class Reference:
    """Where an example is in CUAD: `file` relative to CUAD's folder (txt/...)."""

    file: str
    start: int
    end: int
    sha256: str  # the first 16 hex digits of the words' SHA-256 (UTF-8)

    def read(self, cuad: Path) -> str | None:
        """The words, or None when CUAD's folder does not hold the file; ValueError when the file
        there is not the one the example was read from."""
        path = cuad / self.file
        if not path.is_file():
            return None
        text = path.read_text(encoding="utf-8")[self.start:self.end]
        if hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] != self.sha256:
            raise ValueError(f"{path} characters {self.start}-{self.end} are not the words this example was read "
                             "from: a different copy of CUAD?")
        return text


@dataclass(frozen=True)
class ShippedType:
    slug: str
    name: str
    description: str
    examples: tuple[Reference, ...]
    counter_examples: tuple[Reference, ...]


def shipped_types(folder: Path = SHIPPED) -> list[ShippedType]:
    """Every shipped type, in name order."""
    types = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        refs = {key: tuple(Reference(str(r["file"]), int(r["start"]), int(r["end"]), str(r["sha256"]))
                           for r in data.get(key) or ()) for key in ("examples", "counter_examples")}
        types.append(ShippedType(path.stem, str(data["name"]), " ".join(str(data["description"]).split()),
                                 refs["examples"], refs["counter_examples"]))
    return sorted(types, key=lambda t: t.name)

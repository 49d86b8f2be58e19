"""Taught clause types in an audit (issue 44): their columns beside the shipped model's, from the
same backbone pass.

Every add-on reads each segment's words first (its lexical column and gate).  Its expert then
runs on the backbone states of the segments it gated, taken as the shipped model's batches go by
(ClauseModel._probabilities), so a type costs little more than its expert.  Gated segments the
shipped model's cascade left out are encoded in batches of their own: the int8 backbone
quantizes each batch's activations together, so mixing them into the shipped model's batches
would move CUAD's findings, which stay exactly what they are without add-ons.
"""
from __future__ import annotations

import torch

from models.addons import Addon
from models.backbone import Backbone
from models.candidates import document_findings
from models.lexical import padded_lexical_bag
from pipelines.datamodel import Finding, Segment


class AddonPass:
    """The add-ons of one scoring call: `addons[d]` are document d's, `documents[r]` is row r's
    document, `ids[r]` its word pieces."""

    def __init__(self, addons: list[list[Addon]], documents: list[int], ids: list[list[int]], backbone: Backbone,
                 idf: torch.Tensor) -> None:
        self.union = list({a.version: a for doc in addons for a in doc}.values())
        self.versions = [[a.version for a in doc] for doc in addons]
        column = {a.version: j for j, a in enumerate(self.union)}
        n = len(ids)
        bag = padded_lexical_bag(ids, backbone.vocab_size, backbone.special_ids)
        self.lexical = torch.stack([a.lexical_logits(bag, idf, backbone.vocab_size) for a in self.union], 1)
        wanted = torch.zeros((n, len(self.union)), dtype=torch.bool)
        for r, d in enumerate(documents):
            wanted[r, [column[v] for v in self.versions[d]]] = True
        self.gated = (self.lexical >= torch.tensor([a.gate for a in self.union])) & wanted
        self.corrections = torch.zeros((n, len(self.union)))
        self.column = column

    def rows(self) -> set[int]:
        """Rows whose backbone states some add-on's expert needs."""
        return set(torch.nonzero(self.gated.any(1)).flatten().tolist())

    @torch.inference_mode()
    def observe(self, rows: list[int], states: torch.Tensor, mask: torch.Tensor) -> None:
        """Each add-on's expert on the rows of one backbone batch that it gated."""
        for j, addon in enumerate(self.union):
            mine = [i for i, r in enumerate(rows) if self.gated[r, j]]
            if mine:
                experts = addon.experts.to(states.device)
                self.corrections[[rows[i] for i in mine], j] = experts.one(states[mine].float(), mask[mine], 0).float().cpu()

    def repeat(self, first: list[int]) -> None:
        """A repeated segment scores as its first occurrence."""
        repeats = [r for r, f in enumerate(first) if f != r]
        if repeats:
            self.corrections[repeats] = self.corrections[[first[r] for r in repeats]]

    def per_document(self, sizes: list[int]) -> list[torch.Tensor]:
        """[n_d, A_d] calibrated probabilities of each document's own add-ons, in its order."""
        probability = torch.stack([a.probabilities(self.lexical[:, j], self.corrections[self.gated[:, j], j],
                                                   self.gated[:, j]) for j, a in enumerate(self.union)], 1)
        parts = probability.split(sizes)
        return [part[:, [self.column[v] for v in versions]] for part, versions in zip(parts, self.versions)]


def addon_findings(segments: list[Segment], probability: torch.Tensor, addons: list[Addon], floor: float) -> list[Finding]:
    """Findings of each add-on from its column of `probability` [n, A]: candidates from `floor`
    up, the best segment carrying the type's probability for the document."""
    findings: list[Finding] = []
    for j, addon in enumerate(addons):
        column = probability[:, j:j + 1]
        presence = column.max(0).values if len(column) else torch.zeros(1)
        findings += document_findings(segments, column, presence, (addon.name,), (addon.name,), floor, addon.version)
    return findings

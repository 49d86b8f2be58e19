"""Taught clause types in an audit: each add-on's findings for a document (issue 44).

A pass of its own beside the shipped model's, so CUAD's findings are exactly what they were
without add-ons (the int8 backbone quantizes each batch's activations together, so sharing its
batches would move them).  Every add-on reads the segments' words first; the backbone then runs
once over the segments that pass any add-on's gate, and each add-on's expert over those it
gated.  A type's best segment carries its probability for the document, as CUAD's do.
"""
from __future__ import annotations

import torch

from models.addons import Addon
from models.backbone import Backbone
from models.batching import BatchLimits, length_batches, pad_ids
from models.candidates import document_findings
from models.lexical import padded_lexical_bag
from pipelines.datamodel import Finding, Segment


@torch.inference_mode()
def addon_findings(backbone: Backbone, idf: torch.Tensor, limits: BatchLimits, floor: float, addons: list[Addon],
                   segments: list[Segment]) -> list[Finding]:
    """Findings of every add-on for one document's segments, on the shipped model's backbone and
    router idf; candidates from `floor` up, as the shipped model's."""
    if not addons or not segments:
        return []
    ids = backbone.token_ids([s.text for s in segments])
    bag = padded_lexical_bag(ids, backbone.vocab_size, backbone.special_ids)
    lexical = [addon.lexical_logits(bag, idf, backbone.vocab_size) for addon in addons]
    gated = [logits >= addon.gate for addon, logits in zip(addons, lexical)]
    corrections = [torch.zeros(len(segments)) for _ in addons]
    encode = torch.nonzero(torch.stack(gated).any(0)).flatten().tolist()
    for positions in length_batches([len(ids[i]) for i in encode], limits):
        rows = [encode[j] for j in positions]
        input_ids, mask = (t.to(backbone.device) for t in pad_ids([ids[i] for i in rows], backbone.pad_id))
        states = backbone.states(input_ids, mask)
        for addon, gate, correction in zip(addons, gated, corrections):
            mine = [j for j, row in enumerate(rows) if gate[row]]
            if mine:
                experts = addon.experts.to(backbone.device)
                correction[[rows[j] for j in mine]] = experts.one(states[mine].float(), mask[mine], 0).float().cpu()
    findings: list[Finding] = []
    for addon, logits, gate, correction in zip(addons, lexical, gated, corrections):
        probability = addon.probabilities(logits, correction[gate], gate)
        presence = probability.max().reshape(1)
        findings += document_findings(segments, probability[:, None], presence, (addon.name,), (addon.name,),
                                      floor, addon.version)
    return findings

"""The parties as structured values: each one's legal name, short names, role and jurisdiction."""
from __future__ import annotations

from pipelines.rules.parties import cover_names, labelled_parties, preamble_parties, signature_names
from pipelines.terms.value import Quote, TermValue

FIELD = "Parties"


def _clean(name: str) -> str:
    return " ".join(name.split())


def read_parties(text: str) -> TermValue | None:
    parties: list[dict] = []
    evidence: list[Quote] = []
    for party in preamble_parties(text) or labelled_parties(text):
        name = _clean(text[party.name_start:party.name_end])
        shorts = [_clean(text[s.start:s.end]) for s in party.short_names]
        parties.append({"name": name, "short_names": shorts, "role": None, "jurisdiction": None})
        evidence.append(Quote(party.name_start, party.end, "preamble"))
    if not parties:
        for start, end in cover_names(text) or signature_names(text):
            parties.append({"name": _clean(text[start:end]), "short_names": [], "role": None, "jurisdiction": None})
            evidence.append(Quote(start, end, "name"))
    if not parties:
        return None
    return TermValue(FIELD, format_parties(parties), 0.8, tuple(evidence), {"parties": parties})


def format_parties(parties: list[dict]) -> str:
    """CUAD's answer form: 'Acme Corp. ("Acme"); Beta LLC ("Supplier")'."""
    out = []
    for p in parties:
        shorts = ", ".join(f'"{s}"' for s in p["short_names"])
        out.append(f'{p["name"]} ({shorts})' if shorts else p["name"])
    return "; ".join(out)

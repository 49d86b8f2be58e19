"""Defined terms and their definitions, as the router's lexical term reads them beside a segment."""
from __future__ import annotations

from models.definitions import definition_contexts, find_definitions
from models.headings import lexical_contexts
from pipelines.datamodel import PageText
from pipelines.stages.segment import segment_document

PREAMBLE = ('LICENSE AGREEMENT\n\nThis License Agreement is made between Northwind Pumps Inc. ("Licensor") and '
            'Harbor Valve Co. ("Licensee").\n\n')
RECITALS = "".join(f"WHEREAS, the parties have discussed matter number {n} of their cooperation at some length.\n\n"
                   for n in range(30))  # past the preamble, where a '(the "X")' is a party's name
FILLER = "".join(f"{n}. Notices. Notices shall be in writing and sent to the addresses above.\n\n" for n in range(4, 14))
BODY = ('1. DEFINITIONS\n\n1.1 "Competing Product" means any pump that performs the functions of the Licensed '
        'Product in the Territory.\n\n'
        '1.2 The parties shall cooperate in the States of Ohio and Indiana (the "Territory").\n\n'
        '2. EXCLUSIVITY\n\n2.1 Licensee shall not sell any Competing Product during the term of this Agreement.\n\n'
        '3. MARKETING\n\n3.1 Licensee shall promote the products in the Territory.\n\n') + FILLER


def _segments():
    return segment_document([PageText(number=1, text=PREAMBLE + RECITALS + BODY, source="plain")])


def test_definitions_are_read_and_the_parties_names_left_out():
    defined = find_definitions(_segments())
    assert defined["Competing Product"].startswith("any pump that performs the functions")
    assert defined["Territory"] == "1.2 The parties shall cooperate in the States of Ohio and Indiana"
    assert "Licensor" not in defined and "Licensee" not in defined  # the preamble's names and addresses


def test_a_segment_gets_the_definitions_of_the_terms_it_uses_not_its_own():
    segments = _segments()
    contexts = dict(zip((s.text for s in segments), definition_contexts(segments)))
    selling = next(t for t in contexts if "2.1" in t)
    assert contexts[selling].startswith("any pump that performs")
    defining = next(t for t in contexts if "1.1" in t)
    assert "any pump" not in contexts[defining]  # the definition itself is no context for itself
    assert contexts[next(t for t in contexts if t.startswith("4."))] == ""


def test_the_lexical_context_is_the_heading_then_the_definitions_when_the_checkpoint_reads_them():
    segments = _segments()
    selling = next(i for i, s in enumerate(segments) if "2.1" in s.text)
    assert lexical_contexts(segments, False)[selling] == "EXCLUSIVITY"
    assert lexical_contexts(segments, True)[selling].startswith("EXCLUSIVITY any pump that performs")
    # a part of a long document reads the definitions of the whole
    part = segments[selling:]
    assert lexical_contexts(part, True, "EXCLUSIVITY", find_definitions(segments))[0].startswith("EXCLUSIVITY any pump")
    assert lexical_contexts(part, True, "EXCLUSIVITY")[0] == "EXCLUSIVITY"

"""The governing law as a place, and the forum apart from it, on synthetic clauses."""
from __future__ import annotations

import pytest

from pipelines.datamodel import PageText, document_text
from pipelines.stages.segment import segment_document
from pipelines.terms.law import read_governing_law

PREAMBLE = ("This Supply Agreement is made between Northwind Traders LLC, a company organized under the laws of "
            "Singapore, and Blue Harbor Inc., a corporation incorporated under the laws of the State of Texas.\n\n")


def law(body: str):  # noqa: ANN201
    pages = [PageText(number=1, text=PREAMBLE + body, source="plain")]
    text, _ = document_text(pages)
    return read_governing_law(text, segment_document(pages))


@pytest.mark.parametrize(("clause", "place"), [
    ("12.1 Governing Law. This Agreement shall be governed by and construed in accordance with the laws of "
     "the State of New\nYork, without regard to its conflict of laws rules.", "New York"),
    ("THIS AGREEMENT WILL BE GOVERNED IN ALL RESPECTS, INCLUDING VALIDITY AND EFFECT, BY THE LAWS OF THE "
     "COMMONWEALTH OF MASSACHUSETTS.", "Massachusetts"),
    ("This Agreement shall be exclusively governed, construed and controlled by the laws of the United States of "
     "America and of the State of Colorado.", "Colorado"),
    ("The relationship established hereby is governed by Colombian private law.", "Colombia"),
    ("This Agreement shall be governed by the laws of the Province of Ontario and the federal laws of Canada "
     "applicable therein.", "Ontario, Canada"),
    ("This Agreement and any dispute arising from it shall be governed by the laws of England and Wales.",
     "England and Wales"),
    ("2. The laws of the State of California govern this Agreement.", "California"),
    ("2. The laws of the Republic of Ireland apply to this Agreement.", "Ireland"),
])
def test_the_law_chosen_is_read_as_a_place(clause: str, place: str):
    value = law("1. Supply. Blue Harbor shall supply the Products.\n\n" + clause)
    assert value is not None and value.value == place
    assert value.evidence[0].role == "governing-law clause"


def test_where_a_party_is_organized_is_not_the_governing_law():
    assert law("1. Supply. Blue Harbor shall supply the Products described in Exhibit A.") is None


def test_a_subject_matter_law_is_not_the_contracts_law():
    value = law("Inventions are patentable as determined in accordance with the patent laws of the United "
                "States.\n\n14. Governing Law. This Agreement shall be governed by the laws of the State of "
                "Delaware.")
    assert value is not None and value.value == "Delaware"


def test_the_forum_is_kept_apart_from_the_law():
    value = law("15. Governing Law and Venue. This Agreement shall be governed by the laws of the State of "
                "California. Each party submits to the exclusive jurisdiction of the courts located in Santa "
                "Clara County, California for any action arising out of this Agreement.")
    assert value is not None and value.value == "California"
    assert value.detail["forum"] == "Santa Clara County"
    assert "exclusive jurisdiction" in value.detail["forum_text"]


def test_the_forum_quote_starts_at_a_word():
    value = law("14. Governing Law. This Agreement is governed by the laws of England and Wales and the courts of "
                "England shall have exclusive jurisdiction.")
    assert value.detail["forum_text"] == "is governed by the laws of England and Wales and the courts of England"


def test_an_arbitration_seat_is_a_forum():
    value = law("16. Governing Law. This Agreement shall be governed by the laws of England. Any dispute shall "
                "be finally settled by arbitration held in London under the rules of the LCIA.")
    assert value is not None and value.value == "England" and value.detail["forum"] == "London"


def quoted(body: str, value) -> str:  # noqa: ANN001
    """The text of the value's first quote in the document `law(body)` read."""
    text, _ = document_text([PageText(number=1, text=PREAMBLE + body, source="plain")])
    quote = value.evidence[0]
    return text[quote.start:quote.end]


@pytest.mark.parametrize(("body", "starts", "holds"), [
    # a heading the text layer runs onto the end of the clause before it
    ("20. NOTICE.\nAny notice shall be in writing and sent to the addresses below:\nIf to Blue Harbor: 1 Main "
     "Street, Suite 4, Miami, Florida\n21. GOVERNING LAW.\nThis Agreement shall be governed by the laws of the "
     "State of Florida.", "21. GOVERNING LAW.", "laws of the State of Florida"),
    # a heading longer than a short line, naming no law itself
    ("Article 9 Applicable Law; Modifications; Annexes; Miscellaneous\n\n1) The laws of the Federal Republic of "
     "Germany shall apply to this Agreement and to every order placed under it.", "Article 9", "Federal Republic"),
    # a two-level number ending in a period, the heading a segment of its own
    ("9.04. Orders. Orders shall be placed in writing.\n\n9.05.  Applicable Law. This Agreement shall be governed by "
     "the laws of the State of Texas.  All payments hereunder shall be made at Frisco, Texas.", "9.05.",
     "laws of the State of Texas"),
])
def test_a_heading_is_quoted_with_the_clause_under_it(body: str, starts: str, holds: str):
    value = law(body)
    assert value is not None
    text = quoted(body, value)
    assert text.startswith(starts) and holds in text


def test_a_line_break_before_applicable_laws_is_not_a_heading():
    assert law("1.7 \"Trial\" means a study of a Product that would satisfy the requirements of\nApplicable Laws "
               "and Regulations for such country, such as those of the United States.") is None


@pytest.mark.parametrize(("clause", "forum"), [
    ("This Agreement is governed by Dutch law. The courts of Amsterdam have exclusive jurisdiction.", "Amsterdam"),
    ("This agreement shall be governed by the law of England and Wales. Each party irrevocably agrees that the "
     "courts of England and Wales shall have exclusive jurisdiction.", "England and Wales"),
])
def test_a_forum_in_the_present_tense_and_england_and_wales(clause, forum):
    assert law(clause).detail["forum"] == forum


@pytest.mark.parametrize(("clause", "place", "forum"), [
    ("This Agreement shall be governed by Swiss law. Place of jurisdiction is Zurich.", "Switzerland", "Zurich"),
    ("This Agreement shall be governed by the laws of India and the courts at Mumbai shall have exclusive "
     "jurisdiction.", "India", "Mumbai"),
    ("This NDA shall be governed by English law and the parties submit to the exclusive jurisdiction of the "
     "English courts.", "England", "England"),
    ("This Agreement shall be governed by Scots law and the Scottish courts shall have exclusive jurisdiction.",
     "Scotland", "Scotland"),
])
def test_an_ndas_law_and_forum_in_european_and_indian_wording(clause, place, forum):
    value = law(clause)
    assert (value.value, value.detail["forum"]) == (place, forum)


def test_a_places_law_as_the_subject_and_a_heading_glued_to_the_paragraph_before():
    assert law("New York law shall govern this Agreement.").value == "New York"
    # the segmenter keeps a short heading with the paragraph before it, here the preamble,
    # whose "laws of Singapore" say where a party is organized
    assert law("Governing Law. New York law governs this Agreement.").value == "New York"


def test_the_state_named_after_the_country_under_a_heading():
    value = law("15. CONTROLLING LAW:\n15.1 Generally. This Distributor Agreement shall be exclusively governed, "
                "construed, enforced and controlled by the laws of the United\nStates of America and of the State "
                "of Texas.")
    assert value.value == "Texas"

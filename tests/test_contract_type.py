"""Contract types read from titles, preambles and defined roles, on synthetic contracts."""
from __future__ import annotations

import pytest

from pipelines.contract_type import ContractType, TypeDecision, classify_contract

T = ContractType
PARTIES = ("is made as of March 3, 2025 by and between Northwind Traders LLC, a Delaware limited liability "
           "company (\"Northwind\"), and Blue Harbor Inc., a Texas corporation (\"Blue Harbor\").\n\n")


def titled(title: str, body: str = "1. Term. This Agreement runs for three years.") -> str:
    return f"Exhibit 10.4\n\n{title}\n\nThis {title.title()} {PARTIES}{body}\n"


def assert_title_decides(text: str, title: str, kind: ContractType) -> TypeDecision:
    decision = classify_contract(text)
    assert decision.type == kind
    assert decision.evidence == f'title "{title}"'
    assert decision.span is not None and text[decision.span[0]:decision.span[1]] == title
    assert decision.confidence == pytest.approx(0.9)
    return decision


@pytest.mark.parametrize(("title", "kind"), [
    ("PATENT LICENSE AGREEMENT", T.LICENCE),
    ("MANUFACTURING AND SUPPLY AGREEMENT", T.SUPPLY_OR_MANUFACTURING),
    ("EXCLUSIVE DISTRIBUTOR AGREEMENT", T.DISTRIBUTION_OR_RESELLER),
    ("VALUE ADDED RESELLER AGREEMENT", T.DISTRIBUTION_OR_RESELLER),
    ("FRANCHISE AGREEMENT", T.FRANCHISE),
    ("MASTER SERVICES AGREEMENT", T.SERVICES_OR_OUTSOURCING),
    ("BUSINESS PROCESS OUTSOURCING AGREEMENT", T.SERVICES_OR_OUTSOURCING),
    ("JOINT VENTURE AGREEMENT", T.JOINT_VENTURE_OR_COLLABORATION),
    ("RESEARCH COLLABORATION AGREEMENT", T.JOINT_VENTURE_OR_COLLABORATION),
    ("EXECUTIVE EMPLOYMENT AGREEMENT", T.EMPLOYMENT_OR_CONSULTING),
    ("CONSULTING AGREEMENT", T.EMPLOYMENT_OR_CONSULTING),
    ("MUTUAL NON-DISCLOSURE AGREEMENT", T.NDA),
    ("JOINT FILING AGREEMENT", T.FILING_EXHIBIT),
    ("AREA DEVELOPMENT AGREEMENT", T.FRANCHISE),
    ("SPONSORSHIP AGREEMENT", T.OTHER),
    ("ASSET PURCHASE AGREEMENT", T.OTHER),
])
def test_the_title_names_the_type(title: str, kind: ContractType):
    assert_title_decides(titled(title), title, kind)


def test_a_title_joining_two_kinds_is_named_after_the_last():
    assert_title_decides(titled("SOFTWARE LICENSE AND MAINTENANCE AGREEMENT"),
                         "SOFTWARE LICENSE AND MAINTENANCE AGREEMENT", T.SERVICES_OR_OUTSOURCING)


def test_an_amendment_of_a_licence_is_an_amendment():
    assert_title_decides(titled("AMENDMENT NO. 2 TO PATENT LICENSE AGREEMENT"),
                         "AMENDMENT NO. 2 TO PATENT LICENSE AGREEMENT", T.AMENDMENT)


def test_an_amended_and_restated_agreement_is_the_agreement_it_restates():
    assert_title_decides(titled("AMENDED AND RESTATED DISTRIBUTION AGREEMENT"),
                         "AMENDED AND RESTATED DISTRIBUTION AGREEMENT", T.DISTRIBUTION_OR_RESELLER)


def test_an_earlier_amendment_named_in_the_recitals_does_not_make_an_amendment():
    title = "AMENDED AND RESTATED SUPPLY AGREEMENT"
    body = ("WHEREAS, the parties signed a supply agreement on June 2, 2021, as amended on May 1, 2022 "
            "(the \"First Amendment\"), and now restate it in full.")
    assert_title_decides(titled(title, body), title, T.SUPPLY_OR_MANUFACTURING)


def test_an_untitled_amendment_is_known_by_its_preamble():
    text = ("This First Amendment (the \"Amendment\") is made as of May 1, 2025 by Northwind Traders LLC and "
            "Blue Harbor Inc. and amends that certain Distribution Agreement dated June 2, 2021.\n\n"
            "1. Section 4.2 of the Distribution Agreement is deleted.\n")
    decision = classify_contract(text)
    assert decision.type == T.AMENDMENT
    assert decision.evidence == 'preamble: (the "Amendment")'
    assert decision.span == (text.index("(the"), text.index("is made") - 1)


def test_a_guaranty_is_a_filing_exhibit_even_where_the_body_names_another_agreement():
    text = ("EXHIBIT 10.9\n\nGUARANTY\n\nFor value received, Northwind Holdings Inc. guarantees to Blue "
            "Harbor Inc. the payment of every sum due under the Supply Agreement dated June 2, 2021.\n")
    decision = classify_contract(text)
    assert decision.type == T.FILING_EXHIBIT
    assert decision.evidence == 'title "GUARANTY"'
    assert decision.span == (text.index("GUARANTY"), text.index("GUARANTY") + len("GUARANTY"))


def test_a_power_of_attorney_is_a_filing_exhibit():
    text = ("LIMITED POWER OF ATTORNEY\n\nKnow all persons by these presents that Jane Roe appoints John Doe "
            "her attorney-in-fact to sign any Schedule 13D and every amendment to it.\n")
    decision = classify_contract(text)
    assert decision.type == T.FILING_EXHIBIT
    assert decision.evidence == 'title "LIMITED POWER OF ATTORNEY"'


def test_a_short_letter_about_confidential_information_is_an_nda():
    sentence = ("The Receiving Party shall hold the Confidential Information of the Disclosing Party in "
                "confidence and use the Confidential Information only to evaluate the proposed deal.")
    body = " ".join([sentence] * 3)
    text = f"Dear Ms. Roe:\n\nIn connection with a possible transaction, {body}\n\nVery truly yours,\n"
    decision = classify_contract(text)
    assert decision.type == T.NDA
    assert decision.evidence == 'confidentiality terms ("Receiving Party" first) 12 times in a short contract'
    assert decision.span is not None and text[decision.span[0]:decision.span[1]] == "Receiving Party"
    assert decision.confidence == pytest.approx(0.6)


def test_without_a_telling_title_the_defined_roles_vote():
    text = ("AGREEMENT\n\nThis Agreement " + PARTIES.replace('("Northwind")', '("Licensor")')
            .replace('("Blue Harbor")', '("Licensee")')
            + "1. Grant. Licensor grants Licensee the right to use the marks. 2. Royalty. Licensee shall pay "
              "Licensor five percent of net sales.\n")
    decision = classify_contract(text)
    assert decision.type == T.LICENCE
    assert decision.evidence == 'role "Licensor" and kin named 6 times'
    assert decision.span == (text.index("Licensor"), text.index("Licensor") + len("Licensor"))
    assert decision.confidence == pytest.approx(0.6)


def test_confidentiality_terms_outnumbered_by_roles_do_not_make_an_nda():
    clause = ("Licensee shall keep the Confidential Information of Licensor secret, and Licensor shall keep "
              "the Confidential Information of Licensee secret, as Licensee and Licensor agree.")
    text = "AGREEMENT\n\nThe parties agree as follows. " + " ".join([clause] * 4) + "\n"
    decision = classify_contract(text)
    assert decision.type == T.LICENCE
    assert decision.evidence == 'role "Licensee" and kin named 24 times'


def test_a_kind_named_after_a_cover_line_still_decides():
    text = ("FIRM RATE AGREEMENT\n\nGAS TRANSPORTATION AGREEMENT\n\n"
            "THIS AGREEMENT " + PARTIES)
    decision = classify_contract(text)
    assert decision.type == T.SERVICES_OR_OUTSOURCING
    assert decision.evidence == 'heading "GAS TRANSPORTATION AGREEMENT"'
    assert decision.confidence == pytest.approx(0.7)


def test_a_known_document_name_is_read_before_the_text():
    text = titled("SUPPLY AGREEMENT")
    decision = classify_contract(text, document_name="Franchise Agreement")
    assert decision.type == T.FRANCHISE
    assert decision.evidence == 'title "Franchise Agreement"'
    assert decision.span is None


def test_an_unknown_document_is_other_and_unsure():
    text = "MEMORANDUM\n\nThe parties met on May 1 and discussed the weather and the harvest.\n"
    decision = classify_contract(text)
    assert decision == TypeDecision(T.OTHER, 0.3, "no title or role names a contract type", None)


def test_a_letter_about_evaluation_material_is_an_nda():
    sentence = ("You shall use the Evaluation Material solely to evaluate the Transaction and keep the "
                "Evaluation Material confidential.")
    text = "Dear Ms. Roe:\n\nIn connection with a possible transaction, " + " ".join([sentence] * 4) + "\n\nVery truly yours,\n"
    decision = classify_contract(text)
    assert decision.type == T.NDA
    assert decision.evidence == 'confidentiality terms ("Evaluation Material" first) 8 times in a short contract'

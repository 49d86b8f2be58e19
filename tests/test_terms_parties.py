"""The Parties value reader on synthetic contract text: names, short names, roles, jurisdictions."""
from __future__ import annotations

from pipelines.terms.parties import format_parties, read_parties


def _parties(text: str) -> list[dict]:
    value = read_parties(text)
    assert value is not None
    return value.detail["parties"]


def test_preamble_with_two_companies_reads_names_roles_and_jurisdictions():
    text = (
        'This License Agreement (the "Agreement") is entered into as of March 1, 2021 by and between '
        "Northwind Robotics, Inc., a Delaware corporation with offices at 12 Harbor Road, Boston, MA 02110 "
        '("Licensor"), and Bluefin Analytics Limited, a company incorporated under the laws of England and '
        'Wales (the "Licensee").\n\nWHEREAS, Licensor owns certain software;'
    )
    value = read_parties(text)
    assert value is not None
    assert value.value == 'Northwind Robotics, Inc. ("Licensor"); Bluefin Analytics Limited ("Licensee")'
    assert value.detail["parties"] == [
        {"name": "Northwind Robotics, Inc.", "trade_name": None, "short_names": ["Licensor"], "role": "Licensor",
         "jurisdiction": "Delaware", "kind": "organisation"},
        {"name": "Bluefin Analytics Limited", "trade_name": None, "short_names": ["Licensee"], "role": "Licensee",
         "jurisdiction": "England and Wales", "kind": "organisation"},
    ]
    assert [q.role for q in value.evidence] == ["preamble", "preamble"]
    assert text[value.evidence[0].start:].startswith("Northwind Robotics, Inc.")
    assert 0 < value.confidence < 1


def test_an_individual_party_is_an_individual():
    text = (
        "This Consulting Agreement is made as of June 5, 2020 between Quarry Peak LLC, a Cayman Islands "
        'exempted company ("Company"), and Jane Q. Marlow, an individual residing at 4 Elm Street '
        '("Consultant").\n\n1. Services.'
    )
    company, consultant = _parties(text)
    assert (company["name"], company["jurisdiction"], company["kind"]) == (
        "Quarry Peak LLC", "Cayman Islands", "organisation")
    assert consultant == {"name": "Jane Q. Marlow", "trade_name": None, "short_names": ["Consultant"], "role": "Consultant",
                          "jurisdiction": None, "kind": "individual"}


def test_a_trade_name_is_kept_beside_the_legal_name():
    text = ('This Distribution Agreement is made between Harbor Music, Inc. d/b/a Harbor Records, a New York '
            'corporation ("Harbor"), and Lantern Sound LLC ("Distributor").\n\n1. Appointment.')
    harbor, _ = _parties(text)
    assert (harbor["name"], harbor["trade_name"]) == ("Harbor Music, Inc.", "Harbor Records")


def test_nda_without_short_names():
    text = (
        "MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis Mutual Non-Disclosure Agreement is entered into between "
        "Acme Widgets Inc. and Beta Gears LLC as of May 1, 2022.\n\n1. Confidential Information."
    )
    value = read_parties(text)
    assert value is not None
    assert value.value == "Acme Widgets Inc.; Beta Gears LLC"
    assert [p["short_names"] for p in value.detail["parties"]] == [[], []]


def test_nda_with_a_company_and_a_person():
    text = 'This Agreement is entered into between Acme Widgets Inc. ("Discloser") and John Smith ("Recipient").'
    parties = _parties(text)
    assert [(p["name"], p["role"], p["kind"]) for p in parties] == [
        ("Acme Widgets Inc.", "Discloser", "organisation"), ("John Smith", "Recipient", "individual")]


def test_signature_blocks_alone_name_the_parties():
    text = (
        "ORDER FORM\n\nServices as described in Schedule 1.\n\nIN WITNESS WHEREOF the parties have signed.\n\n"
        "HARBOR LIGHT SYSTEMS CORP.\n\nBy: ____________\nName: Mary Jones\nTitle: CEO\n\n"
        "GREENFIELD PARTNERS LLC\n\nBy: ____________\nName: Tom Lee\nTitle: Manager\n"
    )
    value = read_parties(text)
    assert value is not None
    assert value.value == "HARBOR LIGHT SYSTEMS CORP.; GREENFIELD PARTNERS LLC"
    assert {q.role for q in value.evidence} == {"signature block"}
    assert value.confidence == 0.5  # who signed, not who the preamble binds


def test_signature_blocks_that_agree_with_the_preamble_raise_confidence():
    preamble = 'This Agreement is made between Orion Freight LLC ("Carrier") and Vega Foods Inc. ("Shipper").\n\n'
    signatures = "\n\nIN WITNESS WHEREOF:\n\nORION FREIGHT LLC\n\nBy: ______\n\nVEGA FOODS INC.\n\nBy: ______\n"
    alone, agreed = read_parties(preamble), read_parties(preamble + "1. Carriage." + signatures)
    assert alone is not None and agreed is not None
    assert agreed.value == alone.value == 'Orion Freight LLC ("Carrier"); Vega Foods Inc. ("Shipper")'
    assert agreed.confidence > alone.confidence
    assert [q.role for q in agreed.evidence].count("signature block") == 2


def test_letterhead_address_phone_and_email_are_not_names():
    text = (
        "Coral Reef Media Ltd.\n500 Ocean Drive, Suite 200\nMiami, FL 33139\nTel: (305) 555-0199\n"
        "E-mail: legal@coralreef.example\n\nThis Services Agreement is made on 2 January 2019 between "
        'Coral Reef Media Ltd., a Florida corporation ("Coral"), and Sandpiper Digital GmbH of 9 Hafenstrasse, '
        'Hamburg ("Sandpiper").\n\nNOW, THEREFORE, the parties agree:'
    )
    names = [p["name"] for p in _parties(text)]
    assert names == ["Coral Reef Media Ltd.", "Sandpiper Digital GmbH"]


def test_the_collective_party_definition_is_not_a_party():
    text = (
        'This Supply Agreement is entered into by and between Talon Metals Corp. ("Supplier") and Redwood '
        'Fabrication, Inc. ("Buyer") (each a "Party" and together the "Parties").\n\nRECITALS'
    )
    value = read_parties(text)
    assert value is not None
    assert value.value == 'Talon Metals Corp. ("Supplier"); Redwood Fabrication, Inc. ("Buyer")'
    assert all("Part" not in s for p in value.detail["parties"] for s in p["short_names"])


def test_labelled_blocks_name_the_parties():
    text = (
        "CONFIDENTIALITY AGREEMENT\n\nCompany: Orbit Dynamics Inc.\nRecipient: Laura Chen\n\n"
        "1. Obligations. The Recipient shall keep the information confidential."
    )
    parties = _parties(text)
    assert [(p["name"], p["role"], p["kind"]) for p in parties] == [
        ("Orbit Dynamics Inc.", "Company", "organisation"), ("Laura Chen", "Recipient", "individual")]


def test_a_cover_page_and_the_preamble_give_one_party_each():
    text = (
        "SERVICES AGREEMENT\n\nBETWEEN\n\nLUMEN HEALTH CORP.\n\nAND\n\nPIKE DATA SYSTEMS LTD.\n\n\n"
        'This Services Agreement is made by and between Lumen Health Corp. ("Lumen") and Pike Data Systems '
        'Ltd. ("Pike").\n\nWHEREAS,'
    )
    assert [p["name"] for p in _parties(text)] == ["Lumen Health Corp.", "Pike Data Systems Ltd."]


def test_no_names_no_value():
    assert read_parties("1. Definitions. Words have the meanings given below.") is None


def test_format_parties_is_cuads_answer_form():
    parties = [{"name": "Acme Corp.", "short_names": ["Acme", "Seller"]}, {"name": "Beta LLC", "short_names": []}]
    assert format_parties(parties) == 'Acme Corp. ("Acme", "Seller"); Beta LLC'

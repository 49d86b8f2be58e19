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


def test_an_upper_case_title_is_not_part_of_an_individuals_name():
    text = (
        "THIS AGREEMENT is made on the 1st day of July 2019 between:\n\nSILVERLINE FINTECH LIMITED, a company "
        'registered in England ("the Discloser"); and\n\nMR. DAVID CHEN of 22 Rose Avenue, Manchester ("the '
        'Recipient").\n\n1. Confidentiality.'
    )
    company, person = _parties(text)
    assert company["name"] == "SILVERLINE FINTECH LIMITED"
    assert (person["name"], person["kind"]) == ("DAVID CHEN", "individual")


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


def _names(text: str) -> list[str]:
    return [p["name"] for p in _parties(text)]


def test_a_bracketed_suffix_stays_in_the_name():
    text = ('This Services Agreement is made by and between Kestrel Trials (Pty) Limited, whose registered office '
            'is at 4 Oak Lane, Pretoria (hereinafter "Kestrel") and Marlow Biotech LLC (hereinafter "Client").\n\n1.')
    assert _names(text) == ["Kestrel Trials (Pty) Limited", "Marlow Biotech LLC"]


def test_lower_case_brands_municipalities_and_names_holding_address_words():
    text = ('This Agreement is made by and between the TOWN OF ELMWOOD, OHIO, an Ohio municipal corporation '
            '("Grantor"), q-metrics, Inc., a Delaware corporation ("Q"), Signature Dental Pty Ltd ("Dental") '
            'and Tel-Star Limited ("Tel-Star").\n\nWHEREAS, Grantor owns a network;')
    assert _names(text) == ["TOWN OF ELMWOOD, OHIO", "q-metrics, Inc.", "Signature Dental Pty Ltd", "Tel-Star Limited"]


def test_a_preamble_heading_without_between():
    text = ("TRANSPORT CONTRACT\n\nPREAMBLE\n\nJSC Steppe Oil, hereinafter referred to as the \"Carrier\", in the "
            "person of its Director Mr. A. B. Orlov, on the one side and JSC Aral Trading, hereinafter referred to as "
            "the \"Owner\", on the other side, have entered into this Contract (the \"Contract\") and agree as follows:"
            "\n\n1. SUBJECT")
    assert _names(text) == ["JSC Steppe Oil", "JSC Aral Trading"]


def test_a_parent_named_after_the_last_definition_is_not_a_party():
    from pipelines.terms.party_mentions import _mention_before

    tail = ', a wholly owned subsidiary of Birch Holdings, Inc., organized under the laws of Delaware, agree'
    assert _mention_before(tail, 0, len(tail), named_only=True, listed_only=True) is None
    listed = ', and Birch Holdings, Inc.'
    assert _mention_before(listed, 0, len(listed), named_only=True, listed_only=True).name == "Birch Holdings, Inc."


def test_a_short_name_defined_twice_is_one_party():
    text = ('This Consulting Agreement is entered into by and between Gable Advisory Corp, a (the "Consultant"), '
            'with an address at 80 Dune Street Suite 7 Halifax NS. (the "Consultant"), and Quay 9 Corp., with an '
            'address at 5 Pier Road ("Company").\n\nWHEREAS, Consultant has experience;')
    assert _names(text) == ["Gable Advisory Corp", "Quay 9 Corp."]


def test_an_unnamed_party_is_shown_by_its_role_or_by_its_signature_block():
    blank = ('This Distributorship Agreement is entered into by and between Alder Optics AG, a Swiss corporation '
             '("Alder"), and _______________, a corporation organized under the laws of ___________ '
             '("Distributor").\n\nRecitals')
    alder, distributor = _parties(blank)
    assert (alder["name"], distributor["name"], distributor["kind"]) == ("Alder Optics AG", "Distributor", "unnamed")
    named_later = ('This Agency Agreement is made as of May 1, 2001 by and between Alder Optics Corporation, a '
                   'Delaware corporation (the "Company") and the Agent named on the signature page hereof (the '
                   '"Agent").\n\nWHEREAS, the Company sells lenses;\n\n'
                   "IN WITNESS WHEREOF the parties have signed.\n\nTHE ROWAN COMPANY\n\nBy: ______\n\n"
                   "ALDER OPTICS CORPORATION\n\nBy: ______")
    company, agent = _parties(named_later)
    assert (company["short_names"], agent["name"], agent["short_names"]) == (["Company"], "ROWAN COMPANY", ["Agent"])


def test_a_closing_quote_after_the_full_stop_and_a_city_signing_without_its_state():
    text = ('THIS AGREEMENT is made as of May 1, 2002, by and between BIRCH GAS PIPELINE COMPANY, a Delaware '
            'Corporation, hereinafter referred to as "Transporter" and CEDAR GAS AND ELECTRIC COMPANY, a Kentucky '
            'Corporation, hereinafter referred to as "Shipper." Transporter and Shipper are the "Parties."\n\n1.')
    assert [(p["name"], p["short_names"]) for p in _parties(text)] == [
        ("BIRCH GAS PIPELINE COMPANY", ["Transporter"]), ("CEDAR GAS AND ELECTRIC COMPANY", ["Shipper"])]
    city = ('This Cooperation Agreement is entered into by the City of Fort Elm, Texas ("COFE"), and Wren Water '
            'Corp. ("Wren").\n\nWHEREAS, the City needs water;\n\nIN WITNESS WHEREOF\n\nCITY OF FORT ELM\n\n'
            "By: ______\n\nWREN WATER CORP.\n\nBy: ______")
    assert _names(city) == ["City of Fort Elm, Texas", "Wren Water Corp."]


def test_unquoted_hereinafter_short_names_and_party_letters():
    text = ("CHAPTER 2 PARTIES TO THIS CONTRACT\n\n1. Orchid Valley Limited Liability Company (hereinafter referred to "
            "as Party A), established under the laws of Ruritania.\n\n2. Pinecrest Labs, Inc. (hereinafter referred "
            "to as Party B), established under the laws of the State of Delaware.\n\n3. Each Party warrants.")
    assert [(p["name"], p["short_names"]) for p in _parties(text)[:2]] == [
        ("Orchid Valley Limited Liability Company", ["Party A"]), ("Pinecrest Labs, Inc.", ["Party B"])]


def test_a_party_left_to_its_role_or_a_template_field_is_its_own_party():
    text = ('This Franchise Agreement between Maple Suites Franchise LLC ("we" or "Franchisor") and the Franchisee '
            '("you" or "Franchisee") set forth in the Addendum is dated as of the Effective Date.\n\nINTRODUCTION\n\n'
            'We operate a system (the "System").')
    assert [(p["name"], p["kind"]) for p in _parties(text)] == [
        ("Maple Suites Franchise LLC", "organisation"), ("Franchisee", "unnamed")]
    form = ('This Schedule is attached to the Agreement executed by and between Harbor Bank, N.A. ("Harbor Bank") '
            'and <<enter Company Name>> ("Supplier").')
    assert [p["name"] for p in _parties(form)] == ["Harbor Bank, N.A.", "Supplier"]
    signer = ('This Non-Disclosure Agreement is entered into on June 1, 2020 between Tidewater Software Corp. '
              '("Company") and the person signing below ("Recipient").\n\n1. Confidential Information.')
    assert [(p["name"], p["short_names"], p["kind"]) for p in _parties(signer)] == [
        ("Tidewater Software Corp.", ["Company"], "organisation"), ("Recipient", ["Recipient"], "unnamed")]
    scheduled = ('FRANCHISE AGREEMENT\n\nBetween ROWAN GRILL CORPORATION a company incorporated in Florida ("RGC")\n\n'
                 'AND The party specified as the Franchisee on SCHEDULE 1 attached hereto (the "Franchisee")\n\n'
                 "INTRODUCTION\n\nA. RGC has developed a system.")
    assert [(p["name"], p["kind"]) for p in _parties(scheduled)] == [
        ("ROWAN GRILL CORPORATION", "organisation"), ("Franchisee", "unnamed")]


def test_parties_of_an_earlier_agreement_and_principals_are_not_parties():
    text = ('This Amendment is made by and among Redwood AB, a Swedish corporation ("Redwood"), and Tallow Co., Ltd. '
            '("Tallow"), as an amendment to that certain Agreement dated March 7, 2016 by and among Osprey Inc. '
            '("Osprey") and Tallow.\n\nRECITALS')
    assert [p["name"] for p in _parties(text)] == ["Redwood AB", "Tallow Co., Ltd."]
    agent = ('This License Agreement is entered into by and between Comet Licensing, a division of Comet Group, Inc. '
             '("Comet"), as Administrator for Comet Film Corporation ("Owner"), and Lyra Games, Inc. ("Licensee").')
    assert [p["name"] for p in _parties(agent)] == ["Comet Licensing", "Lyra Games, Inc."]


def test_names_keep_their_full_form_and_drop_appositions_and_labels():
    text = ("THIS AGREEMENT is made on 1 May 2001.\n\nBETWEEN\n\n(1) NORTHERN NEWS INFORMATION SERVICE, the "
            "organisation within the Northern Agency responsible for news, with offices at 5 Long Road (\"NNIS\"); "
            "and\n\n(2) Party B: FELDMANN OLEO GmbH & Co. KG, a company of Hamburg (\"Feldmann\").")
    assert [p["name"] for p in _parties(text)] == ["NORTHERN NEWS INFORMATION SERVICE", "FELDMANN OLEO GmbH & Co. KG"]


def test_a_capitalised_and_inside_a_name_does_not_split_it():
    text = ("This Content License Agreement is between THE LARK FILM AND ENTERTAINMENT CORPORATION, located at "
            "1 Hill Road, and WAVECAP ENTERTAINMENT located at 2 Sea Road.\n\n1. GRANT")
    assert [p["name"] for p in _parties(text)] == ["LARK FILM AND ENTERTAINMENT CORPORATION", "WAVECAP ENTERTAINMENT"]


def test_companies_defined_together_are_one_party_with_each_company_a_member():
    text = ('SERVICES AGREEMENT\n\nThis Agreement is made by and between Harrow Fund Management LLC ("Harrow"), '
            "and Kestrel Life Insurance Company, and Kestrel Securities, Inc., a registered broker dealer "
            '(collectively referred to as "Servicing Agent").\n\nWHEREAS, Harrow manages funds;')
    harrow, agent = _parties(text)
    assert harrow["name"] == "Harrow Fund Management LLC"
    assert agent["name"] == "Kestrel Life Insurance Company and Kestrel Securities, Inc."
    assert (agent["kind"], agent["members"], agent["short_names"]) == (
        "group", ["Kestrel Life Insurance Company", "Kestrel Securities, Inc."], ["Servicing Agent"])


def test_a_name_of_initials_and_an_ampersand_is_a_name():
    text = ('THIS DISTRIBUTOR AGREEMENT is made by and between B & C Warehouse Corporation LLC, a Florida '
            'limited liability company ("Company"), and Lumen Coffee Ltd. ("Distributor").\n\nNow, Therefore,')
    assert [p["name"] for p in _parties(text)] == ["B & C Warehouse Corporation LLC", "Lumen Coffee Ltd."]


def test_a_short_name_set_in_a_column_before_the_name_is_the_short_name():
    text = ("DATED 13 October 2005\n\nDCL DAIRY CREST LIMITED (Company no 2085882) whose registered office "
            "is at 1 High Street, Esher\n\nSEV SEV GROUP LIMITED (company no 4463640) whose registered "
            "office is at Unit 95, Stanley\n\nIT IS AGREED as follows:")
    assert [(p["name"], p["short_names"]) for p in _parties(text)] == [
        ("DAIRY CREST LIMITED", ["DCL"]), ("SEV GROUP LIMITED", ["SEV"])]


def test_a_country_defined_in_a_party_description_is_not_a_party():
    text = ("JOINT VENTURE CONTRACT\n\nThe parties to this contract are:\n\n1. Baoding Works Co., Ltd. "
            "(hereinafter referred to as Party A), established in China.\n\n2. Valence Cells, Inc., "
            "(hereinafter referred to as Party B), existing under the laws of the State of Delaware in the "
            'United States of America ("USA").\n\n3. Each of the Parties hereby represents')
    assert [p["name"] for p in _parties(text)] == ["Baoding Works Co., Ltd.", "Valence Cells, Inc."]


def test_a_letter_ndas_defined_transaction_is_not_a_short_name():
    parties = _parties(
        "Larkspur Analytics, Inc.\n100 Main Street\nBoston, MA 02110\n\nMarch 3, 2021\n\nCopperline Capital "
        "Partners LLC\n9 Elm Street\nNew York, NY 10001\n\nLadies and Gentlemen:\n\nIn connection with your "
        "consideration of a possible negotiated transaction (the \"Transaction\") with Larkspur Analytics, Inc. "
        "(the \"Company\"), you have requested information concerning the Company.\n\n1. You shall keep the "
        "Evaluation Material confidential.\n\nVery truly yours,\n\nLARKSPUR ANALYTICS, INC.\n\nBy: /s/ John Roe\n"
        "Name: John Roe\nTitle: Chief Executive Officer\n\nAccepted and agreed as of the date first written above:"
        "\n\nCOPPERLINE CAPITAL PARTNERS LLC\n\nBy: /s/ Jane Doe\nName: Jane Doe\nTitle: Managing Partner\n")
    assert [p["name"] for p in parties] == ["Larkspur Analytics, Inc.", "COPPERLINE CAPITAL PARTNERS LLC"]
    assert parties[0]["short_names"] == ["Company"]


def test_a_letter_nda_names_the_company_not_the_salutation_nor_the_addressee_block():
    text = (
        "CONFIDENTIAL\n\nJune 1, 2019\n\nOrion Capital Partners, L.P.\n100 Park Avenue\nNew York, NY 10017\n"
        "Attention: Mr. Sam Smith\n\nLadies and Gentlemen:\n\nIn connection with your consideration of a possible "
        'negotiated transaction (the "Transaction") with Vega Holdings Corp. (the "Company"), the Company is prepared '
        'to make available to you certain information concerning the Company (the "Evaluation Material").\n\n'
        "Very truly yours,\n\nVEGA HOLDINGS CORP.\nBy: /s/ Ann Lee\nName: Ann Lee\nTitle: General Counsel\n\n"
        "Accepted and agreed as of the date first written above:\n\nORION CAPITAL PARTNERS, L.P.\nBy: /s/ Sam Smith\n"
        "Name: Sam Smith\nTitle: Partner\n"
    )
    parties = _parties(text)
    assert [(p["name"], p["short_names"]) for p in parties] == [
        ("Vega Holdings Corp.", ["Company"]), ("ORION CAPITAL PARTNERS, L.P.", [])]


def test_the_undersigned_individual_is_named_by_the_block_headed_by_their_role():
    text = ('This Agreement is made between Delta Medical Devices, Inc. ("Company") and the undersigned individual '
            '("Recipient").\n\n1. Recipient agrees to keep all Confidential Information confidential.\n\n'
            "DELTA MEDICAL DEVICES, INC.\nBy: /s/ Paul Grant\nName: Paul Grant\nTitle: CEO\n\n"
            "RECIPIENT\nSignature: /s/ Laura Chen\nName: Laura Chen\nDate: February 3, 2023\n")
    assert [(p["name"], p["role"], p["kind"]) for p in _parties(text)] == [
        ("Delta Medical Devices, Inc.", "Company", "organisation"), ("Laura Chen", "Recipient", "individual")]


def test_the_company_identified_below_is_named_by_its_signature_block():
    text = ('This agreement is between Pinecrest Software Corporation, having its principal place of business at '
            '500 Oak Ave, Austin, Texas 78701 (hereinafter referred to as "Pinecrest") and the company identified '
            'below (hereinafter referred to as "Company").\n\nThe term of this Agreement is one (1) year.\n\n'
            "PINECREST SOFTWARE CORPORATION\nBy: ______\nName: John Roe\nTitle: CEO\n\n"
            "COMPANY: Redwood Logistics, Inc.\nBy: ______\nName: Mary Major\nTitle: President\n")
    assert [(p["name"], p["role"]) for p in _parties(text)] == [
        ("Pinecrest Software Corporation", None), ("Redwood Logistics, Inc.", "Company")]


def test_the_reader_addressed_as_you_is_named_by_the_block_headed_by_their_role():
    text = ('This Confidentiality Agreement is between Lakeside Bank, N.A. ("Lakeside") and you, the employee '
            'signing below ("you").\n\nYou agree to keep the Bank\'s Confidential Information secret.\n\n'
            "LAKESIDE BANK, N.A.\nBy: /s/ Ann Gray\nName: Ann Gray\n\nEMPLOYEE\nSignature: ____\nName: Robert Brown\n")
    assert [(p["name"], p["short_names"], p["kind"]) for p in _parties(text)] == [
        ("Lakeside Bank, N.A.", ["Lakeside"], "organisation"), ("Robert Brown", ["you"], "individual")]


def test_an_ndas_disclosing_and_receiving_party_are_short_names():
    text = ('This Non-Disclosure Agreement ("Agreement") is entered into on this 12th day of August, 2021 by and between '
            "ABC Technologies Corp., with its principal place of business at 55 Elm Street, Austin, Texas 78701, "
            'hereinafter referred to as "Disclosing Party", and XYZ Consulting Ltd., with its principal place of '
            'business at 9 King Street, Toronto, Ontario, hereinafter referred to as "Receiving Party".\n\n'
            "1. The Receiving Party shall hold the Confidential Information in strict confidence.")
    assert [(p["name"], p["short_names"]) for p in _parties(text)] == [
        ("ABC Technologies Corp.", ["Disclosing Party"]), ("XYZ Consulting Ltd.", ["Receiving Party"])]


def test_a_first_person_undertaking_names_the_company_and_the_writer():
    text = (
        "EMPLOYEE CONFIDENTIALITY AND INVENTION ASSIGNMENT AGREEMENT\n\nIn consideration of my employment by "
        'Tarnwood Robotics, Inc., a Delaware corporation (the "Company"), I, Michael Chen, agree as follows:\n\n'
        "1. I will hold in strictest confidence all Proprietary Information of the Company.\n"
    )
    company, writer = _parties(text)
    assert (company["name"], company["short_names"], company["jurisdiction"]) == (
        "Tarnwood Robotics, Inc.", ["Company"], "Delaware")
    assert (writer["name"], writer["kind"]) == ("Michael Chen", "individual")


def test_names_with_an_alias_an_at_sign_or_a_leading_digit():
    value = read_parties(
        'This Endorsement Agreement is entered into as of June 1, 2010 by and between Velocity Sports Nutrition, '
        'Inc. ("Company") and Marcus Allen Johnson p/k/a "Big Mac" ("Athlete").\n\n1. Services.')
    assert value is not None and value.value == (
        'Velocity Sports Nutrition, Inc. ("Company"); Marcus Allen Johnson ("Athlete")')
    value = read_parties('This Hosting Agreement is between 1-800-BLOOMS.COM, Inc. ("1-800-Blooms") and '
                         'Relay@Home, Inc. ("Relay").\n\n1. Hosting.')
    assert value is not None and value.value == '1-800-BLOOMS.COM, Inc. ("1-800-Blooms"); Relay@Home, Inc. ("Relay")'


def test_a_person_who_signs_a_joint_filing_for_themselves_is_a_party():
    value = read_parties(
        "JOINT FILING AGREEMENT\n\nThe undersigned hereby agree that the Schedule 13G with respect to the common "
        "stock of Zeta Corp. is filed on behalf of each of them.\n\nDated: February 14, 2020\n\n"
        "ALPINE CAPITAL PARTNERS, L.P.\nBy: /s/ John Roe\n\nALPINE CAPITAL GP, LLC\nBy: /s/ John Roe\n\n"
        "JOHN ROE\n/s/ John Roe\n")
    assert value is not None
    assert [(p["name"], p["kind"]) for p in value.detail["parties"]] == [
        ("ALPINE CAPITAL PARTNERS, L.P.", "organisation"), ("ALPINE CAPITAL GP, LLC", "organisation"),
        ("JOHN ROE", "individual")]


def test_every_block_of_a_joint_filing_agreement_from_its_first_conformed_signature():
    """Blocks that start in the document's first half, some with no "By:" above the "/s/"."""
    blocks = "".join(
        f"{name}\n{by}/s/ Ann Lee\nName: Ann Lee\nTitle: Authorized Signatory\n"
        for name, by in [("KESTREL PARTNERS, LLC", ""), ("KESTREL FUND II, L.P.", "By: Kestrel Partners, LLC, its general partner\n"),
                         ("KESTREL OFFSHORE FUND, LTD.", ""), ("KESTREL HOLDINGS GP, LLC", ""),
                         ("KESTREL PARTNERS LUX S.À R.L", ""), ("KESTREL PARTNERS LUX S.À R.L II", ""),
                         ("KESTREL PARTNERS - OFFSHORE INVESTMENT MASTER FUND II,\nL.P.",
                          "By: Kestrel Partners, LLC, its investment manager\n")])
    value = read_parties(
        "JOINT FILING AGREEMENT\n\nThe undersigned hereby agree to the joint filing of the Statement on Schedule 13D "
        "to which this agreement is attached.\n\nDated: July 6, 2020\n\n" + blocks)
    assert value is not None
    assert [p["name"] for p in value.detail["parties"]] == [
        "KESTREL PARTNERS, LLC", "KESTREL FUND II, L.P.", "KESTREL OFFSHORE FUND, LTD.", "KESTREL HOLDINGS GP, LLC",
        "KESTREL PARTNERS LUX S.À R.L", "KESTREL PARTNERS LUX S.À R.L II",
        "KESTREL PARTNERS - OFFSHORE INVESTMENT MASTER FUND II, L.P."]


def test_parties_defined_each_by_itself_are_two_parties_with_one_role():
    value = read_parties(
        "THIS JOINT VENTURE AGREEMENT is made this 20th day of March 2020, BETWEEN:\nAlder Loans.com, inc of 512 "
        "Bay Drive, suite 201, Tampa FL 33604, and Birch Health, LLC dba Shots2Go of 4060 Creek Parkway\nSuite H, "
        'Duluth, GA 30024 (individually the "Member" and collectively the "Members").\nBACKGROUND:\nA. The Members.')
    assert value is not None
    assert [(p["name"], p["short_names"]) for p in value.detail["parties"]] == [
        ("Alder Loans.com, inc", ["Member"]), ("Birch Health, LLC", ["Member"])]
    capitals = read_parties('THIS AGREEMENT is made BETWEEN\nCEDAR MILLS LIMITED of 1 Quay Street, Cork\nAND\n'
                            'DUNE FOODS LLC of 9 Pier Road, Miami (each a "Shareholder").\n\n1. Shares.')
    assert capitals is not None
    assert [(p["name"], p["short_names"]) for p in capitals.detail["parties"]] == [
        ("CEDAR MILLS LIMITED", ["Shareholder"]), ("DUNE FOODS LLC", ["Shareholder"])]


def test_names_holding_a_street_and_roles_defined_in_a_definitions_section():
    value = read_parties('This agreement is between Acorn Design Studio (the "Designer") and Maple Street Bakery '
                         '(the "Client").\n\n1. Services.')
    assert value is not None and value.value == 'Acorn Design Studio ("Designer"); Maple Street Bakery ("Client")'
    value = read_parties(
        "EMPLOYMENT AGREEMENT\n\nThis Employment Agreement is made as of January 1, 2011 between the Company and the "
        'Executive named below.\n\n1. Definitions. "Company" means Titan Logistics, Inc., a Delaware corporation. '
        '"Executive" means Sarah Kim.\n\n2. Duties.')
    assert value is not None
    assert [(p["name"], p["short_names"], p["kind"]) for p in value.detail["parties"]] == [
        ("Titan Logistics, Inc.", ["Company"], "organisation"), ("Sarah Kim", ["Executive"], "individual")]


def test_a_street_in_an_address_is_still_no_name():
    value = read_parties('This Agreement is made between Alder Corp., 100 Main Street, Springfield ("Alder") and '
                         'Birch LLC, Fleet Street, London ("Birch").\n\n1. Services.')
    assert value is not None and value.value == 'Alder Corp. ("Alder"); Birch LLC ("Birch")'


def test_nda_layouts_read_from_a_made_effective_by_an_unquoted_role_a_list_of_the_undersigned_and_a_first_person():
    def names(text: str) -> list[tuple[str, list[str]]]:
        return [(p["name"], p["short_names"]) for p in _parties(text)]

    assert names('This Non-Disclosure Agreement ("Agreement") is made effective as of April 2, 2024 (the "Effective '
                 'Date") by Verdant Foods Co., an Oregon corporation ("Discloser"), and Marcus Lee, an individual '
                 'residing in Portland, Oregon ("Recipient").\n\n1. Confidentiality.') == [
        ("Verdant Foods Co.", ["Discloser"]), ("Marcus Lee", ["Recipient"])]
    # An Australian deed's roles, unquoted at the end of each party's line; a subtitle alone on its line is no role.
    assert names("CONFIDENTIALITY DEED\n(Project Koala)\n\nParties\nSouthern Cross Mining Pty Ltd ACN 123 456 789 of 10 "
                 "George Street, Sydney NSW 2000 (Discloser)\nBlue Gum Engineering Pty Ltd ACN 987 654 321 of 5 Collins "
                 "Street, Melbourne VIC 3000 (Recipient)\n\n1. Term") == [
        ("Southern Cross Mining Pty Ltd", ["Discloser"]), ("Blue Gum Engineering Pty Ltd", ["Recipient"])]
    assert names("MANUFACTURING AND SUPPLY AGREEMENT\n(KX-12 Licensed Products)\nBetween\nHANBIT CO., LTD.\nAnd\nORCHID "
                 "THERAPEUTICS, INC.\nDated: May 2, 2018\n\nMANUFACTURING AND SUPPLY AGREEMENT\n(KX-12 Licensed Products)\n"
                 "This Agreement is made as of May 2, 2018 by and between:\nHanbit Co., Ltd., a corporation of the "
                 'Republic of Korea ("Hanbit") and\nOrchid Therapeutics, Inc., a Delaware corporation ("Orchid").\n'
                 "RECITALS") == [("Hanbit Co., Ltd.", ["Hanbit"]), ("Orchid Therapeutics, Inc.", ["Orchid"])]
    assert names('NON-DISCLOSURE AGREEMENT\n\nThe undersigned:\n\n1. Tulipa Software B.V., a private limited liability '
                 'company having its registered office in Amsterdam, hereinafter: "Tulipa";\n\nand\n\n2. Nordlys Energy '
                 'AS, a company incorporated under the laws of Norway, hereinafter: "Nordlys";\n\nagree as follows:') == [
        ("Tulipa Software B.V.", ["Tulipa"]), ("Nordlys Energy AS", ["Nordlys"])]
    assert names('CONFIDENTIALITY AGREEMENT\n\nI, Jordan Ellis, in consideration of my engagement as a consultant by '
                 'Summit Ridge Analytics LLC (the "Company"), agree to keep confidential all Confidential Information '
                 'of the Company.') == [("Summit Ridge Analytics LLC", ["Company"]), ("Jordan Ellis", [])]


def test_a_table_of_contents_line_is_not_a_party():
    from pipelines.terms.party_names import is_name

    assert not is_name("Software Support Services......................4")
    assert not is_name("Customer Obligations…… 5") and not is_name("Definitions . . . . 2")
    assert is_name("Heron Systems Ltd.") and is_name("J. P. Morgan Securities LLC")


def test_funds_whose_names_differ_by_a_letter_are_two_parties():
    """A bare letter ("IV-A", "IV-C") is part of a name; only a dotted one is a piece of a suffix."""
    from pipelines.terms.party_names import name_key, same_party

    assert not same_party("HERON FUND IV-A, L.P.", "HERON FUND IV-C, L.P.")
    assert same_party("Heron Fund IV-A, L.P.", "HERON FUND IV-A LP")
    assert name_key("Quill Partners S.A.") == name_key("Quill Partners")
    value = read_parties(
        "JOINT FILING AGREEMENT\n\nThe undersigned agree to the joint filing of this statement.\n\n"
        "IN WITNESS WHEREOF, the undersigned execute this Agreement.\n"
        "HERON FUND IV-A, L.P.\nBy: /s/ Ann Lee\nName: Ann Lee\n\n"
        "HERON FUND IV-C, L.P.\nBy: /s/ Ann Lee\nName: Ann Lee\n")
    assert value is not None
    assert [p["name"] for p in value.detail["parties"]] == ["HERON FUND IV-A, L.P.", "HERON FUND IV-C, L.P."]


def test_a_place_in_brackets_stays_in_the_name_in_a_preamble_and_under_a_label():
    preamble = ('This Alliance Agreement is made between Lantern Grid (Hong Kong) Ltd ("Lantern") and Osprey Tide '
                'Holdings PLC ("Osprey").\n\n1. Purpose.')
    assert _names(preamble) == ["Lantern Grid (Hong Kong) Ltd", "Osprey Tide Holdings PLC"]
    labelled = ("COOPERATION AGREEMENT\n\nParty A: Jade River Media Co., Ltd.\nAddress: 8 Harbour Road\n\n"
                "Party B: Lantern Grid (Hong Kong) Co., Ltd.\nAddress: 2 Queen Street\n\nWhereas:")
    assert _names(labelled) == ["Jade River Media Co., Ltd.", "Lantern Grid (Hong Kong) Co., Ltd."]


def test_a_label_seen_again_is_the_same_party():
    text = ("COLLABORATION AGREEMENT\n\nParty A: Jade River Media Co., Ltd.\nParty B: Pebble Leasing Co., Ltd\n\n"
            "1. Definitions\n1.1 \u201cPlatform\u201d refers to the platform operated by Party A: Jade Ride Marketplace.\n")
    assert _names(text) == ["Jade River Media Co., Ltd.", "Pebble Leasing Co., Ltd"]


def test_a_bullet_placeholder_names_a_template_party_defined_by_a_service_role():
    text = ("SERVICE AGREEMENT\n\nThis Service Agreement is entered into as of [Date] by and between:\n\n"
            "Party A: Cedar (Tianjin) Learning Co., Ltd. (\u201cService Provider\u201d)\n\nAddress: [\u2022]\n\n"
            "Party B: [\u2022] (\u201cService Recipient\u201d)\n\nAddress: [\u2022]\n\nWhereas:")
    parties = _parties(text)
    assert [(p["name"], p["short_names"]) for p in parties] == [
        ("Cedar (Tianjin) Learning Co., Ltd.", ["Service Provider"]), ("[\u2022]", ["Service Recipient"])]
    from pipelines.terms.party_mentions import _names_no_party

    assert _names_no_party("Services") and _names_no_party("Affiliate") and not _names_no_party("Exchange Agent")


def test_recitals_headed_in_spaced_capitals_end_the_preamble():
    text = ('This Agreement is made by and among Kite Ridge, a general partnership ("Partnership"), and Fenwick '
            'Management Inc., a California corporation ("Manager"):\n\n          R E C I T A L S\n\n'
            "A. The Partnership, all partners except Owl Wind (Prime), Inc. and Heron Wind (Prime) Inc., "
            "entered into an agreement.\n")
    assert _names(text) == ["Kite Ridge", "Fenwick Management Inc."]


def test_a_principal_acted_for_is_not_a_party_though_a_party_acting_for_itself_is():
    text = ('Agreement made between Juniper Fund Management LLC ("Juniper"), on behalf of Juniper Mutual Funds '
            '("the Trust"), and Slate Life Insurance Company ("Servicing Agent").\n\n1. Services.')
    assert _names(text) == ["Juniper Fund Management LLC", "Slate Life Insurance Company"]
    itself = ('This Alliance Agreement is by and between Quarry Health, LLC, a North Carolina limited liability '
              'company ("Quarry") on behalf of itself and its Affiliates and Tern Labs, Inc., a Delaware '
              'corporation (the "Company").\n\nRECITALS')
    assert _names(itself) == ["Quarry Health, LLC", "Tern Labs, Inc."]


def test_a_list_laid_out_under_the_following_parties_with_foreign_addresses():
    text = ('THIS ADDENDUM ("Addendum") is made on the 4th day of February 2019 between the following parties:\n'
            'Osprey Devices International, LLC, with an office at 3 Lake Point, Lincolnshire IL 60069 ("Osprey");\n\n'
            "Osprey Devices do Brasil Ltda., a company organized under the laws of Brazil, with offices at "
            'Av. Paulista, 4800, Sao Paulo ("Osprey Brazil")\n\nAND\n\nPylon Supply, Inc., a company incorporated in '
            'South Carolina ("Pylon").\n\nWHEREAS:')
    assert _names(text) == ["Osprey Devices International, LLC", "Osprey Devices do Brasil Ltda", "Pylon Supply, Inc."]


def test_a_between_after_a_relationship_or_a_conflict_starts_no_party_list():
    from pipelines.terms.party_mentions import preamble_mentions

    text = ('SPONSORSHIP TERMS\n\nThe Sponsor shall pay the fee.\n\nNothing herein establishes a joint venture or '
            'agency relationship between Kite Ridge Funding LLC ("KRF") and the Sponsor.\n\n')
    assert preamble_mentions(text) == []


def test_a_bare_short_name_with_a_stray_space_and_a_list_ended_by_an_earlier_short_name():
    stray = ("THIS AGREEMENT is made December 3, 2018 by and between NORTH DOCK LLC, a Delaware limited liability "
             "company (Developer ), and Pelham Couriers Inc. (Client).\n1. Term.")
    assert _names(stray)[0] == "NORTH DOCK LLC"
    earlier = ('Granite Bout Media, Inc. ("GBM"), a Delaware company, is the producer of a boxing event (the '
               '"Event"). This Sponsorship Agreement is made by and between Lotus Trading Ltd ("LT") a Beijing '
               'company (the "Sponsor") and GBM.\n\n1) The Sponsor wishes to sponsor the Event.')
    assert _names(earlier) == ["Lotus Trading Ltd", "Granite Bout Media, Inc."]


def test_a_long_table_of_contents_pushes_the_preamble_on():
    contents = "".join(f" {i}. HEADING NUMBER {i} ..........................................{i}\n" for i in range(1, 150))
    text = ("FRANCHISE AGREEMENT\nTABLE OF CONTENTS\n" + contents + "\nFRANCHISE AGREEMENT\n\nThis agreement is made "
            "by and between Twist Bakery, Inc., a Pennsylvania corporation (hereinafter referred to as \"Twist\") and "
            'Osprey Foods LLC ("Franchisee").\n\nNOW THEREFORE')
    assert text.index("This agreement") > 8000
    assert _names(text) == ["Twist Bakery, Inc.", "Osprey Foods LLC"]


def test_a_role_label_given_a_second_name():
    text = ("SUPPLY CONTRACT\nContract No:\nThe Buyer/End-User: Shenzhen Lotus Supply Chain Co., Ltd.\nADD:\n"
            "The Seller:\nADD:\n1. General provisions\n")
    assert _names(text) == ["Shenzhen Lotus Supply Chain Co., Ltd."]

"""Dates, term, renewal and notice values on synthetic contract text (no CUAD needed)."""
from __future__ import annotations

from pipelines.datamodel import PageText, document_text
from pipelines.rules.dates import find_written_dates, year_from_words
from pipelines.stages.segment import segment_document
from pipelines.terms import NOT_STATED, TermValue, read_terms


def _terms(*pages: str) -> tuple[str, dict[str, TermValue]]:
    page_texts = [PageText(number=i + 1, text=t, source="plain") for i, t in enumerate(pages)]
    text, _ = document_text(page_texts)
    return text, read_terms(text, segment_document(page_texts))


def _quoted(text: str, value: TermValue, role: str) -> str:
    quote = next(q for q in value.evidence if q.role == role)
    return text[quote.start:quote.end]


def test_blank_template_date_is_not_stated_never_a_year():
    _, terms = _terms(
        'SUPPLY AGREEMENT\n\nThis Supply Agreement is made the ____ day of ________, 2000 (the "Effective Date") '
        "by and between Northwind Pumps Inc. and Harbor Valve Co.")
    assert terms["Agreement Date"].value == NOT_STATED
    assert terms["Effective Date"].value == NOT_STATED
    assert terms["Agreement Date"].detail["text"] == "____ day of ________, 2000"


def test_bracketed_blank_after_dated_as_of_is_not_stated():
    _, terms = _terms("This Licence Agreement is dated as of [●], 2019 between Quill Labs Ltd and Ostrander GmbH.")
    assert terms["Agreement Date"].value == NOT_STATED


def test_effective_by_reference_resolved_from_last_signature():
    text, terms = _terms(
        "SERVICES AGREEMENT\n\nThis Services Agreement is effective as of the date of the last signature below "
        '(the "Effective Date") between Larkspur Analytics LLC and Copperline Foods Inc.\n\n'
        "1. Services. Larkspur shall provide the services described in Exhibit A.",
        "LARKSPUR ANALYTICS LLC\nBy: /s/ Jane Roe\nName: Jane Roe\nDate: March 3, 2021\n\n"
        "COPPERLINE FOODS INC.\nBy: /s/ John Doe\nName: John Doe\nDate: March 9, 2021")
    effective = terms["Effective Date"]
    assert effective.value == "2021-03-09"
    assert effective.detail["reference"] == "the date of the last signature below"
    assert _quoted(text, effective, "date") == "March 9, 2021"


def test_effective_as_of_the_last_date_of_signature():
    """An NDA's wording: the last date of signature, not the date of the last signature."""
    _, terms = _terms(
        "NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made between Quartz Diagnostics, LLC (\"Disclosing Party\") "
        "and Dr. Amara Obi (\"Receiving Party\"), effective as of the last date of signature below.\n\n"
        "QUARTZ DIAGNOSTICS, LLC\nBy: /s/ Lena Park\nDate: June 3, 2019\n\nDR. AMARA OBI\n/s/ Amara Obi\n"
        "Date: June 5, 2019")
    effective = terms["Effective Date"]
    assert effective.value == "2019-06-05"
    assert effective.detail["reference"] == "the last date of signature below"


def test_effective_by_reference_without_a_computable_date_keeps_the_phrase():
    _, terms = _terms(
        "This Trademark Agreement is entered into by Fennel Brands Inc. and Juniper Retail LLC. "
        '"Effective Date" means the Closing Date as defined in the Purchase Agreement.')
    effective = terms["Effective Date"]
    assert effective.value == "the Closing Date as defined in the Purchase Agreement"
    assert effective.detail["reference"] == effective.value


def test_dates_written_in_words():
    _, terms = _terms(
        "This Agreement is made this first day of March, two thousand and five, between Alder Freight Ltd "
        "and Birchwood Mills plc.")
    assert terms["Agreement Date"].value == "2005-03-01"
    assert terms["Agreement Date"].detail["text"] == "first day of March, two thousand and five"
    assert year_from_words("nineteen ninety-eight") == 1998
    assert [d.iso for d in find_written_dates("as of the twenty-first day of June in the year nineteen ninety-nine")] \
        == ["1999-06-21"]


def test_loose_punctuation_in_dates():
    assert [d.iso for d in find_written_dates("made this 16 day of August. 2012 by")] == ["2012-08-16"]
    assert [d.iso for d in find_written_dates("entered into as of1 August 2019, by")] == ["2019-08-01"]


def test_signature_block_date_when_the_preamble_has_none():
    _, terms = _terms(
        "CONSULTING AGREEMENT\n\nThis Consulting Agreement is entered into by Rowan Advisory LLC and "
        "Tamarack Health Inc.\n\n1. Fees. Tamarack shall pay the fees in Exhibit B.",
        "ROWAN ADVISORY LLC\nBy: /s/ Ann Lee\nTitle: Manager\nDate: July 14, 2022")
    assert terms["Agreement Date"].value == "2022-07-14"
    assert terms["Agreement Date"].detail["how"] == "signature"


def test_a_contract_dated_only_by_its_signatures_is_made_on_the_last_one_unless_a_date_line_heads_it():
    _, terms = _terms(
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is entered into by Wrenfield Grains Ltd and Ostler Bakeries Inc."
        "\n\n1. Supply. Wrenfield shall supply the flour listed in Exhibit A.",
        "WRENFIELD GRAINS LTD      OSTLER BAKERIES INC.\nBy: /s/ Ann Lee      By: /s/ Raj Patel\n"
        "Date: January 26, 2020      Date: January 27, 2020")
    assert terms["Agreement Date"].value == "2020-01-27"
    assert terms["Agreement Date"].detail["how"] == "signature"
    # A "Date:" line above every signature block is the contract's own date.
    _, terms = _terms(
        "MAINTENANCE AGREEMENT\n\nDate: March 1, 1998\n\nContract No.: 4544\n\nBetween Kestrel Clinics Inc. "
        "and Fenwick Systems LLC.\n\n1. Services. Fenwick shall maintain the equipment.",
        "KESTREL CLINICS INC.      FENWICK SYSTEMS LLC\nBy: /s/ Ann Lee      By: /s/ Raj Patel\n"
        "Date: March 4, 1998      Date: March 5, 1998")
    assert terms["Agreement Date"].value == "1998-03-01"


def test_signature_dates_on_a_form_that_prints_its_labels_under_the_fields():
    _, terms = _terms(
        "HOSTING AGREEMENT\n\nUnder this Hosting Agreement between Gannet Networks Corp. (\"Gannet\") and "
        "Harrow Outfitters, Inc. (\"Customer\"), Gannet will host Customer's web site.",
        "Agreed and Accepted:\n\nHarrow Outfitters, Inc.              Gannet Networks Corp.\n\n"
        "By: /s/ Ann Lee                      By: /s/ Raj Patel\n"
        "  -------------------------            -------------------------\n"
        "  Customer Authorized Signature        Authorized Signature\n\n"
        "Ann Lee         1/9/02                 Raj Patel        1/14/02\n"
        "-----------------------------          -----------------------------\n"
        "Name (type or print)      Date         Name (type or print)       Date\n")
    assert terms["Agreement Date"].value == "2002-01-14"
    _, terms = _terms(
        "RESELLER AGREEMENT\n\nThis Reseller Agreement is entered into as of the Effective Date by and between "
        "Gannet Networks Corp. and Harrow Outfitters, Inc.\n"
        "By: /s/ Ann Lee By: /s/ Raj Patel\nAnn Lee Raj Patel\nPrinted Name Printed Name\n"
        "4/24/2018 04/25/2018\nDate Date\n\n1. Appointment. Gannet appoints Harrow as a reseller.")
    assert terms["Agreement Date"].value == "2018-04-25"


def test_thus_done_and_signed_at_a_place_on_a_day_dates_the_contract():
    _, terms = _terms(
        "LICENCE AND MAINTENANCE AGREEMENT\n\nentered into by and between\n\nVELDT SOFTWARE (PTY) LIMITED\n"
        "and\n\nKAROO TELECOMS LIMITED\n\n1. RECORDAL\n\nIt is recorded that Veldt licenses its software.\n\n"
        + "2. MAINTENANCE\n\nVeldt shall maintain the software and correct its faults as the schedule sets out.\n\n"
        * 40,  # the signing page comes after the first pages, where a date would be the contract's first
        "THUS DONE AND SIGNED at Pretoria on this 31st day of March 2001\n\nFor and on behalf of Veldt\n/S/ A. Botha")
    assert terms["Agreement Date"].value == "2001-03-31"


def test_a_clause_that_dates_a_named_agreement_after_its_adjective():
    _, terms = _terms(
        "AFFILIATE AGREEMENT\n\nGentlemen:\n\nThe undersigned is a shareholder of Talbot Medical Supply, Inc. "
        "and will become a shareholder of Corran Health, Inc. pursuant to the Agreement and Plan of Merger, "
        "dated as of "
        "December 14, 1997, between them.\n\n1. Shares. The undersigned shall not sell the shares.\n\n"
        + "2. Covenants. The undersigned shall hold the shares as the letter sets out, and no sale shall be made "
        "while the restrictions last.\n\n" * 100  # past the first pages, where a cued date is the preamble's
        + "This Affiliate Agreement is executed as of the 14th day of December, 1997.\n\nVery truly yours,")
    assert terms["Agreement Date"].value == "1997-12-14"
    assert terms["Agreement Date"].detail["how"] == "dated-clause"


def test_the_date_of_the_schedule_a_joint_filing_agreement_is_about_is_not_its_own():
    _, terms = _terms(
        "JOINT FILING AGREEMENT\nThe undersigned hereby agree that the Schedule 13G/A with respect to the shares of "
        "Class A Common Stock, $0.001 par value per share, of Pellham Trust Inc., dated as of December 31, 2019, is, "
        "and any amendments thereto signed by each of the undersigned shall be, filed on behalf of each of them.",
        "FENNIMORE CAPITAL LP\nBy: /s/ Ann Lee\nName: Ann Lee\nDate: January 22, 2020")
    assert terms["Agreement Date"].value == "2020-01-22"


def test_effective_dates_glued_by_the_text_layer_for_all_purposes_on_the_day_of_or_labelled_in_a_schedule():
    parties = " by and between Osprey Minerals Inc. and Tallis Freight LLC."
    cases = {
        "This Development Agreement is entered into on April 15, 2010 (\u201cEffectiveDate\u201d)" + parties:
            "2010-04-15",
        "THIS AMENDMENT is made and entered into, effective for all purposes and in all respects as of\n"
        "the 23rd day of February, 1998," + parties: "1998-02-23",
        "COOPERATION AGREEMENT" + parties + "\n\n3.1 This Agreement is effective on the day of May 1, 2013 and "
        "the effective term is two years.": "2013-05-01",
        "OUTSOURCING AGREEMENT" + parties + "\n\n1.4 Contract Term\n\nThe commencement date for this contract "
        "will be 16th June 2004.": "2004-06-16",
        "CONTENT LICENSING AGREEMENT" + parties + "\n\nAPPENDIX 2\n\n2 TERMS\n\n 2.1 Contract start: 04-01-06\n\n"
        " 2.2 Contract end: 04-01-08": "2006-04-01",
    }
    for text, effective in cases.items():
        assert _terms(text)[1]["Effective Date"].value == effective, text
    _, terms = _terms(
        "TRANSPORTATION AGREEMENT" + parties + "\n\n14.This Agreement takes effect upon the signatures and seals of "
        "both Parties in triplicate.",
        "Party A: Osprey Minerals Inc. Party B: Tallis Freight LLC\nCompany seal: /s/ Osprey Minerals Inc.\n\n"
        "Date: December 22, 2014 Date: December 22, 2014")
    assert terms["Effective Date"].value == "2014-12-22"


def test_template_blank_whose_underscores_the_text_layer_dropped_is_not_stated():
    _, terms = _terms("STRATEGIC ALLIANCE AGREEMENT\n\nAGREEMENT made as of  , 2013, between Alder Freight Ltd "
                      "and Birchwood Mills plc.")
    assert terms["Agreement Date"].value == NOT_STATED
    assert terms["Agreement Date"].detail["text"] == ", 2013"


def test_blank_date_centred_under_the_title_is_not_stated():
    _, terms = _terms("AGENCY AGREEMENT\n\n" + " " * 60 + "____________, 1996\n\nCoastal Savings Bank, a "
                      "savings bank, proposes to sell shares of its common stock. The offering closed on "
                      "March 31, 1995 for the holding company.")
    assert terms["Agreement Date"].value == NOT_STATED


def test_month_followed_by_a_full_stop_and_dotted_day_first_dates():
    _, terms = _terms('This Service Agreement ("Agreement") is entered into on April. 1st 2019 ("Effective Date") '
                      "by and between Alder Freight Ltd and Birchwood Mills plc.")
    assert terms["Agreement Date"].value == terms["Effective Date"].value == "2019-04-01"
    _, terms = _terms('This Manufacturing Agreement (the "Agreement") is effective as of the 1.4.2011 (the '
                      '"Effective Date") by and between Alder Freight Ltd and Birchwood Mills plc.')
    assert terms["Effective Date"].value == "2011-04-01"


def test_last_signature_read_from_fields_run_together_and_a_second_column():
    _, terms = _terms(
        "SERVICES AGREEMENT\n\nThis Services Agreement is effective as of the date of the last signature below "
        '(the "Effective Date") between Larkspur Analytics LLC and Copperline Foods Inc.',
        "By: /s/ Jane Roe Name: Jane Roe Title: CEO Date: March 3, 2021\n"
        "By: /s/ John Doe      By: /s/ Ann Lee\nDate: March 4, 2021      Date: March 11, 2021")
    assert terms["Effective Date"].value == "2021-03-11"


def test_initial_term_and_computed_expiration_keep_their_chain():
    text, terms = _terms(
        'This Distribution Agreement is entered into as of March 1, 2010 (the "Effective Date") between '
        "Quarry Tools Inc. and Meadow Supply LLC.\n\n"
        "2. Term. This Agreement shall have an initial term of five (5) years from the Effective Date, "
        "unless terminated earlier as provided herein.")
    assert terms["Initial Term"].value == "P5Y"
    assert terms["Initial Term"].detail["text"] == "five (5) years"
    expiration = terms["Expiration Date"]
    assert expiration.value == "2015-03-01"  # same calendar day, as CUAD counts terms
    assert expiration.detail["computed_from"] == {"start": "2010-03-01", "term": "P5Y"}
    assert "initial term of five (5) years" in _quoted(text, expiration, "term clause")
    assert _quoted(text, expiration, "start date") == "March 1, 2010"


def test_term_counts_from_its_own_commencement_date():
    _, terms = _terms(
        "This Hosting Agreement is dated January 5, 2018 between Vireo Cloud Inc. and Pike Media LLC.\n\n"
        "3. Term. The term of this Agreement shall commence on February 1, 2018 and shall continue for a "
        "period of two (2) years.")
    assert terms["Expiration Date"].value == "2020-02-01"
    assert terms["Expiration Date"].detail["computed_from"]["start"] == "2018-02-01"


def test_explicit_expiration_date():
    text, terms = _terms(
        "This Sponsorship Agreement is made as of April 2, 2019 between Kestrel Events LLC and Sable Drinks Co.\n\n"
        "4. Term. The term of this Agreement shall begin on the date hereof and shall expire on December 31, 2022.")
    assert terms["Expiration Date"].value == "2022-12-31"
    assert _quoted(text, terms["Expiration Date"], "end date") == "December 31, 2022"
    assert "Initial Term" not in terms


def test_perpetual_and_until_terminated_terms():
    _, perpetual = _terms(
        "This Licence Agreement is made as of May 5, 2015 between Osprey Software Ltd and Gannet Bank plc.\n\n"
        "6. Term. This Agreement shall remain in effect in perpetuity.")
    assert perpetual["Initial Term"].value == "perpetual"
    assert perpetual["Expiration Date"].value == "perpetual"
    _, open_ended = _terms(
        "This Agency Agreement is made as of June 1, 2016 between Heron Capital LLC and Egret Funds Trust.\n\n"
        "7. Term. This Agreement shall continue in effect until terminated by either party.")
    assert open_ended["Initial Term"].value == "until terminated"
    assert open_ended["Expiration Date"].value == "until terminated"


def test_successive_automatic_renewal_and_notice_period():
    _, terms = _terms(
        "This Supply Agreement is made as of July 1, 2020 between Plover Chemicals Inc. and Curlew Paints LLC.\n\n"
        "2. Term. This Agreement shall have an initial term of three (3) years.\n\n"
        "3. Renewal. Thereafter this Agreement shall automatically renew for successive one-year periods unless "
        "either party gives notice of non-renewal at least ninety (90) days prior to the end of the "
        "then-current term.")
    renewal = terms["Renewal Term"]
    assert renewal.value == "P1Y"
    assert renewal.detail["successive"] is True
    assert renewal.detail["automatic"] is True
    notice = terms["Notice Period To Terminate Renewal"]
    assert notice.value == "P90D"
    assert notice.detail["text"] == "ninety (90) days"


def test_renewals_written_without_the_usual_words():
    cases = {
        "The term of this Agreement shall be two (2) years with automatic annual renewals thereafter.": "P1Y",
        "The Agreement is established by calendar year and renewed tacitly every year.": "P1Y",
        "This Agreement will extend automatically for monthly periods unless either party objects.": "P1M",
        "The Contract shall be prolonged, or further extended automatically for a period of 12 months.": "P12M",
        "Buyer may extend the term of this Agreement for an additional one year by notice.": "P1Y",
        "Reseller shall have the right to annually renew this agreement for a period of one year.": "P1Y",
    }
    for sentence, value in cases.items():
        _, terms = _terms("This Services Agreement is made as of March 1, 2019 between Teal Works Ltd and Smew "
                          f"Data Inc.\n\n2. Term. {sentence}")
        assert terms["Renewal Term"].value == value, sentence
    _, tacit = _terms("This Services Agreement is made as of March 1, 2019 between Teal Works Ltd and Smew Data "
                      "Inc.\n\n2. Duration. The Agreement is renewed tacitly every year.")
    assert tacit["Renewal Term"].detail["automatic"] is True


def test_notice_periods_written_around_the_renewal():
    cases = {
        ("The Agreement will automatically renew for additional periods of five (5) years unless one Party notifies "
         "the other of its intention not to renew, no less than 12 months prior to the expiration of the term."): "P12M",
        ("This contract shall be for a term of one year; thereafter, it shall automatically continue until terminated "
         "by either party upon not less than thirty (30) days prior written notice to the other party."): "P30D",
        ("This Agreement shall automatically be renewed for successive one (1) year increments unless either party "
         "requests in writing, at least ninety (90) days prior to the anniversary date, that it not be renewed."): "P90D",
        ("This agreement will be automatically renewed at the end of every ten (10) year term. A six (6) months "
         "notice must be given by either party of their intention to terminate relations."): "P6M",
    }
    for clause, value in cases.items():
        _, terms = _terms("This Supply Agreement is made as of March 1, 2019 between Teal Works Ltd and Smew Data "
                          f"Inc.\n\n2. Term. {clause}")
        assert terms["Notice Period To Terminate Renewal"].value == value, clause


def test_renewal_option_is_not_automatic():
    _, terms = _terms(
        "This Lease Services Agreement is made as of August 3, 2017 between Dunlin Estates Ltd and Avocet Care plc.\n\n"
        "5. Term. The term of this Agreement shall be two (2) years from the date hereof.\n\n"
        "6. Renewal. Avocet shall have the option to renew this Agreement for an additional term of two (2) years "
        "by written notice given at least six (6) months before the end of the term.")
    renewal = terms["Renewal Term"]
    assert renewal.value == "P2Y"
    assert renewal.detail["automatic"] is False
    assert renewal.detail["kind"] == "option"
    # the notice that exercises an option is not a notice to stop a renewal (CUAD leaves it blank)
    assert "Notice Period To Terminate Renewal" not in terms


def test_nda_term_and_survival_are_reported():
    _, terms = _terms(
        "MUTUAL NONDISCLOSURE AGREEMENT\n\nThis Mutual Nondisclosure Agreement is entered into as of "
        'September 15, 2021 (the "Effective Date") by Wren Robotics Inc. and Finch Sensors Ltd.\n\n'
        "1. Confidential Information. Each party may disclose confidential information to the other.\n\n"
        "2. Term. This Agreement shall remain in effect for two (2) years from the Effective Date.")
    assert terms["Initial Term"].value == "P2Y"
    assert terms["Expiration Date"].value == "2023-09-15"
    _, survival = _terms(
        "NONDISCLOSURE AGREEMENT\n\nThis Nondisclosure Agreement is made as of October 1, 2020 by Lark Bio Inc. "
        "and Thrush Pharma LLC.\n\n"
        "The obligations of the receiving party under this Agreement shall survive for five (5) years.")
    assert survival["Initial Term"].value == "P5Y"
    assert survival["Expiration Date"].value == "2025-10-01"


def test_effective_date_absent_when_the_contract_never_speaks_of_one():
    _, terms = _terms("This Referral Agreement is made as of May 8, 2014 between Merlin Travel LLC and Kite Tours Inc.")
    assert terms["Agreement Date"].value == "2014-05-08"
    assert "Effective Date" not in terms


def test_term_counted_from_an_event_leaves_the_expiration_open():
    _, terms = _terms(
        "This Co-Marketing Agreement is made as of March 2, 2016 between Gull Apps Inc. and Tern Media LLC.\n\n"
        "9. Term. The term of this Agreement shall end three (3) years after the Launch Date.")
    assert terms["Initial Term"].value == "P3Y"
    expiration = terms["Expiration Date"]
    assert expiration.value == NOT_STATED
    assert expiration.detail["counted_from"] == "the Launch Date."


def test_effective_date_from_a_commencement_clause():
    _, terms = _terms(
        "This Joint Venture Agreement is made as of February 10, 2003 between Lynx Mining Co. and Ibis Metals Ltd.\n\n"
        "8. The Joint Venture shall commence on March 1, 2003, and shall be effective until February 28, 2004.")
    assert terms["Agreement Date"].value == "2003-02-10"
    assert terms["Effective Date"].value == "2003-03-01"
    assert terms["Effective Date"].detail["how"] == "takes-effect"


def test_effective_from_its_own_date_is_the_agreement_date():
    _, terms = _terms(
        "COOPERATION AGREEMENT\n\nThis Cooperation Agreement is dated as of May 13, 2020, by and among Tern "
        "Capital Ltd. and Gannet Holdings, Inc.\n\n5. Termination. (a) This Agreement is effective as of the date "
        "hereof and shall remain in full force and effect until the annual meeting.")
    assert terms["Effective Date"].value == "2020-05-13"
    assert terms["Effective Date"].detail["reference"] == "the date hereof"
    _, terms = _terms(
        "PROMOTION AGREEMENT\n\nThis Agreement is made on the 15th day of January 2018 between Heron Foods Inc. "
        "and Plover Retail LLC.\n\n9.1This Agreement shall become effective on the date on which it is signed by "
        "both Parties.")
    assert terms["Effective Date"].value == "2018-01-15"


def test_a_period_of_something_else_or_another_instrument_gives_no_effective_date():
    _, terms = _terms(
        "COOPERATION AGREEMENT\n\nThis Agreement, dated as of June 27, 2017, is made by Osprey Partners LP and "
        "Kite Group, Inc.\n\n" + "1. Standstill. Each Investor shall vote its shares as the Board recommends.\n\n" * 90
        + "(f) For purposes of this Agreement, “Standstill Period” shall mean the period "
        "commencing on the date of this Agreement and ending on the annual meeting. Each of the Operating "
        "Agreement and the Warrant is effective as of the date hereof in accordance with its terms.")
    assert "Effective Date" not in terms


def test_an_effective_date_defined_by_an_undated_event_is_not_stated():
    _, terms = _terms(
        "TRANSFER AGENCY AGREEMENT\n\nThis Agreement between Lapwing Fund and Avocet Services LLC is dated as of "
        "January 26, 2011.\n\n2. Term. The appointment shall commence on the later of (i) the date hereof, or (ii) "
        "the date Agent has confirmed that the records have been converted (the “Effective Date”), and shall "
        "continue for three years thereafter.")
    assert terms["Agreement Date"].value == "2011-01-26"
    assert terms["Effective Date"].value == NOT_STATED
    assert "converted" in terms["Effective Date"].detail["reference"]


def test_dates_of_other_instruments_and_of_an_end_are_not_the_agreement_date():
    _, terms = _terms(
        "LICENSE AGREEMENT\n\nTABLE OF CONTENTS\n\n1. Definitions\n\n“Master Transaction Agreement” means the "
        "Master Transaction Agreement entered into by and between Crane Holdings Limited and Stork Limited, "
        "dated as of July 27, 2009.\n\n8. Term of Joint Venture. The Joint Venture shall commence on the 1st of "
        "March, 2003, and shall be effective until February 28, 2004.")
    assert "Agreement Date" not in terms or terms["Agreement Date"].value not in ("2009-07-27", "2004-02-28")


def test_term_lengths_stated_with_is_therefrom_or_into_force():
    _, terms = _terms(
        "STRATEGIC ALLIANCE AGREEMENT\n\nThis Agreement is made and entered into this 30th day of June 2017 "
        "between Petrel Capital Inc. and Gull Media Ltd.\n\n3. The term of this Agreement is twenty-four (24) "
        "months.")
    assert (terms["Initial Term"].value, terms["Expiration Date"].value) == ("P24M", "2019-06-30")
    _, terms = _terms(
        "CO-BRANDING AGREEMENT\n\nThis Agreement is dated as of June 3, 2000 between Puffin Print Inc. and "
        "Shag Paper LLC.\n\n7. Term. The Term of this Agreement shall begin on the Effective Date and shall end "
        "fifteen months therefrom.")
    assert terms["Initial Term"].value == "P15M"
    _, terms = _terms(
        "COOPERATION AGREEMENT\n\nParty A: Egret Games Co., Ltd.\nParty B: Ibis Mobile Co., Ltd.\n\n"
        "10. This Agreement shall come into force as of January 1, 2013 and remain valid for 1 year.")
    assert terms["Expiration Date"].value == "2014-01-01"


def test_term_from_an_effective_date_tied_to_an_undated_event_has_no_computed_expiration():
    _, terms = _terms(
        "This Hosting Agreement is made as of August 3, 2004 between Linnet Web Inc. and Curlew Shops LLC.\n\n"
        '1. This Agreement shall be effective as of the date the Portal goes live (the "Effective Date") and '
        "shall continue for a period of one (1) year from the Effective Date.")
    assert terms["Initial Term"].value == "P1Y"
    assert terms["Expiration Date"].value == NOT_STATED


def test_anniversary_of_the_date_hereof_counts_from_the_agreement_date():
    _, terms = _terms(
        "This Outsourcing Agreement is made as of May 28, 2003 between Plover Data Inc. and Dunlin Bank.\n\n"
        "5. Term. The term of this Agreement shall commence on June 1, 2003. The term of this Agreement "
        "shall end on the fourth anniversary of the date hereof.")
    assert terms["Expiration Date"].value == "2007-05-28"
    _, terms = _terms(
        "This Cooperation Agreement is made as of July 9, 2012 between Wren Pay Ltd and Finch Bank plc.\n\n"
        "3. Term. This Agreement shall remain in effect until the earlier of (a) the third (3r d) "
        "anniversary of this Agreement and (b) Wren Pay ceasing to hold its licence.")
    assert terms["Expiration Date"].value == "2015-07-09"


def test_term_lengths_written_subsequent_to_or_as_a_period_commencing():
    _, terms = _terms(
        "This Sponsorship Agreement is made as of March 4, 2001 between Avocet Radio Inc. and Stilt Foods LLC.\n\n"
        "4. Term. This Agreement shall commence on the Effective Date and shall remain in full force until one "
        "(1) year subsequent to the Effective Date, provided that Avocet may terminate it at any time prior to "
        "the expiration of thirty (30) days subsequent to the Effective Date.")
    assert terms["Expiration Date"].value == "2002-03-04"
    _, terms = _terms(
        "This Development Agreement is made as of October 2, 2006 between Knot Labs Inc. and Ruff Health LLC.\n\n"
        '2. Term. The term of this Agreement (the "Term") shall commence on the Effective Date and end at the '
        "close of the Exclusivity Period (i.e., a two (2) year period commencing on the Effective Date).")
    assert terms["Expiration Date"].value == "2008-10-02"


def test_a_perpetual_irrevocable_licence_is_not_a_perpetual_term():
    _, terms = _terms(
        "This License Agreement is made as of January 8, 2019 between Merganser Bio Inc. and Smew Pharma Ltd.\n\n"
        "11.1 Term. The term of this Agreement shall commence on the Effective Date and shall expire on the "
        "last day of the Royalty Term. Upon such expiration the license granted to Smew shall become fully-paid, "
        "perpetual and irrevocable.")
    assert terms.get("Expiration Date") is None or terms["Expiration Date"].value != "perpetual"


def test_the_later_of_an_anniversary_and_an_event_is_not_stated():
    _, terms = _terms(
        "This Alliance Agreement is made as of April 1, 2010 between Shoveler Networks Inc. and Teal Telecom Ltd.\n\n"
        "10.1 Term. This Agreement shall terminate on the later of (i) the third anniversary of the Effective "
        "Date or (ii) the date on which Teal ceases to be a subsidiary of Shoveler.")
    assert terms["Expiration Date"].value == NOT_STATED


def test_term_defined_without_quotes_in_a_definitions_list():
    _, terms = _terms(
        "This Co-Branding Agreement is made as of February 2, 2004 between Pochard Jobs Inc. and Scaup Media LLC.\n\n"
        "1. Definitions.\n\n1.7. Site shall mean the web pages Scaup hosts for Pochard.\n\n"
        "1.8. Term shall mean the Effective Date through August 31, 2005 and any Renewal Term.")
    assert terms["Expiration Date"].value == "2005-08-31"


# --- Effective Date: when the agreement date stands in, and when it must not (issue 10) --------

def test_effective_as_of_said_of_an_appointment_is_not_the_contracts_effective_date():
    _, terms = _terms(
        "SERVICING AGREEMENT\n\nThis Servicing Agreement is entered into as of May 4, 2021 between Egret Funding LLC "
        "and Bittern Servicing Inc.\n\n1. Appointment. Egret appoints Bittern, and Bittern agrees to act, as the "
        "Servicer effective upon the date hereof.")
    assert terms["Agreement Date"].value == "2021-05-04"
    assert "Effective Date" not in terms


def test_effective_as_of_said_of_another_instrument_is_not_the_contracts_effective_date():
    _, terms = _terms(
        "TERMINATION AGREEMENT\n\nThis Termination Agreement is made as of June 2, 2015 between Heron Media Ltd "
        "and Crane Web LLC.\n\nWHEREAS, the parties wish to terminate the Original Agreement effective as of the "
        "date of this Termination Agreement.")
    assert "Effective Date" not in terms


def test_this_agreement_shall_be_effective_from_the_date_first_above_written():
    _, terms = _terms(
        "This Transport Agreement is made as of March 9, 2011 between Gannet Freight Ltd and Shag Logistics Inc.\n\n"
        "2. Term. This Agreement shall be effective from the date first above written and shall continue until "
        "terminated.")
    assert terms["Effective Date"].value == "2011-03-09"


def test_unquoted_definitions_of_the_effective_date():
    _, terms = _terms(
        "CONTENT LICENCE AGREEMENT dated 15 December 2012 between Plover News Ltd and Dotterel Data Ltd.\n\n"
        "1. Definitions\n\nCONTENT means the news feeds listed in Schedule 1;\n\n"
        "EFFECTIVE DATE means 18 May 2011;\n\nTERRITORY means Hong Kong.")
    assert terms["Agreement Date"].value == "2012-12-15"
    assert terms["Effective Date"].value == "2011-05-18"


def test_quoted_definition_with_capital_means_or_a_dash():
    _, means = _terms(
        "This Amended Licensing Agreement is made on October 5, 2013 between Avocet Pharma Inc. and Stilt Bio Inc.\n\n"
        "“Field” Means human therapeutic use;\n“Effective Date” Means August 1, 2010;")
    assert means["Effective Date"].value == "2010-08-01"
    _, dash = _terms(
        "This Outsourcing Agreement is entered into on February 3rd, 2004 between Curlew Systems Ltd and Knot Assembly Ltd.\n\n"
        '(xii) "QUARTER" - a calendar quarter.\n(xiii) "EFFECTIVE DATE" - February 3rd, 2004')
    assert dash["Effective Date"].value == "2004-02-03"


def test_commencement_date_meaning_the_date_of_this_agreement_is_the_agreement_date():
    _, terms = _terms(
        "THIS AGREEMENT IS MADE ON THE 19 DAY OF MAY, 2012 between Sanderling Boilers Ltd and Ruff Energy plc.\n\n"
        "1. Definitions. Boiler means a boiler supplied by Sanderling; Commencement Date means the date of this "
        "Agreement; Dispute means any dispute under this Agreement.")
    assert terms["Effective Date"].value == "2012-05-19"


def test_an_amendment_using_the_amended_agreements_effective_date_has_none_of_its_own():
    _, terms = _terms(
        "AMENDMENT NO. 1\n\nThis Amendment No. 1 (this “Amendment”) is entered into as of August 16, 2018 between "
        "Tern Solar Inc. and Skua Homes Inc.\n\n1. Section 4 of the Agreement is replaced with the following: "
        "“Term. This Agreement will become effective on the Effective Date and will continue until terminated.”")
    assert terms["Agreement Date"].value == "2018-08-16"
    assert "Effective Date" not in terms


def test_a_defined_effective_date_without_a_date_of_its_own_is_the_agreement_date():
    _, terms = _terms(
        "This Co-Hosting Agreement is made on August 3, 2009 between Puffin Hosting Inc. and Guillemot Web LLC "
        '(the agreement date, the "Effective Date").\n\n5. Reports. Beginning in the first month after the '
        "Effective Date, Guillemot shall deliver monthly reports.")
    assert terms["Effective Date"].value == "2009-08-03"


def test_effective_date_defined_by_an_approval_is_not_stated():
    _, terms = _terms(
        "JOINT VENTURE CONTRACT\n\nThis Contract is signed on November 8, 2012 by Fulmar Group Ltd and Petrel Cells Inc.\n\n"
        'Article 10 "Effective Date" means the effective date of this Contract, which shall be the date on which '
        "this Contract has been approved by the Approval Authority.\n\nArticle 11 Each Party represents that, as of "
        "the date hereof and as of the Effective Date, it is duly organized.")
    assert terms["Agreement Date"].value == "2012-11-08"
    assert terms["Effective Date"].value == NOT_STATED
    assert "approved" in terms["Effective Date"].detail["reference"]


def test_effective_date_as_the_later_signature_date():
    _, terms = _terms(
        "HOSTING AGREEMENT\n\nThis Hosting Agreement is entered into by Murre Apps Inc. and Auk Health LLC.\n\n"
        "11.16 Effective Date. The Effective Date of this Agreement shall be the later of the dates shown by the "
        "signatures below.",
        "MURRE APPS INC.\nBy: /s/ Ann Lee\nDate: March 7, 2018\n\nAUK HEALTH LLC\nBy: /s/ Bo Chan\nDate: March 14, 2018")
    assert terms["Effective Date"].value == "2018-03-14"


def test_an_event_defined_effective_date_in_the_preamble_beats_a_later_instruments_date():
    _, terms = _terms(
        "STRATEGIC ALLIANCE AGREEMENT\n\nThis agreement (“Agreement”) is entered into as of the date on which the "
        "Registration Statement is declared effective by the SEC (the “Effective Date”), by and among Razorbill "
        "Life Co. and Eider Capital Corp.\n\nRECITALS\n\nA. The parties have entered into a Selling Agreement, "
        "effective as of December 1, 2004, under which Eider sells Razorbill annuities.")
    assert terms["Effective Date"].value == NOT_STATED


def test_a_closing_clause_glued_to_its_number_dates_the_contract():
    _, terms = _terms("COOPERATION AGREEMENT\n\nParty A: Wren Media Co., Ltd.\nParty B: Finch Online Ltd.\n\n"
                      "1. Cooperation. Party A shall upload the channel.\n\n14.6This Agreement is dated April 29, 2010.")
    assert terms["Agreement Date"].value == "2010-04-29"


def test_dates_in_the_recitals_are_other_instruments():
    _, terms = _terms(
        "ENDORSEMENT AGREEMENT\n\nWHEREAS, Plover Group, Inc. (the \"Company\") and the Trustees of the Lark Family "
        "Trust (the \"Trust\") are parties to loans represented by a Demand Note, dated December 5, 1995, between the "
        "Company and the Trust; and\n\nWHEREAS, the parties wish to end the arrangement;\n\nNOW, THEREFORE, the "
        "parties agree as follows:\n\n1. Release. The Company releases the Trust.\n\nIN WITNESS WHEREOF, the parties "
        "hereto have executed this Agreement as of this 4th day of April, 2003.")
    assert terms["Agreement Date"].value == "2003-04-04"


def test_a_preamble_dated_as_of_its_defined_effective_date():
    _, terms = _terms(
        "MANUFACTURING AND SUPPLY AGREEMENT\n\nThis Manufacturing and Supply Agreement (this \"Agreement\") is "
        "entered into as of the Effective Date (as defined below) by and between Tern Surgical, Inc. and Kite Labs, "
        "S.A.\n\n" + "Kite Labs shall manufacture the products to the specifications. " * 60 +
        "\n\n1. Definitions. \"Effective Date\" shall mean December 5, 2014.")
    assert terms["Effective Date"].value == "2014-12-05"
    assert terms["Agreement Date"].value == "2014-12-05"
    assert terms["Agreement Date"].detail["how"] == "effective-date"


def test_effective_dates_retroactive_with_effect_lower_case_or_on_signature_by_both():
    head = 'AGREEMENT\n\nThis Agreement is made on May 1, 2010 between Alpha Corp. ("Alpha") and Beta LLC ("Beta")'
    for body, effective in [
        (".\n\n2. This Agreement shall be effective retroactively as of January 1, 2010.\n", "2010-01-01"),
        (".\n\n2. The effective date of this Agreement is June 1, 2010.\n", "2010-06-01"),
        (", with effect from 1 June 2010.\n", "2010-06-01"),
        (".\n\n2. This Agreement shall enter into force on the date of its signature by both Parties.\n\n"
         "ALPHA CORP.\nBy: /s/ A. Smith\nDate: May 1, 2010\n\nBETA LLC\nBy: /s/ B. Jones\nDate: May 3, 2010\n",
         "2010-05-03"),
    ]:
        _, terms = _terms(head + body)
        assert terms["Agreement Date"].value == "2010-05-01"
        assert terms["Effective Date"].value == effective, body


def test_a_filing_a_formation_or_an_end_date_is_not_the_contracts_date():
    for head in [
        "Exhibit 10.3\n\nFiled with the Securities and Exchange Commission on March 3, 2011.\n\nSUPPLY AGREEMENT\n\n",
        "SUPPLY AGREEMENT\n\n",
    ]:
        _, terms = _terms(head + 'This Supply Agreement is made between Alpha Corp., a Delaware corporation formed on '
                          'May 1, 1999 ("Alpha"), and Beta LLC ("Beta").\n\n1. Prices. Prices in effect on January 1, '
                          '2005 shall apply until December 31, 2005.\n')
        assert "Agreement Date" not in terms


def test_effective_dates_defined_of_this_agreement_by_the_later_signature_in_an_amendment_or_a_labelled_table():
    signatures = ("\n\nALPHA CORP.\nBy: /s/ A. Smith\nDate: May 1, 2010\n\nBETA LLC\nBy: /s/ B. Jones\n"
                  "Date: May 11, 2010\n")
    for document, effective in [
        ('LICENSE AGREEMENT\n\nThis License Agreement is entered into by Alpha Corp. ("Alpha") and Beta LLC ("Beta").'
         '\n\n2. DEFINITIONS\n\n2.1 "EFFECTIVE DATE" of this Agreement shall mean the date the last party hereto has '
         'executed this Agreement.' + signatures, "2010-05-11"),
        ('HOSTING AGREEMENT\n\nThis Hosting Agreement (the "Agreement") is entered into and effective as of the later '
         'of the two signature dates below (the "Effective Date") between Alpha Corp. and Beta LLC.' + signatures,
         "2010-05-11"),
        ('AMENDMENT No. 1\n\nThis amendment (the "Amendment") is entered into on May 1, 2010 between Alpha Corp. and '
         'Beta LLC.\n\n3. EFFECTIVE DATE AND DURATION\n\nThis Amendment shall enter into force on the date of its '
         'signature by both Parties.' + signatures, "2010-05-11"),
        ("CONFIRMATION\n\nThe terms of the Swap Transaction between Alpha Corp. and Beta LLC are as follows:\n\n"
         "General Terms\nTrade Date: 27 April 2006\nEffective Date 01 April 2006\nTermination Date: 1 April 2009\n",
         "2006-04-01"),
    ]:
        _, terms = _terms(document)
        assert terms["Effective Date"].value == effective, document


def test_an_effective_date_by_reference_restated_as_a_date_is_that_date():
    _, terms = _terms(
        "This Maintenance Agreement is made on 31 January, 1994 between Heron Systems Ltd and Teal Works plc.\n\n"
        "1. Definitions. EFFECTIVE DATE shall mean the Date of Acceptance of the System in Lisbon, i.e. "
        "December 10, 1993.\n\n2. Term. This Agreement shall remain in force for one year from the "
        "EFFECTIVE DATE.")
    effective = terms["Effective Date"]
    assert effective.value == "1993-12-10" and effective.detail["how"] == "restated"
    assert effective.detail["reference"] == "the Date of Acceptance of the System in Lisbon"
    assert terms["Expiration Date"].value == "1994-12-10"


# --- Effective Date: an "effective" said of something else; a start date is not the date made --

def test_a_most_favoured_nation_clause_effective_from_its_own_date_is_not_the_effective_date():
    head = ("MASTER SERVICES AGREEMENT\n\nThis Master Services Agreement is made on May 21, 2022 by and between "
            'Alder Systems Inc. ("Alder") and Birch Clinics LLC ("Birch").\n\n3.4 Pricing. If Alder offers the '
            "Services to another customer on better pricing terms, Alder shall offer the same terms to Birch, "
            "effective from the date they were first offered to the other customer.\n\n")
    _, terms = _terms(head)
    assert terms["Agreement Date"].value == "2022-05-21"
    assert "Effective Date" not in terms
    _, terms = _terms(head + "4. Services. Alder shall perform the Services with due care and skill.\n\n" * 90
                      + '11.1 Term. This Agreement shall become effective on the 1st day of June, 2022 (the "Effective '
                      'Date") and shall continue for two (2) years.')
    assert terms["Effective Date"].value == "2022-06-01"
    assert terms["Expiration Date"].value == "2024-06-01"
    # the preamble's comma after the parties still ties "effective" to the contract
    _, terms = _terms(
        'SUPPLY AGREEMENT\n\nThis Supply Agreement is entered into by Alder Co. Ltd. ("Alder") and Birch Inc. '
        '("Birch"), effective as of the date of the last signature below.\n\n1. Supply. Alder shall supply Birch.',
        "ALDER CO. LTD.\nBy: /s/ Ann Lee\nDate: March 3, 2021\n\nBIRCH INC.\nBy: /s/ Raj Patel\nDate: March 9, 2021")
    assert terms["Effective Date"].value == "2021-03-09"


def test_a_date_another_clause_makes_something_else_effective_on_is_not_the_effective_date():
    _, terms = _terms(
        "REMARKETING AGREEMENT\n\nThis Remarketing Agreement is dated as of August 26, 2014 between Alder Funding "
        "Inc. and Birch Securities LLC. The Notes were issued under an Indenture. Effective on September 15, 2014, "
        "the Notes will convert into units of two tranches. The maturity of each tranche will, effective October 8, "
        "2014, be adjusted to a later date.")
    assert terms["Agreement Date"].value == "2014-08-26"
    assert "Effective Date" not in terms
    _, terms = _terms("SUPPLY AGREEMENT\n\nEffective as of March 1, 2010, this Supply Agreement is entered into by "
                      "Alder Systems Inc. and Birch Clinics LLC.")
    assert terms["Effective Date"].value == "2010-03-01"


def test_a_preamble_that_starts_the_contract_before_it_is_made_is_dated_when_made():
    _, terms = _terms(
        'SUPPLY AND MARKETING AGREEMENT\n\nThis Supply and Marketing Agreement shall be effective as of May 1, 2020 '
        '(the "Commencement Date") and is made and entered into this 10th day of January, 2020 between Alder Fuels '
        'Inc. ("Alder") and Birch Marine LLC ("Birch").')
    assert terms["Agreement Date"].value == "2020-01-10"
    assert terms["Effective Date"].value == "2020-05-01"

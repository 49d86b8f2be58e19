"""Rules and key terms on synthetic contract text (no CUAD needed)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipelines.datamodel import PageText, Segment, document_text
from pipelines.rules import RulePackError, analyse_segments, apply_rules, extract_key_terms, load_rule_pack
from pipelines.rules.date_cues import signature_dates
from pipelines.rules.dates import (
    add_duration, find_dates, find_dates_of_year, find_durations, find_yearless_dates,
)
from pipelines.rules.jurisdictions import chosen_jurisdiction, normalise_jurisdiction
from pipelines.rules.pack import default_rule_pack, parse_rule_pack
from pipelines.rules.parties import find_parties
from pipelines.stages.segment import segment_document

CONTRACT_PAGE_1 = """MASTER SERVICES AGREEMENT

This Master Services Agreement (the "Agreement") is entered into as of March 3, 2021 (the "Effective Date") by and between Acme Widgets Corp., a Delaware corporation ("Acme"), and Beta Logistics LLC, a Texas limited liability company (the "Supplier").

1. Term. This Agreement shall continue in force for a period of five (5) years from the Effective Date, unless terminated earlier as provided herein.

2. Renewal. This Agreement shall automatically renew for successive one (1) year periods unless either party gives written notice of non-renewal at least sixty (60) days prior to the end of the then-current term."""

CONTRACT_PAGE_2 = """3. Liability. Supplier's total liability under this Agreement shall not exceed the fees paid by Acme in the twelve months before the claim.

4. Assignment. Neither party may assign this Agreement without the prior written consent of the other party.

5. Governing Law. This Agreement shall be governed by and construed in accordance with the laws of the State of New York, without regard to its conflict of laws principles."""


def _document(*page_texts: str) -> tuple[str, list[Segment]]:
    pages = [PageText(number=i + 1, text=t, source="plain") for i, t in enumerate(page_texts)]
    text, _ = document_text(pages)
    return text, segment_document(pages)


def _segments_of(*sentences: str) -> list[Segment]:
    return _document(" ".join(sentences))[1]


def _categories(findings) -> set[str]:
    return {f.category for f in findings}


# --- negation and proximity in the rule pack ------------------------------------------------


def test_excluding_indirect_damages_is_not_uncapped_liability():
    findings = apply_rules(default_rule_pack(), _segments_of("Neither party shall be liable for indirect damages."))
    assert "Uncapped Liability" not in _categories(findings)


def test_liability_not_exceeding_fees_is_a_cap():
    findings = apply_rules(
        default_rule_pack(), _segments_of("The liability of each party shall not exceed the fees paid under this Agreement.")
    )
    assert "Cap On Liability" in _categories(findings)
    assert "Uncapped Liability" not in _categories(findings)


def test_carve_out_from_a_limitation_is_uncapped_liability():
    sentence = ("Except for breaches of its confidentiality obligations, neither party shall be liable "
                "for any consequential damages.")
    assert "Uncapped Liability" in _categories(apply_rules(default_rule_pack(), _segments_of(sentence)))


def test_unless_pattern_vetoes_a_match():
    pack = parse_rule_pack({
        "version": "2026.11.1",
        "rules": [{"id": "t/assign", "category": "Anti-Assignment", "confidence": 0.5,
                   "match": [{"keywords": ["assign"]}], "unless": [{"regex": r"\bfreely\b"}]}],
    })
    assert apply_rules(pack, _segments_of("Either party may freely assign this Agreement.")) == []
    assert len(apply_rules(pack, _segments_of("Neither party may assign this Agreement."))) == 1


def test_near_pattern_respects_its_word_window():
    pack = parse_rule_pack({
        "version": "2026.11.1",
        "rules": [{"id": "t/escrow", "category": "Source Code Escrow", "confidence": 0.5,
                   "match": [{"near": {"first": ["source\\s+code"], "second": ["escrow"], "within": 4}}]}],
    })
    assert apply_rules(pack, _segments_of("The source code shall be placed in escrow with an agent."))
    far = "The source code of the product, its documentation and all updates shall later be placed in escrow."
    assert apply_rules(pack, _segments_of(far)) == []


def test_rule_findings_record_pack_version_and_rule():
    pack = default_rule_pack()
    finding = apply_rules(pack, _segments_of("Neither party may assign this Agreement without consent."))[0]
    assert (finding.source, finding.version) == ("rules", pack.version)
    assert finding.note.startswith("anti-assignment/")
    assert 0.0 < finding.confidence <= 1.0


# --- dates, durations, jurisdictions ------------------------------------------------------


@pytest.mark.parametrize(
    "written, iso",
    [
        ("March 3, 2021", "2021-03-03"),
        ("3rd day of March, 2021", "2021-03-03"),
        ("03/03/2021", "2021-03-03"),
        ("the first day of July, 2017", "2017-07-01"),
        ("3 March 2021", "2021-03-03"),
        ("Sept. 29, 2004", "2004-09-29"),
        ("November ___, 2006", "2006-11"),
        ("29/3/18", "2018-03-29"),
        ("April. 1st 2019", "2019-04-01"),  # a full stop after the month's full name
        ("1s t day of March, 2018", "2018-03-01"),  # an ordinal split by the text layer
        ("the 1st of March, 2003", "2003-03-01"),  # "of" without "day" after an ordinal
        ("1.4.2011", "2011-04-01"),  # dotted dates are day first
        ("4.13.2011", "2011-04-13"),  # ... unless the day cannot be a month
        ("this day of , 19", None),  # a template whose underscores the text layer dropped
        ("20th day of Friday, March 2020", "2020-03-20"),  # a weekday between "day of" and the month
    ],
)
def test_date_forms(written, iso):
    found = find_dates(f"dated {written} by")
    assert (found[0].iso if found else None) == iso


def test_of_without_an_ordinal_and_dots_in_section_numbers_are_not_dates():
    assert find_dates("under Section 5 of March 2003 Agreement") == []
    assert find_dates("see clause 3.1.4.2011 of the schedule") == []


def test_day_and_month_without_a_year():
    (mention,) = find_yearless_dates('THIS AGREEMENT made this 30th day of April (the "Effective Date")')
    assert (mention.text, mention.iso) == ("30th day of April", None)
    assert find_yearless_dates("made this 30th day of April, 2020 by") == []


def test_dates_of_one_year_are_found_as_a_full_scan_finds_them():
    text = ("Dated March 3, 2021. Notice by 3/4/21 or 2021-03-05; not 12021 nor 1/1/2020. "
            "The 3rd day of March, 2021 and 4 April 2021.")
    full = [m for m in find_dates(text) if m.iso and m.iso.startswith("2021")]
    assert find_dates_of_year(text, 2021) == full
    assert len(full) == 5


def test_date_spans_are_exact():
    text = "made on the 3rd day of March, 2021 between"
    (mention,) = find_dates(text)
    assert text[mention.start:mention.end] == mention.text == "3rd day of March, 2021"


def test_durations_and_expiry_arithmetic():
    (duration,) = find_durations("for a period of five (5) years from the Effective Date")
    assert (duration.amount, duration.unit, duration.describe()) == (5, "years", "5 years")
    assert add_duration("2021-03-03", 5, "years") == "2026-03-03"
    assert add_duration("2020-02-29", 1, "years") == "2021-02-28"
    (months,) = find_durations("twenty-four months")
    assert months.describe() == "24 months"


@pytest.mark.parametrize(
    "clause, name",
    [
        ("governed by the laws of the State of New York, without regard to conflicts", "New York"),
        ("construed under the laws of the Commonwealth of Massachusetts", "Massachusetts"),
        ("governed by the laws of England and Wales", "England and Wales"),
        ("governed by the laws of the People's Republic of China", "China"),
        ("subject to the laws of the Province of Ontario", "Ontario, Canada"),
        ("governed by Delaware law", "Delaware"),
    ],
)
def test_governing_law_normalization(clause, name):
    assert chosen_jurisdiction(clause) == name


def test_jurisdiction_after_laws_of_wins_over_earlier_mentions():
    clause = "Acme, a Delaware corporation, agrees this Agreement is governed by the laws of the State of Texas."
    assert chosen_jurisdiction(clause) == "Texas"
    assert normalise_jurisdiction("nowhere in particular") is None


def test_a_law_that_governs_in_the_present_tense_is_a_governing_law_clause():
    text, segments = _document("NON-DISCLOSURE AGREEMENT\n\n2. The laws of the State of California govern this Agreement.")
    found = [f for f in extract_key_terms(text, segments) if f.category == "Governing Law"]
    assert [f.value for f in found] == ["California"]


# --- key terms ------------------------------------------------------------------------------


def _key_terms() -> tuple[str, list]:
    text, segments = _document(CONTRACT_PAGE_1, CONTRACT_PAGE_2)
    return text, extract_key_terms(text, segments)


def _values(findings, category: str) -> list[str | None]:
    return [f.value for f in findings if f.category == category]


def test_key_term_offsets_index_the_document_text_exactly():
    text, findings = _key_terms()
    assert findings
    for f in findings:
        assert text[f.start:f.end] == f.text
        assert f.source == "key-terms" and 0.0 < f.confidence <= 1.0


def test_key_terms_take_the_page_of_their_segment():
    _, findings = _key_terms()
    (law,) = [f for f in findings if f.category == "Governing Law"]
    assert law.page == 2
    (title,) = [f for f in findings if f.category == "Document Name" and f.note == "document-name/title"]
    assert title.page == 1


def test_document_name_dates_and_law():
    _, findings = _key_terms()
    assert "MASTER SERVICES AGREEMENT" in _values(findings, "Document Name")
    assert _values(findings, "Agreement Date")[0] == "2021-03-03"
    assert "2021-03-03" in _values(findings, "Effective Date")
    assert _values(findings, "Governing Law") == ["New York"]


def test_expiration_is_computed_from_the_effective_date():
    _, findings = _key_terms()
    (expiry,) = [f for f in findings if f.category == "Expiration Date"]
    assert expiry.value == "2026-03-03"
    assert "five (5) years from the Effective Date" in expiry.text


def _date_evidence(*page_texts: str) -> tuple[str, list]:
    """Agreement and effective date findings of a synthetic document, with its text."""
    text, segments = _document(*page_texts)
    found = [f for f in extract_key_terms(text, segments) if f.category in ("Agreement Date", "Effective Date")]
    return text, found


def _spans(findings, category: str, kind: str) -> list[str]:
    return [f.text for f in findings if f.category == category and f.note == kind]


SIGNATURES = ("IN WITNESS WHEREOF, the parties have signed this Agreement.\n\n"
              "NORTHWIND PUMPS INC.\nBy: /s/ Jane Roe\nName: Jane Roe\nTitle: President\nDate: March 3, 2021\n\n"
              "HARBOR VALVE CO.\nBy: /s/ John Doe\nName: John Doe\nTitle: CEO\nDate: March 9, 2021")


def test_signature_block_dates_are_agreement_date_candidates():
    _, found = _date_evidence(
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made as of March 1, 2021 between Northwind Pumps Inc. "
        "and Harbor Valve Co.\n\n1. Supply. Northwind shall supply pumps.", SIGNATURES)
    assert _spans(found, "Agreement Date", "agreement-date/preamble") == ["March 1, 2021"]
    assert _spans(found, "Agreement Date", "agreement-date/signature") == ["March 3, 2021", "March 9, 2021"]


def test_signature_dates_on_one_line_in_columns_and_under_a_place():
    text = ("By: /s/ Jane Roe Name: Jane Roe Title: Vice President Sales Date: 22 Dec. 2017\n"
            "By: /s/ Ann Poe      By: /s/ Bo Li\nDate: October 16, 1996      Date: November 5, 1996\n\n"
            "Lisbon, 2 April 2020\n\nBy: /s/ Rui Sa")
    assert [m.text for m in signature_dates(text)] == [
        "22 Dec. 2017", "October 16, 1996", "November 5, 1996", "2 April 2020"]


def test_preamble_past_a_table_of_contents_is_a_late_preamble_date():
    contents = "TABLE OF CONTENTS\n\n" + "".join(f"{i}. Section heading number {i} ........ {i}\n" for i in range(1, 120))
    _, found = _date_evidence(contents + '\nLICENCE AGREEMENT\n\nThis Licence Agreement is entered into as of '
                              'May 31, 2019 (the "Effective Date") by and between Quill Labs Ltd and Ostrander GmbH.')
    assert _spans(found, "Agreement Date", "agreement-date/late-preamble") == ["May 31, 2019"]
    assert "May 31, 2019" in _spans(found, "Effective Date", "effective-date/called-effective")


def test_template_blanks_under_the_title_or_after_made_as_of():
    _, under_title = _date_evidence("AGENCY AGREEMENT\n\n                                    ____________, 1996\n\n"
                                    "Ladies and Gentlemen:\n\nCoastal Savings Bank proposes to sell its shares.")
    assert _spans(under_title, "Agreement Date", "agreement-date/placeholder") == ["____________, 1996"]
    _, dropped = _date_evidence("STRATEGIC ALLIANCE AGREEMENT\n\nAGREEMENT made as of  , 2013, between Alder "
                                "Freight Ltd and Birchwood Mills plc.")
    assert _spans(dropped, "Agreement Date", "agreement-date/placeholder") == [", 2013"]


def test_self_dated_sentence_and_witness_clause_are_candidates():
    _, found = _date_evidence(
        "This Channel Agreement is made between Alder Freight Ltd and Birchwood Mills plc on January 5, 2010.\n\n"
        "14.6 This Agreement is dated April 29, 2010.\n\nIN WITNESS WHEREOF, the parties have executed this "
        "Agreement as of this 4th day of April, 2010.")
    assert _spans(found, "Agreement Date", "agreement-date/dated-phrase") == ["This Agreement is dated April 29, 2010"]
    assert _spans(found, "Agreement Date", "agreement-date/dated-clause") == ["April 29, 2010"]
    assert _spans(found, "Agreement Date", "agreement-date/witness-clause") == ["4th day of April, 2010"]


def test_a_day_and_month_without_a_year_dates_the_contract_when_nothing_else_does():
    _, found = _date_evidence('CONSULTING AGREEMENT THIS AGREEMENT made this 30th day of April (the "Effective '
                              'Date") between Slate Tennis Inc. and Rowan Vale.')
    assert _spans(found, "Agreement Date", "agreement-date/yearless") == ["30th day of April"]


@pytest.mark.parametrize("after", [
    ', hereinafter called the Effective Date, between',
    ' (hereinafter referred to as "Effective Date") by and between',
])
def test_dates_called_effective_by_hereinafter(after):
    _, found = _date_evidence(f"This Agreement, made and entered into this 2nd day of September 1998{after} "
                              "Alder Freight Ltd and Birchwood Mills plc.")
    assert _spans(found, "Effective Date", "effective-date/called-effective") == ["2nd day of September 1998"]


def test_effective_date_that_has_the_meaning_of_another_is_a_definition():
    _, found = _date_evidence('1.25 "Effective Date" shall have the meaning set forth in the preamble to this '
                              'Agreement.\n\n1.26 "FDA" means the Food and Drug Administration.')
    assert _spans(found, "Effective Date", "effective-date/definition-clause") == [
        '1.25 "Effective Date" shall have the meaning set forth in the preamble to this Agreement.']


def test_takes_effect_clause_head_and_date():
    _, found = _date_evidence(
        "5. Termination.\n\n(a) This Agreement is effective as of the date hereof and shall remain in full force "
        "for two years.\n\nCOMMENCEMENT DATE This Agreement shall commence on 5th March 2019 AGREEMENT PERIOD "
        "This Agreement will be for six months.")
    heads = _spans(found, "Effective Date", "effective-date/clause-head")
    assert heads == ["This Agreement is effective as of the date hereof", "This Agreement shall commence on 5th March 2019"]
    assert _spans(found, "Effective Date", "effective-date/clause-date") == ["5th March 2019"]


@pytest.mark.parametrize("sentence", [
    "This Amendment shall enter into force on the date of its signature by both Parties.",
    "The Joint Venture shall commence on the 1st of March, 2003, and shall be effective until February 28, 2004.",
    "This contract shall be for a term of one year commencing on the date first above written; thereafter it renews.",
    'The "Term" shall begin on the date hereof and shall expire December 31, 2023.',
])
def test_more_ways_of_saying_when_a_contract_starts(sentence):
    _, found = _date_evidence("Recitals follow.\n\n" + sentence)
    assert _spans(found, "Effective Date", "effective-date/clause")


def test_a_term_commencing_on_something_other_than_a_date_is_not_a_start():
    _, found = _date_evidence("The restrictions apply during the term of this Agreement and for a period of two "
                              "years commencing on its termination.")
    assert not _spans(found, "Effective Date", "effective-date/clause")


def test_a_contents_entry_and_another_commencement_date_define_no_effective_date():
    from pipelines.rules.contract_dates import contract_dates

    def definitions(page: str) -> list[str]:
        text, segments = _document(page)
        return [text[e.start:e.end] for e in contract_dates(text, segments)
                if e.kind in ("effective-date/definition", "effective-date/definition-clause")]

    assert definitions("TABLE OF CONTENTS\n\n7.1 Termination Prior to the Effective Date 15\n\n-i-") == []
    assert definitions('"Construction Commencement Date" means the date set out in the Addendum.') == []
    assert definitions("(d) Maintenance Commencement Date means the date acceptance testing is completed.") == []
    assert "11/4/10" in definitions("Agreement Number:  CW251207\n\nEffective Date:  11/4/10\n\nCompany Name: Acme")
    assert "March 1, 1996" in definitions("Agreement Number: N115        Effective Date: March 1, 1996        Term: 1 Year")
    assert "May 1, 2016" in definitions("1.9. Effective Date shall mean May 1, 2016.")


def test_effective_date_given_by_reference_and_the_last_signature():
    _, found = _date_evidence(
        'SUPPLY AGREEMENT ("Supply Agreement") effective as of the date of last signing ("Effective Date") between '
        "Northwind Pumps Inc. and Harbor Valve Co.\n\n1. Supply. Northwind shall supply pumps.", SIGNATURES)
    assert _spans(found, "Effective Date", "effective-date/reference") == [
        'effective as of the date of last signing ("Effective Date")']
    assert _spans(found, "Effective Date", "effective-date/last-signature") == ["March 9, 2021"]
    _, later = _date_evidence('This Hosting Agreement is entered into as of the later of the two signature dates '
                              'below (the "Effective Date") by Alder Freight Ltd and Birchwood Mills plc.')
    assert _spans(later, "Effective Date", "effective-date/reference") == [
        'as of the later of the two signature dates below (the "Effective Date")']


def test_signatures_required_for_amendments_do_not_make_the_last_signature_effective():
    _, found = _date_evidence(
        "This Supply Agreement is made as of March 1, 2021 between Northwind Pumps Inc. and Harbor Valve Co.\n\n"
        "9. No modification of this Agreement shall be effective unless in writing and signed by both parties.",
        SIGNATURES)
    assert not _spans(found, "Effective Date", "effective-date/last-signature")


def test_renewal_term_and_notice_period():
    _, findings = _key_terms()
    assert _values(findings, "Renewal Term") == ["successive 1 year"]
    assert _values(findings, "Notice Period To Terminate Renewal") == ["60 days"]


def test_periods_stretched_policies_renewed_and_calendar_quarters_are_no_renewal_term():
    from pipelines.rules.renewal import find_renewal_terms

    not_renewals = [
        "Sponsor acknowledges that such rights do not automatically extend to Other Events at the Stadium.",
        "If an event of Force Majeure occurs, a Party's obligations shall be suspended during the delay and shall be "
        "automatically extended, without penalty, for a period equal to such suspension.",
        "Whenever an action is required within a specified period of time and is affected by an arbitration, such "
        "period shall automatically be extended by the number of days taken for the determination.",
        "All policies shall be renewed, and a renewal Certificate of Insurance mailed to the Company.",
        '1.9 "Calendar Quarter" shall mean each successive period of three (3) calendar months commencing on January 1.',
        "The Plans are the Group Benefit Plan and the Evergreen Packaging Pension Plan.",
    ]
    for sentence in not_renewals:
        text, segments = _document(sentence)
        assert find_renewal_terms(text, segments) == [], sentence
    text, segments = _document("This Agreement shall renew automatically for successive one (1) year periods, an "
                               "evergreen arrangement.")
    assert [e.value for e in find_renewal_terms(text, segments)] == ["successive 1 year"]


def test_parties_with_defined_names():
    text, _ = _document(CONTRACT_PAGE_1)
    found = find_parties(text)
    names = [e.value for e in found if e.kind == "parties/preamble-name"]
    shorts = [(e.value, text[e.start:e.end]) for e in found if e.kind == "parties/preamble-short-name"]
    assert names == ["Acme Widgets Corp.", "Beta Logistics LLC"]
    assert shorts == [("Acme", '("Acme")'), ("Supplier", '(the "Supplier")')]
    # the whole list too: CUAD's Parties metric counts a candidate that contains a snippet
    (listed,) = [text[e.start:e.end] for e in found if e.kind == "parties/preamble-list"]
    assert listed.startswith("Acme Widgets Corp.") and listed.endswith('(the "Supplier")')


def test_parties_set_out_on_a_cover_page():
    text = "SUPPLY AGREEMENT\n\nBETWEEN\n\nNORTHWIND TRADING LIMITED\n\nAND\n\nSOUTHGATE FOODS INC.\n\n1. Definitions"
    assert [e.value for e in find_parties(text)] == ["NORTHWIND TRADING LIMITED", "SOUTHGATE FOODS INC."]


def test_analyse_segments_runs_rules_and_key_terms():
    text, segments = _document(CONTRACT_PAGE_1, CONTRACT_PAGE_2)
    findings = analyse_segments(text, segments)
    assert {"rules", "key-terms"} == {f.source for f in findings}
    assert {"Cap On Liability", "Anti-Assignment", "Parties", "Governing Law"} <= _categories(findings)
    assert {f.version for f in findings} == {default_rule_pack().version}


# --- loading packs --------------------------------------------------------------------------


def _pack_doc(**rule_changes) -> dict:
    rule = {"id": "demo/rule", "category": "Insurance", "confidence": 0.5,
            "match": [{"regex": r"\binsurance\b"}]} | rule_changes
    return {"version": "2026.11.1", "rules": [rule]}


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"match": [{"regex": "(unclosed"}]}, "rule 'demo/rule', field 'match'[0].regex: invalid regex"),
        ({"category": "Insurances"}, "rule 'demo/rule', field 'category': 'Insurances' is not a CUAD category"),
        ({"confidence": 1.5}, "rule 'demo/rule', field 'confidence': must be a number in (0, 1]"),
        ({"severity": "severe"}, "rule 'demo/rule', field 'severity': must be one of"),
        ({"match": []}, "rule 'demo/rule', field 'match': must be a non-empty list"),
        ({"match": [{"near": {"first": ["a"], "second": ["b"]}}]}, "field 'match'[0].near.within"),
        ({"match": [{"glob": "*"}]}, "unknown pattern kind 'glob'"),
        ({"extra": 1}, "rule 'demo/rule': unknown fields ['extra']"),
        ({"presence": "yes"}, "rule 'demo/rule', field 'presence': must be true or false"),
    ],
)
def test_bad_pack_errors_name_the_rule_and_field(changes, expected):
    with pytest.raises(RulePackError) as raised:
        parse_rule_pack(_pack_doc(**changes))
    assert expected in str(raised.value)


def test_bad_pack_version_and_duplicate_ids():
    with pytest.raises(RulePackError, match="field 'version'"):
        parse_rule_pack(_pack_doc() | {"version": "latest"})
    doc = _pack_doc()
    doc["rules"].append(dict(doc["rules"][0]))
    with pytest.raises(RulePackError, match="rule 'demo/rule': duplicate id"):
        parse_rule_pack(doc)


def test_load_errors_name_the_file(tmp_path: Path):
    path = tmp_path / "rulepack.yaml"
    path.write_text("version: [unclosed", encoding="utf-8")
    with pytest.raises(RulePackError, match=f"{path}: not valid YAML"):
        load_rule_pack(path)
    path.write_text(yaml.safe_dump(_pack_doc(confidence=0)), encoding="utf-8")
    with pytest.raises(RulePackError, match=f"{path}: rule 'demo/rule', field 'confidence'"):
        load_rule_pack(path)


def test_calibration_replaces_confidence_only_for_its_pack_version(tmp_path: Path):
    (tmp_path / "rulepack.yaml").write_text(yaml.safe_dump(_pack_doc()), encoding="utf-8")
    calibration = {"pack_version": "2026.11.1", "evidence": {"demo/rule": {"hits": 9, "total": 10, "precision": 0.9}}}
    (tmp_path / "calibration.yaml").write_text(yaml.safe_dump(calibration), encoding="utf-8")
    segments = _segments_of("The supplier shall maintain insurance with a reputable insurer.")
    assert apply_rules(load_rule_pack(tmp_path / "rulepack.yaml"), segments)[0].confidence == 0.9
    calibration["pack_version"] = "2026.10.1"
    (tmp_path / "calibration.yaml").write_text(yaml.safe_dump(calibration), encoding="utf-8")
    assert apply_rules(load_rule_pack(tmp_path / "rulepack.yaml"), segments)[0].confidence == 0.5


def test_a_rule_marked_presence_carries_its_presence_rate_on_its_best_finding_only(tmp_path: Path):
    (tmp_path / "rulepack.yaml").write_text(yaml.safe_dump(_pack_doc(presence=True)), encoding="utf-8")
    calibration = {"pack_version": "2026.11.1",
                   "evidence": {"demo/rule": {"hits": 3, "total": 10, "precision": 0.3, "presence": 0.8}}}
    (tmp_path / "calibration.yaml").write_text(yaml.safe_dump(calibration), encoding="utf-8")
    segments = _segments_of("The supplier shall maintain insurance with a reputable insurer.",
                            "Each policy of insurance shall name the buyer.")
    found = apply_rules(load_rule_pack(tmp_path / "rulepack.yaml"), segments)
    assert sorted(f.confidence for f in found) == [0.3, 0.8]
    unmarked = tmp_path / "unmarked"
    unmarked.mkdir()
    (unmarked / "rulepack.yaml").write_text(yaml.safe_dump(_pack_doc()), encoding="utf-8")
    del calibration["evidence"]["demo/rule"]["presence"]
    (unmarked / "calibration.yaml").write_text(yaml.safe_dump(calibration), encoding="utf-8")
    assert [f.confidence for f in apply_rules(load_rule_pack(unmarked / "rulepack.yaml"), segments)] == [0.3, 0.3]


@pytest.mark.parametrize("sentence, category", [
    ("Licensor hereby grants to Licensee and its Affiliates a non-exclusive license to use the Software.",
     "Affiliate License-Licensee"),
    ("Company may sublicense its rights hereunder to a wholly-owned subsidiary of Company.",
     "Affiliate License-Licensee"),
    ("Supplier, on behalf of itself and its Affiliates, hereby grants to Buyer a license under the Patents.",
     "Affiliate License-Licensor"),
    ("Seller hereby grants, and shall cause the other members of the Seller Group to grant, to Buyer a license.",
     "Affiliate License-Licensor"),
])
def test_licences_that_reach_affiliates(sentence, category):
    found = [f for f in apply_rules(default_rule_pack(), _segments_of(sentence)) if f.category == category]
    assert found and found[0].confidence > 0.5  # the presence rate: the contract has the clause


def test_affiliates_outside_a_licence_are_no_affiliate_licence():
    found = apply_rules(default_rule_pack(), _segments_of(
        "Neither party nor any of its Affiliates shall solicit the employees of the other party."))
    assert not {"Affiliate License-Licensee", "Affiliate License-Licensor"} & _categories(found)


def test_shipped_pack_and_calibration_agree_on_version():
    pack = default_rule_pack()
    assert pack.calibration, "calibration.yaml is missing or made for another pack version"
    rule_ids = {rule.id for rule in pack.rules}
    assert set(pack.calibration) <= rule_ids | set(pack.key_terms)


def test_the_best_key_term_per_category_carries_how_often_its_evidence_means_presence():
    """An "effective as of" date rarely is the exact annotated span, but the contracts where it
    fires mostly do have an effective date: the best such finding carries that presence rate."""
    pack = default_rule_pack()
    text = ('This Supply Agreement is made as of March 3, 2021 and shall be effective as of April 1, 2021. '
            'This Agreement shall be governed by the laws of the State of New York.')
    pages = [PageText(number=1, text=text, source="plain")]
    findings = extract_key_terms(document_text(pages)[0], segment_document(pages), pack)
    for category in ("Effective Date", "Governing Law"):
        mine = [f for f in findings if f.category == category]
        assert mine, category
        rates = {f.note: pack.presence_rate(f.note) for f in mine}
        best = max(mine, key=lambda f: rates[f.note] or 0.0)
        assert best.confidence == max(rates[best.note], pack.key_term_confidence(best.note))
        assert all(f.confidence == pack.key_term_confidence(f.note) for f in mine if f is not best)
    effective = [f for f in findings if f.category == "Effective Date"]
    assert max(f.confidence for f in effective) > 0.5  # presence, not span precision

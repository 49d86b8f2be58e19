"""Quote checks: a quote that only mentions a clause raises no issue and satisfies no requirement.

Every sentence here is synthetic, written for these tests.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from pipelines.aggregate import aggregate_document
from pipelines.datamodel import Finding
from pipelines.playbook import load_playbook
from pipelines.playbook.checks import SET_ASIDE, run_checks
from pipelines.playbook.quotes import is_heading, quote_problem


@pytest.fixture(scope="module")
def default():
    return load_playbook(None)


def finding(category: str, text: str, confidence: float = 0.9, start: int = 100, **kw) -> Finding:
    return Finding(category, text, start, start + len(text), 3, confidence, "model", "m1", **kw)


@pytest.mark.parametrize(("category", "text", "problem"), [
    ("Exclusivity", "Nothing in this Agreement shall restrict the Reseller from buying similar goods from others.",
     "a negated grant"),
    ("Non-Compete", "This Section shall not prevent the Consultant from advising other clients in any field.",
     "a negated grant"),
    ("Exclusivity", "The Maker grants the Seller a non-exclusive right to offer the Goods in Ruritania.",
     "a negated grant"),
    ("Rofr/Rofo/Rofn", "None of the units is subject to any right of first offer held by a third person.",
     "a negated grant"),
    ("Exclusivity", "This Agreement does not grant either party an exclusive right to resell the Goods.",
     "a negated grant"),
    ("Exclusivity", "This is not an exclusive supply arrangement.", "a negated grant"),
    ("Most Favored Nation", "WHEREAS, the Vendor wishes to give the Buyer terms no less favourable than others get;",
     "a recital"),
    ("Exclusivity", "“Exclusive Territory” means the counties listed in Schedule 4.", "a definition"),
    ("Change Of Control", "(c) 'Control Event' shall mean a sale of most of the voting shares of a party.",
     "a definition"),
    ("Non-Compete", "12. Non-Competition ........ 14", "a heading or contents line"),
    ("Exclusivity", "ARTICLE 9 EXCLUSIVITY", "a heading or contents line"),
    ("Cap On Liability", "Limitation of Liability.", "a heading or contents line"),
    ("Rofr/Rofo/Rofn", "7.1 Transfers by the Owner 7.2 Notice of Sale 7.3 First Offer Right",
     "a heading or contents line"),
    ("Ip Ownership Assignment", "The Company retains all rights, title and interest in and to its Property.",
     "retention, not assignment"),
    ("Ip Ownership Assignment", "The Platform is and shall remain the sole property of the Provider.",
     "retention, not assignment"),
    ("Uncapped Liability", ("No action arising under this Agreement may be brought by either party more than one "
      "year after the claim accrues."), "a limitation of actions"),
    ("Uncapped Liability", ("Neither party shall bring any action under this Agreement more than two years after "
      "it accrues."), "a limitation of actions"),
    ("Cap On Liability", ("The Supplier shall bear the deductible of its insurance policy, up to a maximum of "
      "$5,000 per event."), "not a cap"),
    ("Cap On Liability", ("The Vendor shall carry commercial general liability insurance with limits of not less "
      "than $2,000,000 per occurrence."), "not a cap"),
    ("Cap On Liability", "Ruritania Widgets Ltd. By: ________ Name: A. Person Title: Director", "not a cap"),
    ("Most Favored Nation", "The Vendor shall invoice the Buyer at the end of each month.",
     "no comparison with others' terms"),
    ("Exclusivity", "15.3 Information of exclusive access for Senders and Third parties:", "a lead-in"),
    ("Exclusivity", ("The sole and exclusive place of jurisdiction in any matter arising out of this Agreement "
      "will be the courts of Ruritania."), "no exclusivity stated"),
    ("Exclusivity", "All orders shall be exclusively governed by the terms and conditions of this Agreement.",
     "no exclusivity stated"),
    ("Most Favored Nation", ("Each Party shall deliver at an on time performance level of no less than ninety percent "
      "(90%) of the scheduled delivery time."), "no comparison with others' terms"),
    ("Most Favored Nation", ("Different prices may apply to any Products acquired for any other purpose."),
     "no comparison with others' terms"),
    ("Renewal Term", "The Licensee has an option to renew this Agreement for one further year.",
     "a renewal option, not automatic"),
    ("Renewal Term", "The parties may extend the term for another two years on written notice.",
     "a renewal option, not automatic"),
    ("Renewal Term", "These rights do not automatically extend to any later event.", "no automatic renewal stated"),
    ("Renewal Term", "Payments are collected through Evergreen Pay and passed on daily.", "no automatic renewal stated"),
    ("Change Of Control", ("1.3 “Change of Control” means any merger of a party into another company, after which "
      "the party shall no longer exist."), "a definition"),
    ("Change Of Control", "This Agreement may be terminated by a party in the event of:", "no change of control named"),
    ("Exclusivity", "Each Title is and will be protected during the Term by copyright throughout the Territory.",
     "no exclusivity stated"),
    ("Termination For Convenience", "The address for notice may be changed at any time by thirty days' notice.",
     "no termination stated"),
    ("Termination For Convenience", ("Either party may terminate the Term on sixty days' notice to the other of any "
      "breach by that other party."), "termination for cause, not convenience"),
    ("Termination For Convenience", ("The Owner may, by written notice to the defaulting party, terminate this "
      "Agreement."), "termination for cause, not convenience"),
    ("Minimum Commitment", "Microsoft provisioned capacity is [*] per region.", "no minimum stated"),
    ("Ip Ownership Assignment", ("(i) copyright and related rights in original works of authorship and all rights to "
      "use and exploit such rights;"), "no ownership stated"),
    ("Exclusivity", "The term “Exclusive Territory” means the counties listed in Schedule 4.", "a definition"),
    ("Exclusivity", ("Each party submits to the exclusive jurisdiction and venue of the courts sitting in "
      "Ruritania for any action under this Agreement."), "no exclusivity stated"),
    ("Exclusivity", "Each Party shall be solely responsible for damage caused as a result of its exclusive fault.",
     "no exclusivity stated"),
    ("Exclusivity", "The Seller may change the packaging at its sole option and at its sole cost.",
     "no exclusivity stated"),
    ("Exclusivity", ("The services of the Adviser are not to be deemed to be exclusive, the Adviser being free to "
      "serve other funds."), "a negated grant"),
    ("Ip Ownership Assignment", ("The Vendor retains title in the Software, and no title to the Software is "
      "transferred to the Buyer."), "retention, not assignment"),
    ("Ip Ownership Assignment", "No title to the intellectual property in the Work is transferred by this Agreement.",
     "a transfer denied, not an assignment"),
    ("Ip Ownership Assignment", "The Buyer acknowledges that all right, title and interest in the Marks belongs to "
     "the Seller.", "retention, not assignment"),
    ("Change Of Control", ("An entity shall be regarded as being in control of another entity if it has the power "
      "to vote more than half of its voting shares."), "a definition"),
    ("Change Of Control", ("For purposes hereof, a “change of control” shall mean the sale of half of the assets "
      "of the Maker or a merger of the Maker into another entity."), "a definition"),
    ("Change Of Control", ("Either party may terminate this Agreement on notice if the other is the subject of a "
      "petition for bankruptcy, reorganization or arrangement."), "no change of control named"),
    ("Termination For Convenience", ("The Reseller may, at any time before shipment, cancel any or all Goods on "
      "order on written notice."), "no termination stated"),
    ("No-Solicit Of Customers", ("During the Term the Client will not solicit the services of any of the "
      "Developer's employees."), "employees, not customers"),
    ("Non-Compete", ("Neither party shall solicit, hire or contract with any of the employees of the other party "
      "during the Term."), "a no-solicit of employees, not a non-compete"),
    ("Governing Law", "This Amendment is governed by the Master Framework Agreement between the parties.",
     "no law named"),
    ("Third Party Beneficiary", "The parties acknowledge and agree that there are no third party beneficiaries to "
     "this Agreement.", "no third-party beneficiary"),
    ("Third Party Beneficiary", "Nothing in this Agreement is intended to confer upon any person other than the "
     "Parties any rights or remedies.", "no third-party beneficiary"),
    ("Third Party Beneficiary", "No subcontractor is intended to be, or shall be deemed to be, a third party "
     "beneficiary of this Agreement.", "no third-party beneficiary"),
    ("Third Party Beneficiary", "No person other than a Party shall acquire any rights hereunder as a third-party "
     "beneficiary or otherwise.", "no third-party beneficiary"),
    ("Third Party Beneficiary", "The Reseller shall not be considered a third party beneficiary under this "
     "Agreement.", "no third-party beneficiary"),
    ("Non-Transferable License", "The Company grants the Sponsor a royalty-free, non-exclusive, worldwide license to "
     "use its marks during the Term.", "nothing said of transfer"),
    ("Irrevocable Or Perpetual License", "(a) An irrevocable standby letter of credit from a bank satisfactory to "
     "the Transporter;", "no licence granted"),
    ("Uncapped Liability", ("IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR ANY INDIRECT, SPECIAL OR CONSEQUENTIAL "
      "DAMAGES ARISING OUT OF THIS AGREEMENT."), "a cap or exclusion that leaves nothing uncapped"),
    ("Uncapped Liability", "The Maker's total liability shall not exceed the price of the Goods sold.",
     "a cap or exclusion that leaves nothing uncapped"),
    ("Exclusivity", "THE WARRANTIES IN SECTION 7 ARE THE EXCLUSIVE WARRANTIES GIVEN BY THE MAKER.",
     "no exclusivity stated"),
    ("Exclusivity", "The indemnifying party shall have the exclusive right to settle any such claim.",
     "no exclusivity stated"),
    ("Exclusivity", "6.2 Exclusivity with Respect to the Region.", "a heading or contents line"),
    ("Termination For Convenience", ("Either party may terminate this Agreement if the other party fails materially "
      "to perform any of its duties."), "termination for cause, not convenience"),
    ("Termination For Convenience", "The parties may terminate this Agreement at any time by mutual written agreement.",
     "termination by agreement, not convenience"),
    ("Termination For Convenience", ("This Agreement may be terminated at any time upon the occurrence of any of the "
      "following events:"), "a lead-in"),
    ("Termination For Convenience", ("The Licensor may terminate this Agreement by written notice to the Licensee upon "
      "a Change of Control of the Licensee."), "termination upon a change of control, not convenience"),
    ("Minimum Commitment", "The Reseller shall maintain all such records for a minimum of three years.",
     "no minimum stated"),
    ("Governing Law", ("Any dispute shall be settled by arbitration under the rules and regulations of the Ruritanian "
      "Arbitration Institute."), "no law named"),
])
def test_quotes_that_do_not_state_their_clause(category: str, text: str, problem: str):
    assert quote_problem(category, text) == problem


@pytest.mark.parametrize(("category", "text"), [
    ("Third Party Beneficiary", "The underwriters are intended third party beneficiaries of Section 6 and may enforce "
     "it as though they were a party hereto."),
    ("Third Party Beneficiary", "Except for the Indemnified Persons, nothing in this Agreement confers any rights on "
     "any person other than the Parties."),
    ("Third Party Beneficiary", "The Bank is not a party hereto but is an intended third party beneficiary "
     "hereof."),
    ("Third Party Beneficiary", "Other than Affiliates of a Party, nothing in this Agreement confers any rights on "
     "any person."),
    ("Third Party Beneficiary", "The Lender shall be deemed a third-party beneficiary of Section 9 and may enforce "
     "it."),
    ("Non-Transferable License", "The license is personal to the Licensee and may not be assigned or sublicensed."),
    ("Non-Transferable License", "Company may not permit any third party to use the Association Marks."),
    ("Irrevocable Or Perpetual License", "Licensor grants Licensee an irrevocable, worldwide license to the Software."),
    ("Non-Compete", ("During the Term and for two years after it, the Consultant shall not, directly or "
      "indirectly, engage in any business that competes with the Company in the Territory.")),
    ("Non-Compete", ("The Distributor shall not sell competing products, provided that nothing herein shall "
      "prevent it from selling its existing product line.")),
    ("Exclusivity", "The Buyer shall purchase all of its requirements of the Goods exclusively from the Maker."),
    ("Exclusivity", "The Maker shall not appoint any other reseller in the Region during the Term."),
    ("Minimum Commitment", "The Reseller shall purchase at least 1,000 units in each Contract Year."),
    ("Ip Ownership Assignment", "All Deliverables shall be owned by the Customer upon payment."),
    ("Change Of Control", "If a party undergoes a Change of Control, the other party may terminate on notice."),
    ("Termination For Convenience", "The Buyer may terminate this Agreement for convenience on 30 days' notice."),
    ("Termination For Convenience", ("Either party may terminate this Agreement without cause on 90 days' notice, or at "
      "once upon a change of control of the other party.")),
    ("Termination For Convenience", "The licence may be revoked by the Owner at any time and for any reason."),
    ("Termination For Convenience", ("The Customer may end this Agreement without cause, even after a breach by "
      "the Supplier has been cured.")),
    ("Exclusivity", "The Licensor shall not grant exclusive rights in the Marks to anyone else in the Region."),
    ("Exclusivity", ("'Exclusivity Period' means the period in which the Licensor shall not license any other "
      "person in the Territory.")),
    ("Uncapped Liability", ("The limitations of liability in this Section shall not apply to a party's indemnity "
      "obligations or to its wilful misconduct.")),
    ("Uncapped Liability", "Each party's liability for a breach of its confidentiality obligations is unlimited."),
    ("Uncapped Liability", ("Except for claims for indemnity, no claim may be brought more than two years after "
      "it arises.")),
    ("Cap On Liability", ("In no event shall either party's aggregate liability exceed the fees paid in the twelve "
      "months before the claim.")),
    ("Cap On Liability", "Neither party shall be liable for any indirect, special or consequential damages."),
    ("Cap On Liability", "The Supplier's total liability shall not exceed the amount its insurers pay out."),
    ("Ip Ownership Assignment", "The Contractor hereby assigns to the Client all rights in the Deliverables."),
    ("Ip Ownership Assignment", ("All inventions made by the Consultant under this Agreement shall be the sole "
      "property of the Company.")),
    ("Ip Ownership Assignment", ("The Sponsor shall retain all right, title and interest in any improvements "
      "developed under this Agreement.")),
    ("Most Favored Nation", ("The prices charged to the Buyer shall be no less favourable than those charged to "
      "any other customer buying similar volumes.")),
    ("Most Favored Nation", ("If the Vendor must allocate the Products, the Distributor shall be treated no less "
      "favorably than any other distributor.")),
    ("Most Favored Nation", "The Supplier shall offer the Buyer the most favorable leasing scheme it offers anyone."),
    ("Renewal Term", ("This Agreement renews automatically for successive one-year terms unless either party "
      "objects.")),
    ("Renewal Term", "The term shall be renewed for additional periods of one year each."),
    ("Renewal Term", ("Each Service Option Attachment renews automatically for a further term unless either party "
      "objects.")),
    ("Renewal Term", "After the first year the licence continues on a month-to-month basis until cancelled."),
    ("Governing Law", "This Agreement is governed by the laws of Ruritania."),
    ("Governing Law", "This Manual is governed in all its parts by the applicable regulations of Ruritania."),
    ("Exclusivity", "The Maker appoints the Seller as its exclusive agent in the Region, at the Seller's sole cost."),
    ("Ip Ownership Assignment", ("The Consultant shall not retain any rights in the Deliverables and hereby assigns "
      "them to the Client.")),
    ("Change Of Control", ("If a party is acquired by an entity that controls, is controlled by or is under common "
      "control with a competitor, the other party may terminate this Agreement.")),
    ("No-Solicit Of Customers", ("The Agent shall not solicit any customer of the Principal, nor any of its "
      "employees, for two years.")),
    ("Non-Compete", ("The Employee shall not compete with the Company, nor solicit any of its employees, for one "
      "year after leaving.")),
    ("Termination For Convenience", ("The Buyer may terminate this Agreement at any time for convenience and cancel "
      "all open orders.")),
    ("Governing Law", "laws of the State of Ruritania"),
    ("Uncapped Liability", ("Except for a breach of Section 9, neither party shall be liable for any indirect or "
      "consequential damages.")),
    ("Uncapped Liability", ("Nothing in this Section 12.2 shall limit a party's obligation to pay the amounts due "
      "under Section 5.")),
    ("Uncapped Liability", "The Buyer waives any and all limitations or liability caps on its contribution."),
    ("Termination For Convenience", ("This Agreement shall be terminable by either party upon sixty (60) days' written "
      "notice to the other.")),
    ("Termination For Convenience", ("This Agreement may be terminated by the written agreement of the parties or by "
      "either party upon 5 days written notice.")),
    ("Termination For Convenience", ("The Agent may terminate this Agreement by giving the notice indicated below at "
      "any time after it becomes effective, as follows:")),
    ("Minimum Commitment", "The Licensee is obligated to pay the licence fee for a minimum of 36 months."),
])
def test_quotes_that_state_their_clause(category: str, text: str):
    assert quote_problem(category, text) is None


def test_short_sentences_are_not_headings():
    assert is_heading("Exclusivity.")
    assert not is_heading("The Licensee shall pay all taxes.")
    assert not is_heading("10.2 The following acts constitute minor breaches.")


def test_a_risky_issue_comes_from_the_most_confident_quote_that_states_it(default):
    negation = finding("Non-Compete", "Nothing herein shall restrict the Agent from acting for other principals.",
                       confidence=0.95, note="rule-7")
    covenant = finding("Non-Compete", "The Agent shall not act for any competitor of the Principal in the Region.",
                       confidence=0.7, start=900)
    issues, _ = run_checks(default, [negation, covenant], {})
    risky = [i for i in issues if i.kind == "risky"]
    assert [i.finding.text for i in risky] == [covenant.text]
    assert negation.note == f"rule-7; {SET_ASIDE}a negated grant"


def test_an_unverified_risky_clause_is_a_question_for_review_not_an_issue(default):
    unsure = finding("Non-Compete", "The Agent shall not act for any competitor of the Principal in the Region.",
                     confidence=0.6, start=900)
    assessment = aggregate_document([unsure], default, 3)
    assert [i.finding.category for i in assessment.issues if i.kind == "risky"] == []
    (item,) = [r for r in assessment.review if r.finding.category == "Non-Compete"]
    severity = next(r.severity for r in default.risky if r.category == "Non-Compete")
    assert item.reason == ("Is this Non-Compete? The machine is unsure (0.60; reported as present). "
                           f"If it is, the playbook raises a {severity} issue.")
    without = aggregate_document([], default, 3)  # it still ranks the contract within its level
    assert assessment.risk_level == without.risk_level and assessment.risk_score > without.risk_score
    confident = aggregate_document([replace(unsure, confidence=0.8)], default, 3)
    assert [i.finding.category for i in confident.issues if i.kind == "risky"] == ["Non-Compete"]


def test_a_quote_that_fails_raises_nothing(default):
    recital = finding("Most Favored Nation", "WHEREAS the Vendor sells to many buyers at varying prices;")
    issues, _ = run_checks(default, [recital], {})
    assert [i for i in issues if i.finding.category == "Most Favored Nation"] == []


def test_a_required_cap_is_satisfied_only_by_a_quote_that_states_one(default):
    signature = finding("Cap On Liability", "By: ________ Name: A. Person Title: Director")
    issues, _ = run_checks(default, [signature], {})
    cap = next(i for i in issues if i.finding.category == "Cap On Liability")
    assert cap.kind == "missing" and cap.finding.confidence == 1.0
    assert "The candidate on page 3 was set aside: not a cap." in cap.finding.note
    real = finding("Cap On Liability", "Each party's total liability is limited to the fees paid.", confidence=0.8)
    issues, _ = run_checks(default, [signature, real], {})
    assert not any(i.finding.category == "Cap On Liability" for i in issues)
    # aggregation sets the signature block aside before the checks: the cap is still missing, and says why
    assessed = aggregate_document([signature], default, 3)
    assert not any(m.finding.category == "Cap On Liability" for m in assessed.present())
    cap = next(i for i in assessed.issues if i.finding.category == "Cap On Liability")
    assert cap.kind == "missing" and "The candidate on page 3 was set aside: not a cap." in cap.finding.note


def test_a_renewal_option_is_not_called_automatic(default):
    option = finding("Renewal Term", "The Buyer shall have the right to renew this Agreement for one more year.")
    read_option = finding("Renewal Term", "clause text", value="P1Y", detail={"automatic": False, "option": True})
    read_automatic = finding("Renewal Term", "clause text", value="P1Y", detail={"automatic": True})
    for found, raised in ((option, False), (read_option, False), (read_automatic, True)):
        issues, _ = run_checks(default, [], {"Renewal Term": [found]})
        assert any(i.kind == "value" for i in issues) is raised, found


def test_a_law_check_reads_only_a_quote_that_names_a_law(default):
    """A clause found without a read value is checked by its text, which must name a law."""
    contract = finding("Governing Law", "This Amendment is governed by the Master Framework Agreement.")
    foreign = finding("Governing Law", "This Agreement is governed by the laws of Ruritania.")
    for found, raised in ((contract, False), (foreign, True)):
        issues, _ = run_checks(default, [], {"Governing Law": [found]})
        assert any(i.kind == "value" for i in issues) is raised, found.text

"""Term, renewal and renewal-notice values on synthetic contract text (no CUAD needed)."""
from __future__ import annotations

from test_terms_dates import _terms

NOTICE = "Notice Period To Terminate Renewal"
PREAMBLE = "This Supply Agreement is dated March 1, 2020 between Alder Freight Ltd and Birchwood Mills plc.\n\n"


def test_renewal_sentence_broken_across_pages_keeps_its_length():
    _, terms = _terms(
        PREAMBLE + "9. TERM\n\n9.1 This Contract shall come into force on the Effective Date, remain effective\n"
        "throughout the Initial Term, and be further extended automatically for a period of 12",
        "months, each such extension commencing at the end of the Initial Term, unless either Party\n"
        "serves written notice of termination at least 65 days prior to the end of the Initial Term.")
    assert terms["Renewal Term"].value == "P12M"
    assert terms[NOTICE].value == "P65D"


def test_renewal_from_year_to_year():
    _, terms = _terms(
        PREAMBLE + "This Agreement shall continue in effect for a period of one year from the date of its "
        "execution and from year to year thereafter provided such continuance is approved by the Board.")
    assert terms["Renewal Term"].value == "P1Y"


def test_renewal_month_to_month_after_a_primary_term():
    _, terms = _terms(
        PREAMBLE + "This Agreement shall continue for a primary term of ten years. Thereafter, this Agreement "
        "shall be effective month to month, until terminated by either party.")
    assert terms["Renewal Term"].value == "P1M"


def test_renewal_for_an_additional_month_without_a_number():
    _, terms = _terms(
        PREAMBLE + "This Agreement is for a term of 12 months from the Effective Date. Without notification "
        "the contract will automatically extend for an additional month of service.")
    assert terms["Renewal Term"].value == "P1M"


def test_automatic_extensions_named_after_their_length():
    _, terms = _terms(
        PREAMBLE + "VI. TERM\n\nA. The Term will be 3 years from Effective Date with an automatic 2 year term "
        "extensions unless otherwise advised by one of the Parties.")
    assert terms["Renewal Term"].value == "P2Y"


def test_extension_for_up_to_a_length():
    _, terms = _terms(
        PREAMBLE + "2. Term of Agreement. The initial term of this Agreement shall be for a period of four (4) "
        "years, which term may be extended for up to three (3) years by written agreement of both Parties.")
    assert terms["Renewal Term"].value == "P3Y"


def test_notice_that_exercises_a_renewal_option_is_not_a_notice_to_stop_renewal():
    _, terms = _terms(
        PREAMBLE + "1. Term. The initial term of this Agreement is three (3) years. Buyer shall have the option "
        "to renew this Agreement for two additional one (1) year terms. Buyer may exercise each such renewal "
        "option by giving written notice to Seller not later than six (6) months prior to the expiration of "
        "the current Term.")
    assert terms["Renewal Term"].value == "P1Y"
    assert NOTICE not in terms


def test_notice_not_to_renew_still_counts():
    _, terms = _terms(
        PREAMBLE + "1. Term. The initial term of this Agreement is three (3) years and it shall automatically "
        "renew for successive one (1) year terms unless either party gives notice of its election not to "
        "renew at least ninety (90) days prior to the expiration of the then-current term.")
    assert terms[NOTICE].value == "P90D"


def test_insurance_policy_non_renewal_is_not_the_contracts():
    _, terms = _terms(
        PREAMBLE + "Each policy will require at least thirty (30) days prior written notice to the other party "
        "before any cancellation, non-renewal or material modification of the policy.")
    assert NOTICE not in terms


def test_notice_before_a_chosen_termination_date_is_not_renewal_notice():
    _, terms = _terms(
        PREAMBLE + "Either party may terminate this Agreement for convenience after the first Contract Year by "
        "providing written notice at least sixty (60) days prior to the effective date of such termination, "
        "and either party may extend the cooperation by agreement.")
    assert NOTICE not in terms


def test_expiry_of_a_cure_period_is_not_the_term_ending():
    _, terms = _terms(
        PREAMBLE + "Either party may terminate this Agreement after thirty (30) days written notice in the event "
        "the other is in breach, unless the breach is cured before the expiration of such period of time.")
    assert NOTICE not in terms


def test_open_ended_term_gives_the_notice_that_ends_it():
    _, terms = _terms(
        PREAMBLE + "8. Term. The term of this Agreement shall commence on the Effective Date and shall remain in "
        "effect until terminated by either Party upon thirty (30) days' prior written notice.")
    assert terms["Expiration Date"].value == "until terminated"
    assert terms[NOTICE].value == "P30D"
    assert terms[NOTICE].detail["ends_open_term"] is True


def test_notice_after_the_initial_term_in_the_next_sentence():
    _, terms = _terms(
        PREAMBLE + "The Initial Term is one (1) year and this Agreement shall automatically be renewed for "
        "successive 1-year terms. Following the Initial Term, either Party may terminate this Agreement "
        "without cause upon written notice to the other Party of at least 3 months.")
    assert terms["Renewal Term"].value == "P1Y"
    assert terms[NOTICE].value == "P3M"


def test_employment_until_notice_is_an_open_ended_term():
    _, terms = _terms(
        "SERVICE AGREEMENT dated 26 September 2019 between Fennel Labs Ltd and Jane Roe.\n\n"
        "1.2 Your employment shall commence on 26 September 2019 and shall continue unless and until either "
        "party gives notice to the other in accordance with paragraph 11 below.")
    assert terms["Expiration Date"].value == "until terminated"


def test_a_term_of_this_agreement_broken_across_lines_keeps_its_length():
    _, terms = _terms(PREAMBLE + "6. Effective Date and Term\n\n6.1 The term of this\n"
                      "Agreement is five (5) years unless the early termination in accordance with this Agreement.")
    assert terms["Initial Term"].value == "P5Y"
    assert terms["Expiration Date"].value == "2025-03-01"


def test_the_term_of_validity_of_this_agreement():
    _, terms = _terms(PREAMBLE + "21. Validation and Term\n\nUnless this Agreement is early terminated, the term of "
                      "the validity of this Agreement shall be one year from the date hereof.")
    assert terms["Initial Term"].value == "P1Y"


def test_a_duration_heading_and_a_term_up_to_and_including_a_date():
    _, terms = _terms(PREAMBLE + "3. Duration\n\n3.1. This Agreement shall commence on 1 January 1998. The initial term "
                      "of the Services, unless terminated as set out herein, shall continue up\nto and including "
                      "28 February 2000 (\"the Initial Term\").\n\n4. Fees\n\nThe fees are due monthly.")
    assert terms["Expiration Date"].value == "2000-02-28"


def test_in_force_for_so_long_as_a_condition_holds_is_open_ended():
    _, terms = _terms(PREAMBLE + "12. This Agreement shall become effective as of the Effective Date and shall continue "
                      "to be in full force and effect for so long as both parties remain shareholders of the Company.")
    assert terms["Expiration Date"].value == "until terminated"


def test_a_period_written_as_two_dates_is_the_term():
    _, terms = _terms(PREAMBLE + "TERM OF EXECUTION From January 30, 2012 until July 29, 2012\n\n"
                      "PAYMENT The carrier invoices monthly.")
    assert terms["Expiration Date"].value == "2012-07-29"
    _, terms = _terms(PREAMBLE + "The Joint Venture is a fixed term Joint Venture beginning November 27, 2018 and "
                      "ending November 30th, 2019 or as otherwise provided in this Agreement.")
    assert terms["Expiration Date"].value == "2019-11-30"


def test_a_period_of_an_obligation_is_not_the_term():
    _, terms = _terms(PREAMBLE + "During the Term of this Agreement, Premier shall purchase a minimum of 500 Units for "
                      "the twelve-month period commencing July 1, 2018 and ending June 30, 2019.")
    assert "Expiration Date" not in terms


def test_a_clause_number_glued_to_its_first_word_and_an_entire_term():
    _, terms = _terms(PREAMBLE + "ARTICLE NINE EFFECTIVENESS\n\n9.1This Agreement shall become effective on the date "
                      "hereof and have a term of five (5) years commencing as of the effective date hereof.")
    assert terms["Initial Term"].value == "P5Y"
    _, terms = _terms(PREAMBLE + "Hydron agrees that this Agreement shall continue for the entire four (4) year term "
                      "unless earlier terminated pursuant to Section 8 of this Agreement.")
    assert terms["Initial Term"].value == "P4Y"
    assert terms["Expiration Date"].value == "2024-03-01"


def test_contract_years_and_a_termination_that_takes_effect_are_told_apart():
    _, terms = _terms(PREAMBLE + "6. Termination of this Agreement shall be effective thirty (30) days from the date of "
                      "receipt of such notice.\n\n7. This Agreement shall commence on the Effective Date and shall "
                      "continue for ten (10) Contract Years, unless terminated in accordance with Section 6.")
    assert terms["Initial Term"].value == "P10Y"


def test_an_amendment_that_extends_the_term_to_a_date():
    _, terms = _terms(PREAMBLE + "2. The Term of the Agreement is hereby extended to January 20, 2012 unless sooner "
                      "terminated as provided for in the Agreement.")
    assert terms["Expiration Date"].value == "2012-01-20"


def test_renewal_for_terms_of_the_same_duration_takes_the_initial_term():
    _, terms = _terms(PREAMBLE + "7.1 Term. This Agreement shall be for a period of five (5) years commencing upon the "
                      "Effective Date.\n\n7.2 Upon the expiry of the Initial Term this Agreement shall automatically "
                      "renew for successive terms of the same duration, unless either party gives notice not less than "
                      "ninety (90) days prior to the expiration of the Initial Term.")
    assert terms["Renewal Term"].value == "P5Y"
    assert terms[NOTICE].value == "P90D"


def test_indefinitely_after_an_initial_term_until_terminated_renews_for_good():
    _, terms = _terms(PREAMBLE + "11.1 This agreement begins on the Commencement Date and shall continue for an initial "
                      "term of one (1) years (Initial Term) and indefinitely after that until terminated by either "
                      "party giving at least twelve (12) months' prior written notice.")
    assert terms["Renewal Term"].value == "perpetual"
    _, terms = _terms(PREAMBLE + "4.1. Term. This Agreement will become effective as of the date first written above "
                      "and will continue in effect thereafter until terminated pursuant to Paragraph 4.2 below.")
    assert "Renewal Term" not in terms


def test_an_option_to_continue_and_a_text_layers_one_in_parentheses():
    _, terms = _terms(PREAMBLE + "When this Agreement expires, you will have the option to continue the franchise "
                      "relationship with us for two (2) additional terms of ten (10) years each.")
    assert terms["Renewal Term"].value == "P10Y"
    _, terms = _terms(PREAMBLE + "This Agreement shall automatically renew beyond the Initial Term for successive one (I) "
                      "year terms, unless a Party provides notice at least 180 days prior to the expiration.")
    assert terms["Renewal Term"].value == "P1Y"


def test_a_renewal_stopped_within_days_before_the_end_without_the_word_notice():
    _, terms = _terms(PREAMBLE + "Upon expiration of the Initial Term, this Agreement shall automatically renew for "
                      "consecutive one (1) year periods, unless terminated by Reseller within sixty (60) days prior to "
                      "the expiration of the Initial Term or any renewal term.")
    assert terms[NOTICE].value == "P60D"
    _, terms = _terms(PREAMBLE + "This Agreement shall be automatically renewed for successive three (3) year terms "
                      "unless either Party provides written notice of non-renewal no later than ninety (90) days prior "
                      "the end of the Initial Term.")
    assert terms[NOTICE].value == "P90D"


def test_a_period_before_the_end_that_is_no_notice():
    _, terms = _terms(PREAMBLE + "The term of this Agreement is two (2) years. For a period of ninety (90) days prior to "
                      "the expiration of the Term (unless the Agreement is terminated by Wade), Naked shall have the "
                      "exclusive right to negotiate an extension.")
    assert NOTICE not in terms


def test_a_stated_end_date_outranks_one_computed_from_the_length():
    _, terms = _terms(PREAMBLE + "9. Term. This Agreement shall have an Initial Term of three (3) years.\n\n"
                      "9.2 The Term shall commence on July 23, 2013 and shall expire on July 22, 2016, unless otherwise "
                      "terminated earlier pursuant to Section 9 of this Agreement.")
    assert terms["Initial Term"].value == "P3Y"
    assert terms["Expiration Date"].value == "2016-07-22"


def test_in_effect_until_the_end_of_a_year():
    _, terms = _terms(PREAMBLE + "This agreement will be in effect until the end of 2006 and will be evaluated at that time.")
    assert terms["Expiration Date"].value == "2006-12-31"


def test_a_warrantys_extension_is_no_renewal_and_a_numeral_in_parentheses_continues_the_sentence():
    _, terms = _terms(
        PREAMBLE + "5. Warranty. The reseller shall offer end-users the option to purchase extended warranty coverage "
        "for an additional twenty-four (24) months.\n\n11.1 TERM. This Agreement shall continue in full force and "
        "effect for an initial period of five (5) years. Thereafter, this Agreement shall automatically renew for "
        "subsequent one\n         (1) year periods unless either party provides the other party with written notification at "
        "least thirty (30) days prior to the expiration of the initial term.")
    assert terms["Renewal Term"].value == "P1Y"
    assert terms[NOTICE].value == "P30D"


def test_until_the_end_of_the_current_calendar_year_ends_the_start_years_december():
    _, terms = _terms(PREAMBLE + "Effective Date and Term. This agreement shall begin upon the date hereof and shall "
                      "remain in effect until the end of the current calendar year and shall be automatically renewed "
                      "for successive one (1) year periods.")
    assert terms["Expiration Date"].value == "2020-12-31"
    assert terms["Expiration Date"].detail["computed_from"]["start"] == "2020-03-01"


def test_a_term_counted_in_contract_years_and_a_clause_number_in_its_subject():
    _, terms = _terms(PREAMBLE + "10.1 Term. The term of this Agreement will commence on the date hereof and will end "
                      "automatically upon the end of Year 3.")
    assert terms["Initial Term"].value == "P3Y"
    assert terms["Expiration Date"].value == "2023-03-01"
    _, terms = _terms(PREAMBLE + "11.1 This agreement begins on March 1, 2020 and, subject to clause 11.2, shall continue "
                      "for an initial term of two (2) years.")
    assert terms["Expiration Date"].value == "2022-03-01"


def test_the_last_day_of_a_month_is_a_date():
    _, terms = _terms(PREAMBLE + "The term of this Agreement shall commence on March 1, 2020 and shall expire on the last "
                      "day of February, 2023.")
    assert terms["Expiration Date"].value == "2023-02-28"


def test_a_term_that_ends_on_written_notice_or_runs_on_unless_terminated_is_open_ended():
    _, terms = _terms(PREAMBLE + "4. Duration and Termination. The term of this Agreement shall commence on the Effective "
                      "Date and shall end on the 60th day following a written notice from one party to the other of its "
                      "decision to terminate this Agreement.")
    assert terms["Expiration Date"].value == "until terminated"
    _, terms = _terms(PREAMBLE + "6. Duration. This Agreement shall become effective as of the day and year first above "
                      "written and shall govern the relations between the parties hereto thereafter, unless terminated "
                      "as set forth in this Section 6.")
    assert terms["Initial Term"].value == "until terminated"


def test_a_termination_on_an_authoritys_objection_is_no_open_term():
    _, terms = _terms(PREAMBLE + "In the event that the Parties make a filing under Section 3.8, this Agreement shall "
                      "terminate at the election of either Party, immediately upon notice to the other Party, in the "
                      "event that a Governmental Authority obtains a preliminary injunction.")
    assert "Expiration Date" not in terms


def test_a_term_in_the_present_tense_and_an_ndas_period_of_confidentiality():
    _, terms = _terms(PREAMBLE + "2. This Agreement remains in force for two years from the date hereof.")
    assert terms["Initial Term"].value == "P2Y"
    assert terms["Expiration Date"].value == "2022-03-01"
    _, terms = _terms(PREAMBLE + "1. Recipient agrees to keep all Confidential Information confidential for a period "
                      "of five (5) years from the date of this Agreement.")
    assert terms["Initial Term"].value == "P5Y"
    _, terms = _terms(PREAMBLE + "21.1 If any Party fails to make any payment required by this Agreement on the date "
                      "when it is due and such default continues for a period of at least two (2) months, the billing "
                      "Party shall notify the billed Party.")
    assert "Initial Term" not in terms


def test_a_term_that_runs_until_an_event_keeps_the_event_and_no_expiration():
    _, terms = _terms(
        PREAMBLE + "7.1 Term. Unless earlier terminated as provided below, this Agreement shall extend until the "
        "last date of expiration of the Patent Rights licensed under this Agreement.")
    assert terms["Initial Term"].value == "until an event"
    assert terms["Initial Term"].detail["event"] == "the last date of expiration of the Patent Rights licensed under this Agreement"
    assert terms["Expiration Date"].value == "not stated"
    assert NOTICE not in terms


def test_an_ndas_duty_of_confidence_until_an_event_beside_a_survival_clause():
    # a common NDA template: the first clause says what survives, the second how long the duty lasts
    _, terms = _terms(
        PREAMBLE + "6. Time Periods. The nondisclosure provisions of this Agreement shall survive the termination "
        "of this Agreement and Receiving Party's duty to hold Confidential Information in confidence shall remain in "
        "effect until the Confidential Information no longer qualifies as a trade secret.")
    assert terms["Initial Term"].value == "until an event"
    assert terms["Initial Term"].detail["event"].startswith("the Confidential Information no longer qualifies")
    _, terms = _terms(PREAMBLE + "6. The obligations of confidence shall survive termination and continue "
                      "indefinitely.")
    assert "Initial Term" not in terms


def test_a_length_stated_later_outranks_an_event():
    _, terms = _terms(
        PREAMBLE + "2. Term. This Agreement shall continue until full performance by both parties.\n\n"
        "3. The term of this Agreement is six (6) months and expires on September 1, 2020.")
    assert terms["Initial Term"].value == "P6M"
    assert terms["Expiration Date"].value == "2020-09-01"


def test_until_revoked_or_a_blank_is_not_an_event():
    for sentence in ("This Agreement shall remain in full force and effect until revoked by any party hereto in writing.",
                     "This Agreement shall continue in effect from the date hereof and until _______, unless extended."):
        _, terms = _terms(PREAMBLE + "5. Term. " + sentence)
        assert terms.get("Initial Term") is None or terms["Initial Term"].value != "until an event"


def test_an_ndas_duty_of_confidence_that_expires_is_its_term():
    _, terms = _terms(
        PREAMBLE + "The Recipient's duty to protect Confidential Information shall expire five (5) years from the "
        "date of this Agreement.")
    assert terms["Initial Term"].value == "P5Y"
    assert terms["Expiration Date"].value == "2025-03-01"


def test_common_term_wordings_give_the_length_and_the_end():
    for sentence, length, end in [
        ("12.1 Term. The initial term of this Agreement shall commence on March 1, 2020 and expire on the fifth "
         "(5th) anniversary thereof.", "P5Y", "2025-03-01"),
        ("12.1 Subject to earlier termination, this Agreement shall have a term of eighteen months from the date "
         "hereof.", "P18M", "2021-09-01"),
        ("12.1 This Agreement shall be in force for a period of 5 (five) years as from the date of this Agreement.",
         "P5Y", "2025-03-01"),
    ]:
        _, terms = _terms(PREAMBLE + sentence)
        assert (terms["Initial Term"].value, terms["Expiration Date"].value) == (length, end), sentence


def test_consecutive_terms_after_an_initial_period_are_a_renewal():
    _, terms = _terms(
        PREAMBLE + "10.1 Term of Agreement. This Agreement shall run for an initial period ending on December 31, "
        "2023, and shall continue thereafter for consecutive one (1) year terms unless terminated by either party "
        "giving at least three (3) months notice before the end of any such term.")
    assert terms["Expiration Date"].value == "2023-12-31"
    assert terms["Renewal Term"].value == "P1Y" and terms["Renewal Term"].detail["successive"]
    assert terms[NOTICE].value == "P3M"


def test_end_dates_defined_timed_or_in_a_period_and_a_present_tense_open_term():
    for sentence, end in [
        ('2. "Expiration Date" means June 30, 2025.', "2025-06-30"),
        ("2. This Agreement shall expire at 11:59 p.m. Eastern Time on March 14, 2027.", "2027-03-14"),
        ("2. This Agreement covers the period from April 1, 2020 to March 31, 2021.", "2021-03-31"),
    ]:
        _, terms = _terms(PREAMBLE + sentence)
        assert terms["Expiration Date"].value == end, sentence
    _, terms = _terms(PREAMBLE + "2. This Agreement is effective until terminated by either party on thirty days "
                      "written notice.")
    assert terms["Initial Term"].value == "until terminated"


def test_lengths_in_the_present_tense_under_a_heading_hyphenated_or_of_the_duration():
    for sentence, length in [
        ("9.1 This Agreement has a term of two years from its effective date.", "P2Y"),
        ("9.1 Term of Agreement: Three (3) years", "P3Y"),
        ("9.1 The duration of this Agreement is three (3) years from the date hereof.", "P3Y"),
        ("9.1 The term hereof shall be five years.", "P5Y"),
        ("9.1 The parties agree that this Agreement shall be in effect for a two-year period beginning on the date "
         "hereof.", "P2Y"),
    ]:
        _, terms = _terms(PREAMBLE + sentence)
        assert terms["Initial Term"].value == length, sentence


def test_an_objection_in_writing_stops_a_renewal():
    _, terms = _terms(PREAMBLE + "9.1 The term of this Agreement is one (1) year, and it will be renewed each year "
                      "automatically unless either party objects in writing 30 days before the anniversary date.")
    assert terms["Renewal Term"].value == "P1Y" and terms[NOTICE].value == "P30D"


def test_a_contract_entered_into_or_concluded_for_a_period_states_its_term():
    for verb in ("is entered into", "is concluded"):
        _, terms = _terms(PREAMBLE + f"1. This Agreement {verb} for a period of three (3) years.\n\n2. Notices.")
        assert terms["Initial Term"].value == "P3Y", verb


def test_an_ndas_obligations_that_will_last_for_a_period_state_its_term():
    _, terms = _terms(PREAMBLE + "5. The Parties' obligations under this Agreement will last for a period of 5 years "
                      "from the Effective Date.\n\n6. Notices.")
    assert terms["Initial Term"].value == "P5Y"


def test_a_renewal_named_in_passing_or_of_another_instrument_is_not_the_contracts():
    for sentence in (
            "During the Term and any renewal terms, and for one (1) year after, the Reseller shall not solicit "
            "Alder's carriers.",
            "Fees shall not rise by more than two percent for any one-year renewal period.",
            "Birchwood may end this Agreement on sixty (60) days' notice if the Freight Brokerage Agreement has not been "
            "renewed for an additional term of two (2) years.",
            "Any such confidentiality duty in such other agreement may only extend for three (3) years.",
            "Alder's right of first refusal shall be extended for thirty (30) days after any change in the offer."):
        _, terms = _terms(PREAMBLE + "4. Term. The term of this Agreement is two (2) years.\n\n7. " + sentence)
        assert "Renewal Term" not in terms, sentence
    _, terms = _terms(PREAMBLE + "3. For any extension or renewal term, the Reseller's appointment is non-exclusive.\n\n"
                      "4. Term. This Agreement will be in effect for two years from the date hereof and will "
                      "automatically renew for successive one (1) year periods unless terminated as provided below.")
    assert terms["Renewal Term"].value == "P1Y" and terms["Renewal Term"].detail["kind"] == "automatic"


def test_a_successor_franchise_is_the_franchises_renewal():
    _, terms = _terms(PREAMBLE + "5. Upon the expiration of the initial term, the Franchisee shall have the right to "
                      "obtain a successor franchise for a single term of ten (10) years immediately following it.")
    assert terms["Renewal Term"].value == "P10Y" and terms["Renewal Term"].detail["kind"] == "option"


def test_a_notice_timed_by_the_renewal_for_something_else_stops_nothing():
    for sentence in ("The Reseller may change its carrier each year by notifying Alder sixty (60) days prior to "
                     "renewal of this Agreement.",
                     "Alder shall give the Reseller notice at least ninety (90) days before the end of the term of any "
                     "inspection it requires."):
        _, terms = _terms(PREAMBLE + "4. Term. The initial term of this Agreement is one (1) year. Thereafter, this "
                          "Agreement automatically renews for successive terms of one (1) year. " + sentence)
        assert terms["Renewal Term"].value == "P1Y" and NOTICE not in terms, sentence


def test_a_notice_to_stop_renewal_split_by_a_page_or_a_list_is_read_whole():
    _, terms = _terms(
        PREAMBLE + "4. Term. This Agreement is for six (6) months and shall automatically be renewed for one (1) month "
        "periods unless either party gives notice of its intention not to renew the",
        "Agreement, which notice must be given not less than twenty (20) days before the end of the current term.")
    assert terms[NOTICE].value == "P20D"


def test_a_cure_period_after_notice_is_no_renewal_notice():
    _, terms = _terms(
        PREAMBLE + "12. Term. This Agreement shall continue for two (2) years, and may be renewed for successive one (1) "
        "year terms by mutual written agreement. Upon prior written notice, either party may end this Agreement if the "
        "other fails to cure a material breach within thirty (30) days of written notice of it.")
    assert terms["Renewal Term"].value == "P1Y" and NOTICE not in terms


def test_indefinitely_until_terminated_is_until_terminated_not_perpetual():
    _, terms = _terms(PREAMBLE + "2. TERM. This Agreement shall be effective from the date first above written and "
                      "shall continue indefinitely until terminated by either Party under Section 9.")
    assert terms["Expiration Date"].value == "until terminated"
    _, terms = _terms(PREAMBLE + "2. TERM. This Agreement shall remain in force in perpetuity.")
    assert terms["Expiration Date"].value == "perpetual"


def test_an_end_given_as_a_labelled_field_or_a_defined_period_and_a_term_of_a_year_without_a_number():
    for text, expiration in [
        (PREAMBLE + "5.1 Term. The Term will commence on the Effective Date and remain in effect until the termination "
         "date specified in Exhibit A.\n\nEXHIBIT A\n\nTERMINATION DATE: June 30, 2023\nTERRITORY: Ontario", "2023-06-30"),
        ("Confirmation of a rate cap transaction between Alder Freight Ltd and Birchwood Mills plc.\n\n"
         "Trade Date:          2 May 2006\nEarly Termination Date:    1 June 2006\n"
         "Termination Date:    1 May 2009\n", "2009-05-01"),
        (PREAMBLE + "1.4 “Service Period” means May 1st 2020 through to April 30, 2021.\n\n9.1 The Agreement shall "
         "commence on the Effective Date and continue in effect for the Service Period, unless terminated earlier as "
         "provided in this Section.", "2021-04-30"),
        (PREAMBLE + "3. This Agreement shall commence on the date hereof and shall continue for an initial term of year "
         "as of that date.", "2021-03-01"),
    ]:
        _, terms = _terms(text)
        assert terms["Expiration Date"].value == expiration, text
    assert terms["Initial Term"].value == "P1Y" and terms["Expiration Date"].detail["start_from"] == "Effective Date"

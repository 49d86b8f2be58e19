"""The contract's initial term, its expiration, how it renews and the notice that stops renewal.

The term clause says how long the contract runs ("an initial term of three (3) years",
"until terminated", "shall expire on December 31, 2022").  When it gives a length but no end
date, the expiration is computed from where the term starts (the clause's own commencement,
else the effective date, else the agreement date), as CUAD does: same calendar day, so five
years from March 1, 2010 is March 1, 2015.  Every computed value keeps the chain it rests on:
the term clause and the start date as quotes, and `computed_from`.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pipelines.datamodel import PAGE_SEPARATOR, Segment
from pipelines.rules.contract_dates import END_WORDS, WITHOUT_END
from pipelines.rules.dates import DateMention, Duration, add_duration, find_durations, find_written_dates
from pipelines.rules.renewal import (
    AUTO_RENEW, AUTOMATIC_RENEWAL, BEFORE_END_RE, END_OF_TERM, EVERGREEN, NOT_RENEWAL_RE, NOTICE_WORD, RENEWAL_PERIOD,
    RENEWAL_WORD, SUCCESSIVE_PERIODS,
)
from pipelines.rules.spans import sentence_around
from pipelines.terms.durations import iso_duration
from pipelines.terms.renewal import SUCCESSIVE_RE, option_notice, renewal_kind, renewal_limit
from pipelines.terms.value import NOT_STATED, Quote, TermValue

INITIAL_TERM, EXPIRATION = "Initial Term", "Expiration Date"
TERM_CLAUSE = "term clause"
"""An expiration's `start_from` when the term clause names its own start date."""
END_OF_START_YEAR = "the end of that calendar year"
RENEWAL, NOTICE = "Renewal Term", "Notice Period To Terminate Renewal"
CUE_CHARS = 40
HEADED_CLAUSE_CHARS = 600  # how far a "Term" heading's clause is read
HEADING_CHARS = 40
HEADING_ONLY_CHARS = 60
SURVIVAL_CHARS = 60  # how near an open-ended phrase survival wording must be to be what it speaks of
# A defined end date: "“Expiration Date” means June 30, 2015" is the term's end, not another definition.
_END_DATE = r"(?:Expiration|Expiry|Termination|End)\s+Date"

# Sentences that state the contract's own term, strongest first: a "Term" heading or the term
# as subject ("The term of this Agreement shall ..."), the agreement as subject ("This Agreement
# shall remain in effect ..."), and an NDA's surviving obligations.
_TERM_CLAUSES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"(?:^|\n)\s*(?:(?:Section|Article)\s+)?(?:\d+(?:\.\d+)*\.?\s*)?(?:\(?[a-z]\)\s*)?"
        r"(?:(?:Initial\s+)?Term(?:\s+of\s+(?:the\s+|this\s+)?Agreement)?|TERM|Duration|DURATION)(?:\s*(?:;|and|AND|&)\s*\w+)?\s*[.:\n]|"
        r"\b[Tt]he\s+(?:initial\s+)?term\s+hereof\s+(?:shall|will|is)\b|"
        r"(?<!during )(?<!during the )(?<!throughout the )\b(?:the\s+)?(?:initial\s+|original\s+)?(?:term|duration)\s+of\s+(?:(?:the\s+)?validity\s+of\s+)?(?:this|the)\s+"
        r"(?:\w+\s+)?(?:agreement|contract)\b(?:\s*\([^)]{0,40}\))?\s*(?:shall|will|is|commences?|begins?|expires?)|"
        r"(?<!during )(?<!of )(?<!in )(?<!for )\b[Tt]he\s+[\"“”]?(?:initial\s+)?[Tt]erm[\"“”]?\s*(?:\([^)]{0,40}\)\s*)?(?:shall|will|is)\b|"
        r"[\"“](?:Initial\s+)?Term[\"”]\s+(?:means|shall\s+mean)\b|"
        # "“Expiration Date” means June 30, 2015"
        rf"[\"“]{_END_DATE}[\"”]\s+(?:means|shall\s+mean)\s+(?=\w+\s+\d|\d)|"
        # a definitions list written without quotes: "1.20. Term shall mean the Effective Date through ..."
        r"(?:^|\n)\s*(?:\d+(?:\.\d+)*\.?\s*)?(?-i:(?:Initial\s+)?Term)\s+(?:means|shall\s+mean)\b|"
        r"\(\s*(?:the\s+|such\s+period,?\s+)?[\"“](?:Initial\s+)?Term[\"”]\s*\)",  # "... expire on May 1, 2006 (the "Term")"
        re.IGNORECASE),
    re.compile(
        r"(?:(?<![a-z])(?<!termination\sof\s)(?<!expiration\sof\s)(?:this|the)\s+(?:\w+\s+){0,3}?"
        r"(?:agreement|contract|joint\s+venture|arrangement|engagement)|"
        # an employment contract's term: "Your employment shall commence ... and shall continue until ..."
        r"\b(?:your|his|her|the\s+\w+['’]s)\s+(?:employment|appointment))\b"
        r"(?:\s*\([^)]{0,40}\))?(?:[^.;]|\.(?=\d)){0,80}?"
        r"\b(?:shall|will|is\s+to)\s+(?:\w+\s+){0,3}?(?:continue|remain|expire|terminate|end|commence|begin|run|"
        r"be\s+in\s+(?:full\s+)?(?:force|effect)|be\s+(?:for|valid|effective)|become\s+effective|come\s+into\s+(?:force|effect)|"
        r"have\s+(?:an?\s+)?(?:(?:initial|original|fixed)\s+)?(?:term|duration))\b|"
        # the present tense, right after the contract: "This Agreement remains in force for two years from ..."
        r"(?<![a-z])(?<!termination\sof\s)(?<!expiration\sof\s)(?:this|the)\s+(?:\w+\s+){0,3}?(?:agreement|contract)\b"
        r"(?:\s*\([^)]{0,40}\))?\s+(?:(?:remains|continues|expires|terminates|ends|runs|is\s+(?:effective|valid))\s+"
        r"(?:in\s+(?:full\s+)?(?:force|effect)\b|until\b|for\b|on\b)|has\s+(?:an?\s+)?(?:(?:initial|original|fixed)\s+)?"
        r"(?:term|duration)\s+of\b|"
        r"(?:is|has\s+been)\s+(?:entered\s+into|concluded)\s+for\b)",  # "This Agreement is entered into for a period"
        re.IGNORECASE),
    # "The Recipient's duty to protect Confidential Information shall expire five (5) years from ...",
    # "The Parties' obligations under this Agreement will last for a period of 5 years"
    re.compile(r"\b(?:obligations|dut(?:y|ies))\b[^.]{0,200}?\b(?:shall\s+(?:survive|continue|remain|expire|terminate|last)|will\s+last)\b"
               r"(?!\s+(?:responsible|liable|bound|obligated|subject)\b)|"
               # "Recipient agrees to keep all Confidential Information confidential for a period of five (5) years"
               r"\b(?:keep|hold|maintain)\b[^.]{0,150}?\bconfiden\w*\b[^.]{0,80}?\bfor\s+(?:a\s+)?(?:period\s+of\s+)?\S",
               re.IGNORECASE),
    # A period written as two dates, in a sentence that opens on the contract or a period: "TERM OF
    # EXECUTION From January 30, 2012 until July 29, 2012", "a fixed term Joint Venture beginning
    # November 27, 2018 and ending November 30th, 2019"; not "During the Term,
    # Premier shall purchase ... for the twelve-month period commencing July 1, 2018 and ending ...".
    re.compile(
        r"^\W*(?:\d+(?:\.\d+)*\.?\s+)?(?:(?!during\b|for\b)[\w“”\"'()]+\s+){0,6}?"
        r"(?:term|period|duration|valid\w*|agreement|contract|venture|project|engagement)\b[^.;$]{0,120}?"
        r"\b(?:from|commenc\w*|beginning|starting)\s+(?:on\s+|as\s+of\s+)?(?:the\s+)?[^.;$]{4,40}?\d{4}\s*,?\s+"
        r"(?:and\s+)?(?:to|until|till|through|thru|ending|concluding|expiring)\s+(?:on\s+)?(?:the\s+)?[^.;$]{4,30}?\d{4}\b",
        re.IGNORECASE),
)
# A period the contract is said to run for, named by its definition: "for the Service Period".
_DEFINED_PERIOD_RE = re.compile(
    r"\b(?:for|during|throughout)\s+the\s+(?P<name>(?:[A-Z][\w-]*\s+){1,3}(?:Period|Term))\b")
# An end date as a labelled field at the start of a line: "Termination Date:   1 April 2009",
# "TERMINATION DATE: September 30, 1997"; not "Early Termination Date", a right to end early.
_END_DATE_LABEL_RE = re.compile(r"^[ \t]*(?:Termination|Expiration|Expiry)\s+Date[ \t]*:?[ \t]+",
                                re.IGNORECASE | re.MULTILINE)
# "on the third anniversary of the Effective Date": a term of three years.  Also "the fifth (5t h)
# anniversary" as text layers split the ordinal, "the third anniversary date of this Agreement", and
# "commence on the Effective Date and expire on the fifth (5th) anniversary thereof".
_ANNIVERSARY_RE = re.compile(
    r"\b(?P<ordinal>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|fifteenth|twentieth|"
    r"\d{1,2}(?:st|nd|rd|th)|(?P<count>one|two|three|four|five|seven|ten|fifteen|twenty|\d{1,2})(?:\s*\(\d+\))?[\s-]+year)"
    r"\s+(?:\(\d+(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h))?\)\s+)?anniversary\s+(?:date\s+)?(?:of\s+(?:the\s+)?"
    r"(?:Effective\s+Date|Commencement\s+Date|date\s+(?:hereof|of\s+this\s+agreement)|this\s+agreement)|thereof\b)",
    re.IGNORECASE)
# An anniversary of the contract's own date ("the seventh anniversary of the date hereof"): it
# counts from the agreement date even where the term commences on another day.
_OWN_DATE_ANNIVERSARY_RE = re.compile(r"\bof\s+(?:the\s+)?(?:date\s+(?:hereof|of\s+this\s+agreement)|this\s+agreement)$",
                                      re.IGNORECASE)
_COUNT_YEARS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "ten": 10, "fifteen": 15,
                "twenty": 20}
_ORDINAL_YEARS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9, "tenth": 10, "fifteenth": 15, "twentieth": 20}
# The end of a sentence: a full stop before a capital, a clause number or "(b)".
_PARAGRAPH_END_RE = re.compile(r"\n\s*\n|\n\s*(?:\d+(?:\.\d+)+|\([a-z]\))\s")
# "(1) year periods ...": the numeral of "one (1) year" the segmenter took for a list item.
_NUMERAL_IN_PARENTHESES_RE = re.compile(r"\(\d{1,3}\)\s*[a-z]")
# A segment that ends a sentence: closing punctuation, maybe inside quotes or brackets.
_CLOSED_RE = re.compile(r"[.;:!?][\"'”’)\]]*\s*$")
_SENTENCE_CLOSED_RE = re.compile(r"[.;!?][\"'”’)\]]*\s*$")  # a colon opens a list the sentence goes on in
_SENTENCE_END_RE = re.compile(r"(?<![A-Z])\.\s+(?=[A-Z]|\(?[a-z0-9]{1,3}[.)]\s|\d+(?:\.\d+)+\s)")
# Obligations that outlive the contract: "following termination", "shall survive the expiration".
_SURVIVAL_RE = re.compile(r"\b(?:following|after|survive)\s+(?:the\s+|any\s+)?(?:termination|expiration|expiry)\b",
                          re.IGNORECASE)
# A term counted from an event rather than a date: "three (3) years from the Launch Date", "after the First Commercial Sale".
_FROM_EVENT_RE = re.compile(
    r"^\s*(?:\)\s*)?(?:\(s\)\s*)?(?:from|after|following|subsequent\s+to)\s+(?!(?:the\s+)?(?:Effective|Commencement)\s+Date|"
    r"(?:the\s+)?(?:initial\s+)?date\s+(?:hereof|of\s+(?:this|the\s+agreement|its|execution|signing|effective)|first)|"
    r"(?:the\s+)?(?:execution|signing)|such\s+date|"
    r"that\s+date|its\b|this\b)",
    re.IGNORECASE)
# A definition of something else ("“Contract Year” means ..."), which speaks of the term in passing.
_OTHER_DEFINITION_RE = re.compile(
    rf"\W*(?:\d+(?:\.\d+)*\.?\s*)?[“\"](?!(?:Initial\s+)?Term[”\"]|{_END_DATE}[”\"])[^”\"]{{1,40}}[”\"]\s+(?:means|shall\s+mean|has\s+the\s+meaning)")
# A lettered definition ("C. “Contract Year” shall mean each of the consecutive 12-month periods ..."):
# no renewal, though a lettered "Contract Period" may well be the term.
_LETTERED_DEFINITION_RE = re.compile(
    r"\W*(?:[A-Za-z]|\([a-z]{1,3}\))\.?\s+[“\"][^”\"]{1,40}[”\"]\s+(?:means|shall\s+mean|has\s+the\s+meaning)")
# A duration that is the term's length: "for a period of", "an initial term of", "... from the Effective Date".
# The expiry rule reads fewer of these cues (rules/contract_dates.py's _TERM_LENGTH_CUE_RE and
# _FROM_START_RE): its evidence is calibrated on what it reads now.
_LENGTH_BEFORE_RE = re.compile(
    r"(?<!and )\b(?:for|of|survive|be|(?<=term of this agreement )is|(?<=duration of this agreement )is)\s+(?:a\s+|an\s+|the\s+)?"
    r"(?:(?:initial|fixed|original|further|entire|full|whole)\s+)?(?:(?:period|term)\s+of\s+)?(?:an?\s+)?$|"
    # a heading and its length: "Term of Agreement: Three (3) years", "TERM: 36 months"
    r"(?:^|\n)\s*(?:\d+(?:\.\d+)*\.?\s*)?(?:(?:initial\s+)?term|duration)(?:\s+of\s+(?:the\s+|this\s+)?agreement)?\s*:\s*$",
    re.IGNORECASE,
)
# "one (1) year subsequent to the Effective Date", "a three (3) year period commencing on the Effective Date".
_LENGTH_AFTER_RE = re.compile(
    r"^\s*(?:\)\s*)?(?:\(s\)\s*)?(?:term\s+|period\s+)?(?:(?:thereafter|therefrom)|(?:from|after|following|subsequent\s+to|commencing\s+(?:on|with)|"
    r"beginning\s+(?:on|with)|starting\s+(?:on|with))\s+(?:the\s+|such\s+|its\s+)?(?:Effective|Commencement|date|execution|signing))",
    re.IGNORECASE,
)
# A length that runs after the term ends: "and for two (2) years after termination".
_TAIL_RE = re.compile(r"^\s*(?:\)\s*)?(?:after|following|from)\s+(?:the\s+|any\s+|such\s+)?(?:termination|expiration|expiry|end)",
                      re.IGNORECASE)
_TAIL_BEFORE_RE = re.compile(
    r"\band\s+for\b[^,;]{0,20}$|\b(?:within|notice|than|up\s+to)\b[^,;]{0,25}$|\b(?:renew\w*|extended|extension|additional|successive)\b[^.;]{0,40}$|"
    r"\bsurviv\w*\s+(?:the\s+|any\s+)?(?:termination|expiration|expiry)\b[^.;]{0,60}$|"
    # how long a delay, a breach or a suspension lasts before a party may end the contract
    r"\b(?:delayed|suspended|prevented|interrupted|overdue|unremedied|uncured)\s+"
    r"(?:\w+\s+){0,3}?(?:for\s+)?(?:a\s+)?(?:period\s+of\s+)?(?:more\s+than\s+|at\s+least\s+|over\s+)?$",
    re.IGNORECASE)
# What comes right before the term's end date: rules/contract_dates.py's END_WORDS, the forms and words
# the expiry rule (calibrated as it reads now) leaves out, "as of" or "at" ("expires at midnight on"),
# and "the earlier of".
_END_CUE_RE = re.compile(
    rf"\b(?:{END_WORDS}|expire[sd]|expiration|terminate[sd]|ends|conclude[sd]?|concluding|thru|"
    r"up\s+to\s+and\s+including)\s+"
    r"(?:on\s+|as\s+of\s+|at\s+)?(?:the\s+)?$|"
    r"\b(?:earlier|later)\s+(?:to\s+occur\s+)?of\s*:?\s*(?:\(\w{1,3}\)\s*)?(?:the\s+)?$",
    re.IGNORECASE,
)
# "shall be in effect until the end of 2006": the year's last day.
_YEAR_END_RE = re.compile(r"\buntil\s+the\s+end\s+of\s+(?:(?:the\s+)?(?:calendar\s+)?year\s+)?(?P<year>(?:19|20)\d{2})\b",
                          re.IGNORECASE)
# "shall remain in effect until the end of the current calendar year": the start's year's last day.
_CURRENT_YEAR_END_RE = re.compile(
    r"\buntil\s+the\s+end\s+of\s+the\s+(?:then[\s-]+)?current\s+(?:calendar\s+)?year\b", re.IGNORECASE)
# "will end automatically upon the end of Year 3", "until the end of the fifth Contract Year": a
# term counted in the contract's years, as long as that many years from its start.
_CONTRACT_YEAR_END_RE = re.compile(
    r"\b(?:until|upon|at|on|through|with)\s+(?:the\s+)?(?:end|expiration|expiry|close)\s+of\s+(?:the\s+)?"
    r"(?:(?P<ordinal>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,2}(?:st|nd|rd|th))\s+"
    r"(?:(?:Contract|Agreement|License|Licence|Lease|Term)\s+)?Year|"
    r"(?:(?:Contract|Agreement)\s+)?Year\s+(?P<count>\d{1,2}|one|two|three|four|five|seven|ten))\b",
    re.IGNORECASE)
# A term of one year or month written without a number: "for a term of a year", "an initial term of year".
_SINGLE_LENGTH_RE = re.compile(r"\b(?:term|period|duration)\s+of\s+(?:an?\s+)?(?P<unit>year|month)\b", re.IGNORECASE)
_START_CUE_RE = re.compile(
    r"\b(?:commenc\w*|begin\w*|start\w*|effective|from|into\s+force)\s+(?:on\s+|as\s+of\s+|with\s+)?(?:the\s+)?$", re.IGNORECASE
)
_END_DATE_DEFINED_RE = re.compile(
    rf"\b{_END_DATE}[\"”]\s+(?:means|shall\s+mean)\s+(?:the\s+)?$", re.IGNORECASE)
# A time of day between an end cue and its date: "at 11:59 p.m. (New York time) on", "at midnight on".
_TIME_OF_DAY_RE = re.compile(
    r"\bat\s+(?:\d{1,2}(?:[:.]\d{2})?\s*(?:a\.?\s?m\.?|p\.?\s?m\.?|o['’]clock|hours?)|midnight|noon|"
    r"(?:the\s+)?close\s+of\s+business)[^.;\d]{0,30}?\bon\s+(?:the\s+)?$", re.IGNORECASE)
# "the later of (i) the third anniversary of the Effective Date or (ii) the date on which ...": a
# length whose end also waits on an undated event, so the expiration cannot be computed.
_LATER_OF_RE = re.compile(r"\blater\s+(?:to\s+occur\s+)?of\s*:?\s*(?:\(\w{1,3}\)\s*)?(?:the\s+)?$", re.IGNORECASE)
# A term without end, in rules/contract_dates.py's WITHOUT_END words and "perpetually" (which the
# expiry rule, calibrated as it reads now, does not take); "until terminated" is a value of its own,
# below.  "perpetual and irrevocable", "an irrevocable, perpetual licence" describe a grant, not the term.
_PERPETUAL_RE = re.compile(
    r"(?<!irrevocable,\s)(?<!irrevocable\s)(?<!irrevocable\sand\s)"
    rf"\b(?:perpetually|{WITHOUT_END})\b(?![,\s]+(?:and\s+)?irrevocabl)", re.IGNORECASE)
# "shall continue indefinitely until terminated by either Party", "thereafter indefinitely until this
# Agreement is terminated": without end until a party ends it, which is "until terminated", not perpetual.
_THEN_UNTIL_TERMINATED_RE = re.compile(
    r"\W+(?:\w+\W+){0,2}?until\s+(?:(?:this|the)\s+agreement\s+is\s+|it\s+is\s+)?terminated\b", re.IGNORECASE)
# An open-ended term: "until terminated", "until a Party terminates", "until the termination of".
_UNTIL_TERMINATED_RE = re.compile(
    r"\bunless\s+and\s+until\s+(?:terminated|either\s+party\s+(?:gives|terminates))|"
    r"\buntil\s+(?:(?:it\s+is\s+|so\s+)?terminated|(?:a|either|one)\s+party\s+(?:terminates|gives)|"
    r"such\s+time\s+as\s+(?:it\s+is\s+)?terminated|(?:the\s+)?(?:expiration\s+or\s+(?:earlier\s+)?)?termination\b(?!\s+date)|"
    r"this\s+agreement\s+is\s+terminated)|"
    r"\b(?:end|expire|terminate)s?\s+(?:only\s+)?(?:when|upon|if)\s+(?:it\s+is\s+)?terminated\b|"
    # "shall end on the 60th day following a written notice from one party", "shall terminate (a)
    # at the option of any party, upon 90 days' advance written notice"
    # at will: a written notice, not "immediately upon notice ... in the event that" an authority objects
    r"\b(?:shall|will)\s+(?:end|expire|terminate)\b[^.;]{0,60}?\b(?:upon|following|after)\s+(?:(?:the\s+)?receipt\s+of\s+)?"
    r"(?:a\s+|the\s+|(?:at\s+least\s+)?[\w()]+\s+(?:\(\d+\)\s+)?(?:days?|months?)['’]?\s+)?(?:(?:prior|advance)\s+)*written\s+notice\b|"
    # "shall become effective as of the day first above written and shall govern ... thereafter, unless terminated"
    r"\bthereafter,?\s+unless\s+(?:sooner\s+|earlier\s+)?terminated\b|"
    # "shall continue in force until the earlier of (i) ... and (ii) the delivery of notice of termination"
    r"\bcontinue\s+in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?\s+until\s+the\s+(?:earlier|first)\b"
    r"[^.]{0,400}?\bnotice\s+of\s+termination\b|"
    # "shall continue to be in full force and effect for so long as the Parties each remain a Shareholder"
    r"\b(?:continue|remain)\s+(?:\w+\s+){0,8}?for\s+so\s+long\s+as\b",
    re.IGNORECASE,
)
# A term that runs until an event the contract does not date: "shall extend until the last date
# of expiration of the ... rights licensed", "will ... continue through the completion of
# Developer's services", "shall expire if the Investment Advisor ceases to serve".  The initial
# term is then "until an event" and the expiration not stated: CUAD's annotators call half of
# these perpetual and leave the other half blank.  Not a termination ("until terminated", "until
# revoked", "the date stated in the notice of termination"), the term's own end ("until the
# expiration of the Term", "the earliest of"), a blank ("until _______") or a period before a date.
_UNTIL_EVENT_RE = re.compile(
    r"(?:\b(?:continue|remain|extend|be\s+in\s+(?:full\s+)?(?:force|effect))\b[^.;]{0,80}?\b(?:until|through)|"
    r"\b(?:shall|will)\s+(?:automatically\s+)?expire\s+(?:if|when|upon)\b)\s+"
    r"(?P<event>(?!(?:it\s+is\s+|so\s+)?terminated\b|(?:the\s+)?(?:earlier\s+)?termination\b|"
    r"(?:the\s+)?(?:expiration|expiry|end)\s+of\s+(?:the|this|such|any)\s+(?:\w+\s+){0,2}?(?:term|agreement|period)\b|"
    r"(?:a|either|one)\s+party\b|such\s+time\s+as\s+(?:it\s+is\s+)?terminated|(?:the\s+)?(?:earlier|earliest|later|latest|first)\b|"
    r"(?:it\s+is\s+)?revoked\b|the\s+date\s+(?:stated|specified|set\s+forth)\s+in\s+(?:the|a|any|such)\s+notice\b|"
    r"(?:the\s+)?[A-Z]\w+\s+(?:Period|Term)\b|[^.;]*_{3})"
    r"[^.;]{8,160})",
    re.IGNORECASE,
)
UNTIL_EVENT = "until an event"
# How a contract renews: "automatically renew for successive one (1) year periods", "option to renew".
# The wordings the renewal rule reads too come from rules/renewal.py; the value reads more of them
# (an option to renew, "consecutive terms", "for up to two additional years", year to year) and
# takes "will be extended" with "shall be renewed", which the rule's renewal evidence does not:
# that evidence's confidence is calibrated on what it reads now (calibration.yaml).
_RENEWAL_RE = re.compile(
    rf"{AUTOMATIC_RENEWAL}|{SUCCESSIVE_PERIODS}|"
    rf"\bconsecutive\s+(?:[\w()-]+\s+){{0,4}}?(?:periods|terms)\b|{RENEWAL_PERIOD}|"
    r"\b(?:renew|extend)(?:ed|s)?\s+(?:\w+\s+){0,5}?for\s+(?:up\s+to\s+)?(?:an?\s+)?(?:additional|further|successive|consecutive|"
    rf"subsequent|like|one|two|three|four|five|\d)|{EVERGREEN}|\bthereafter\b[^.;]{{0,60}}\buntil\s+terminated|"
    rf"\bindefinitely\s+(?:after|thereafter)|\b(?:shall|will)\s+be\s+(?:renewed|extended)\b|"
    rf"{AUTO_RENEW}|"
    r"\boption\s+to\s+(?:\w+ly\s+)?(?:renew|extend|continue)|\bright\s+to\s+(?:\w+ly\s+)?(?:renew|extend)|"
    # a franchise renewed by another name: "the one time right to obtain a successor franchise ... for a
    # single term of five (5) years"
    r"\bsuccessor\s+(?:franchise|term)s?\b|"
    # "extended automatically", "renewed tacitly every year", "automatic annual renewals", "a renewable one-year term"
    r"\b(?:renew|extend|prolong)(?:ed|s)?\s+(?:\w+\s+){0,2}?(?:automatically|tacitly)\b|"
    r"\bautomatic\s+(?:\w+\s+){0,3}?(?:renewals?|extensions?)\b|\btacit(?:ly)?\s+renew|\brenewable\s+(?:\w+[\s-]+){0,2}?(?:term|period)|"
    # "shall continue from year to year thereafter", "Thereafter, this Agreement shall be effective month to month"
    r"\b(?:continue|remain|effective|renew\w*|extend\w*)\b[^.;]{0,80}?\b(?:year[\s-]+to[\s-]+year|month[\s-]+to[\s-]+month)\b",
    re.IGNORECASE,
)
# A renewal that carries the term on until a party ends it: "and indefinitely after that until
# terminated", "thereafter until terminated" after a period, so perpetual even where the term
# clause was not read; its sentence's lengths are the initial term's.
_CONTINUES_UNTIL_TERMINATED_RE = re.compile(r"(?:thereafter|indefinitely)\b", re.IGNORECASE)
# What such a renewal follows in its sentence: a length or the end of a period ("an initial term of
# one (1) years (Initial Term) and indefinitely after that", "until the end of the fifteenth (15th)
# Contract Year, and ... thereafter"), not the start alone ("effective as of the date first
# written above and will continue in effect thereafter").
_AFTER_A_PERIOD_RE = re.compile(r"\b(?:initial|original|first)\s+(?:term|period)\b|\bend\s+of\b|\b(?:years?|months?)\b",
                                re.IGNORECASE)
# A renewal term named in passing: "any renewal term", "each one-year renewal period".
_RENEWAL_MENTION_RE = re.compile(r"\b(?:any|each|every)\s+(?:[\w-]+\s+){0,2}?$", re.IGNORECASE)
_RENEWAL_PERIOD_RE = re.compile(RENEWAL_PERIOD, re.IGNORECASE)
# A renewal said only by its verb ("extended for thirty (30) days", "shall be renewed"), which
# renews the contract only where the contract or its term is named by it.
_BARE_EXTENSION_RE = re.compile(r"(?:renew|extend)(?:ed|s)?\s|(?:shall|will)\s+be\s", re.IGNORECASE)
_BY_ITSELF_RE = re.compile(r"\b(?:automatically|tacitly)$", re.IGNORECASE)
_THE_CONTRACT_RE = re.compile(r"\b(?:agreement|contract|term|it|hereof)\b", re.IGNORECASE)
# Another instrument before a renewal wording: "such other agreement", "the Web Site Services
# Agreement" (a capitalised name; the contract calls itself "this Agreement").
_OTHER_INSTRUMENT_RE = re.compile(
    r"\b(?i:other|another|separate)\s+(?i:agreements?|contracts?)\b|"
    r"\b(?i:the|such)\s+(?:[A-Z][\w-]*\s+){1,5}(?:Agreement|Contract)\b(?!\s*\()")
# "automatically renew for successive terms of the same duration", "for a like term".
_SAME_LENGTH_RE = re.compile(
    r"\b(?:(?:terms?|periods?)\s+of\s+(?:the\s+)?(?:same|equal|like)\s+(?:duration|length)|like\s+(?:term|period)s?\b|"
    r"(?:term|period)s?\s+equal\s+(?:in\s+(?:duration|length)\s+)?to\s+the\s+(?:initial|original)\s+term)",
    re.IGNORECASE)
# Notice by its name (rules/renewal.py's NOTICE_WORD) or in other words: "notify", "notification", "request in
# writing".  The renewal-notice rule keeps to the word, as its evidence is calibrated on it.
_NOTICE_RE = re.compile(
    rf"{NOTICE_WORD}|\bnotif(?:y|ies|ied|ying|ication)\b|\b(?:request|notify|inform|object)\w*\s+in\s+writing\b",
    re.IGNORECASE)
# Renewal lengths written without a number: "renewed tacitly every year", "automatic annual renewals",
# "each subsequent one-year term", "month-to-month".
_WORDED_LENGTH_RE = re.compile(
    r"\b(?:(?P<year>annual(?:ly)?|every\s+year|each\s+year|year[\s-]to[\s-]year)|(?P<month>month[\s-]to[\s-]month|monthly)|"
    r"(?P<amount>one|two|three|four|five|ten|\d{1,2})-(?P<unit>year|month)|"
    r"\ban?\s+(?:additional|further|subsequent|successive)\s+(?P<single>year|month)(?![\s-]*(?:\(|s\b)))\b",
    re.IGNORECASE)
_SMALL_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
# "thirty (30) days' prior written notice".
_NOTICE_AFTER_RE = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:prior\s+|advance\s+)?(?:written\s+)?notice\b", re.IGNORECASE)
# "written notice to the other Party of at least 3 months": the notice named before its length.
_NOTICE_OF_RE = re.compile(r"\bnotice\b[^.;]{0,40}?\bof\s+(?:at\s+least|not\s+less\s+than|no\s+less\s+than)\s*$",
                           re.IGNORECASE)
# A cure period measured from a notice: "fails to cure ... within thirty (30) days of written notice".
_CURE_BEFORE_RE = re.compile(r"\b(?:within|cure[sd]?|remed(?:y|ied|ies))\b[^.;]{0,30}$", re.IGNORECASE)
_TERMINATES_RE = re.compile(r"\b(?:terminat\w*|cancel\w*)\b", re.IGNORECASE)
# A sentence about the time after the term: "Following the Initial Term", "at any time thereafter".
_AFTER_TERM_RE = re.compile(
    r"\b(?:following|after|upon\s+(?:the\s+)?expir\w+\s+of)\s+(?:the\s+)?(?:initial|original|first|primary)\s+term\b|"
    r"\bthereafter\b|\bduring\s+(?:any|the|each)\s+(?:renewal|extension|extended)\s+(?:term|period)", re.IGNORECASE)
# "thirty (30) days' prior written notice" with nothing between: a notice, never a renewal length.
_NOTICE_RIGHT_AFTER_RE = re.compile(r"^['’]?\s*(?:prior\s+|advance\s+)?(?:written\s+)?notice\b", re.IGNORECASE)
# A sentence about the contract's renewal or the end of its term: "renew", "the expiration of this
# Agreement", "the end of the then-current term", not "the expiration of such cure period" or
# "the non-extendable due date" (rules/renewal.py's RENEWAL_WORD and END_OF_TERM, and more).
_RENEWAL_CONTEXT_RE = re.compile(
    rf"\b(?:{RENEWAL_WORD}|(?<!non-)extend\w*|(?:expiration|expiry)(?:\s+date)?\s+of\s+"
    r"(?:the\s+|this\s+|any\s+|each\s+|such\s+)?(?:then[\s-]+)?(?:current\s+|initial\s+|original\s+|renewal\s+|applicable\s+)?"
    r"(?:term|agreement|contract)|(?:expiration|expiry)\s+of\s+(?:the\s+|any\s+|each\s+|such\s+)?(?:then[\s-]+)?"
    r"(?:current|initial|original|renewal|extension)\s+period|(?:expiration|expiry)\s+date\b|"
    rf"{END_OF_TERM}|automatic(?:ally)?\s+continue)\b",
    re.IGNORECASE,
)
# A sentence that opens a new article ("8. TERMINATION 8.1 ..."): it does not carry on the one before.
_ARTICLE_HEADING_RE = re.compile(r"\W*(?:(?:Section|Article)\s+)?\d+\.?\s+[A-Z][A-Z&,;\s]{3,}\b(?=\s)")
# An insurance policy's renewal ("thirty days' notice of any cancellation or non-renewal of the
# policy"), not the contract's.
_INSURANCE_RE = re.compile(r"\binsur(?:ance|er|ers|ed)\b|\bpolic(?:y|ies)\b|\bcoverages?\b", re.IGNORECASE)
# What else renews or extends that is not the contract: "the option to purchase extended
# warranty coverage for an additional twenty-four (24) months".
_WARRANTY_RE = re.compile(r"\bwarrant(?:y|ies)\b", re.IGNORECASE)
# A notice that exercises an option to renew ("may exercise each such renewal option by giving
# written notice", "wishes to extend the Term ... shall provide notice"): CUAD's notice period
# is the one that stops a renewal, so an election to renew has none.
_RENEWAL_BY_ELECTION_RE = re.compile(
    r"\b(?:option|elect\w*|wish(?:es)?|desires?|choice|chooses?|intends?|intention)\s+(?:\w+\s+){0,3}?to\s+(?:renew|extend)\b|"
    r"\bexercis\w+\s+(?:\w+\s+){0,4}?(?:renewal|extension)\s+(?:option|right)|\b(?:renewal|extension)\s+option\b|"
    r"\bexercis\w+\s+(?:this|such|the|its|said|each\s+such)\s+option\b|\bof\s+(?:its|his|her|their|your)\s+election\b|"
    r"\bextending\s+party\b|\bmay\s+(?:\w+\s+){0,2}?(?:renew|extend)\b|\bmay\s+be\s+(?:renewed|extended)\b",
    re.IGNORECASE)
# A renewal stopped without the word notice: "unless terminated by Reseller within sixty (60) days prior to ...".
_UNLESS_ENDED_RE = re.compile(r"\bunless\s+(?:sooner\s+|earlier\s+)?terminated\b|\bnon-?renew|\bnot\s+to\s+(?:renew|extend)\b",
                              re.IGNORECASE)
# What stops a renewal: "unless either party gives notice", "notice of its intention not to renew".
_STOPS_RENEWAL_RE = re.compile(
    r"\bunless\b|\bnot\s+(?:to\s+|be\s+)?(?:renew|extend)|\bnon-?renew|\bterminat\w*|\bcancel\w*|"
    r"\bnot\s+wish|\bdoes\s+not\s+(?:want|desire)", re.IGNORECASE)
# The contract renewed as a verb, not a renewal named as a moment ("prior to renewal").
_RENEWING_RE = re.compile(r"\b(?:renew|extend)(?:s|ed|ing)?\b", re.IGNORECASE)
# "sixty (60) days prior to the effective date of such termination": notice of a termination the
# party chooses, not of the end of the term.
_BEFORE_TERMINATION_RE = re.compile(
    r"^\W*(?:\w+\W+){0,4}?(?:prior\s+to|before|in\s+advance\s+of)\s+(?:the\s+|any\s+|such\s+)?"
    r"(?:(?:effective|desired|intended|proposed)\s+)?(?:date\s+of\s+(?:such\s+|the\s+)?termination|termination\b|"
    r"(?:effective|desired|intended|proposed)\s+date)",
    re.IGNORECASE)


@dataclass(frozen=True)
class _TermClause:
    """What one term sentence says: its bounds, and the length, end and start it gives."""

    start: int
    end: int
    length: Duration | None
    open_ended: str | None
    end_date: DateMention | None
    start_date: DateMention | None
    ends_with_start_year: bool = False  # "until the end of the current calendar year"
    event: str | None = None  # what ends a term that runs "until an event"


def read_term(text: str, segments: list[Segment], start: TermValue | None,
              dated: TermValue | None = None) -> list[TermValue]:
    """Initial term, expiration, renewal term and renewal notice, each where the contract says.

    `start` is the date the term counts from when its clause names none: the effective date,
    else the agreement date (read_terms has both).  `dated` is the agreement date, which an
    anniversary "of the date hereof" counts from."""
    found: list[TermValue] = []
    segments = _rejoin_broken_sentences(text, segments)
    clause = _term_clause(text, segments)
    if clause is not None:
        found += _term_values(text, clause, start, dated)
    fixed_term = clause is not None and (clause.length is not None or clause.end_date is not None)
    renewal = _renewal_term(text, segments, fixed_term, clause.length if clause is not None else None)
    if renewal is not None:
        found.append(renewal)
    notice = _renewal_notice(text, segments, BEFORE_END_RE)
    if notice is None and renewal is not None:
        notice = _renewal_notice(text, segments, _NOTICE_AFTER_RE)
    if notice is None:
        notice = _notice_ending_open_term(text, segments, _open_spans(clause, renewal))
    if notice is not None:
        found.append(notice)
    return found


def _rejoin_broken_sentences(text: str, segments: list[Segment]) -> list[Segment]:
    """Segments with each sentence the text layer broke in two made whole again.

    A segment that stops without closing punctuation, followed by one that opens in lower
    case ("... extended automatically for a period of 12" / "months, each such extension
    ...") or with a numeral in parentheses ("... renew for subsequent one" / "(1) year periods
    unless ..."), is one sentence: read apart, the renewal loses its length and the notice its
    context."""
    joined: list[Segment] = []
    for segment in segments:
        previous = joined[-1] if joined else None
        if previous is not None and _continues(text, previous, segment):
            joined[-1] = replace(previous, text=text[previous.start:segment.end], end=segment.end, box=None)
        else:
            joined.append(segment)
    return joined


def _continues(text: str, previous: Segment, segment: Segment) -> bool:
    """Whether `segment` carries on the sentence `previous` left open, across a line or a page
    break with nothing but white space (or the page separator) between them."""
    between = text[previous.end:segment.start].replace(PAGE_SEPARATOR, "")
    opening = segment.text.lstrip()
    return (not between.strip() and not _CLOSED_RE.search(previous.text)
            and (opening[:1].islower() or _NUMERAL_IN_PARENTHESES_RE.match(opening) is not None))


def _term_clause(text: str, segments: list[Segment]) -> _TermClause | None:
    """The first sentence of the strongest kind that gives a length, an end, or says the term is
    open-ended: a heading "Term" outranks "this Agreement shall remain in effect" elsewhere.

    A length without an end date takes the end date another term sentence states ("This
    Agreement shall have an Initial Term of three (3) years." ... "The Term shall commence on
    July 23, 2013 and shall expire on July 22, 2016"): the date the contract writes outranks one
    computed from a start it may not date the same way."""
    clauses = _term_clauses(text, segments)
    clause = next(clauses, None) or _defined_period(text, segments) or _labelled_end(text)
    if clause is not None and clause.open_ended == UNTIL_EVENT:
        # "shall continue until full performance by both parties" before "The term of this
        # Agreement is six (6) months": a length or date stated anywhere says more than an event.
        clause = next((c for c in clauses if c.length is not None or c.end_date is not None), clause)
    if clause is not None and clause.length is not None and clause.end_date is None:
        stated = next((c for c in clauses if c.end_date is not None), None)
        if stated is not None:
            return replace(clause, end_date=stated.end_date)
    return clause


def _defined_period(text: str, segments: list[Segment]) -> _TermClause | None:
    """The definition of the period a contract says it runs for ("shall commence on the Effective
    Date and continue in effect for the Service Period" ... "“Service Period” means April 1st 2019
    through to March 30, 2020"), for a contract whose term sentences state no length or end."""
    for segment in segments:
        if not _TERM_CLAUSES[1].search(segment.text):
            continue
        for m in _DEFINED_PERIOD_RE.finditer(segment.text):
            defined = re.compile(rf"[\"“]{re.escape(m.group('name'))}[\"”]\s+(?:means|shall\s+mean)\b").search(text)
            if defined is not None:  # the definition's paragraph: a text layer may end a sentence at "April."
                clause = _read_clause(text, defined.start(), _paragraph_end(text, defined.start()))
                if _states_term(clause):
                    return clause
    return None


def _labelled_end(text: str) -> _TermClause | None:
    """A schedule's or a confirmation's end date given as a field ("Termination Date: 1 April
    2009"), for a contract whose term clause states no end of its own ("until the termination
    date specified in Exhibit A") or that has none."""
    for m in _END_DATE_LABEL_RE.finditer(text):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        dated = find_written_dates(text, m.end(), line_end)
        if dated and dated[0].start == m.end() and dated[0].iso and len(dated[0].iso) == 10:
            return _TermClause(m.start(), line_end, None, None, dated[0], None)
    return None


def _term_clauses(text: str, segments: list[Segment]) -> Iterator[_TermClause]:
    """Every sentence that states the term, strongest kind first."""
    for pattern in _TERM_CLAUSES:
        for segment in segments:
            if _OTHER_DEFINITION_RE.match(segment.text):
                continue
            for m in pattern.finditer(segment.text):
                clause = _clause_at(text, segment, m)
                if not _states_term(clause) and pattern is _TERM_CLAUSES[0]:
                    # "3.1 Term. This Agreement shall become effective on ... It continues for an
                    # initial term of three (3) years": the headed clause is the whole paragraph.
                    clause = _read_clause(text, clause.start, _paragraph_end(text, clause.start))
                if _states_term(clause):
                    yield clause


def _states_term(clause: _TermClause) -> bool:
    return bool(clause.length or clause.open_ended or clause.end_date or clause.ends_with_start_year)


def _paragraph_end(text: str, start: int) -> int:
    """Where a headed clause ends: a blank line or the next numbered clause, within reach."""
    limit = min(len(text), start + HEADED_CLAUSE_CHARS)
    m = _PARAGRAPH_END_RE.search(text, start + HEADING_CHARS, limit)
    return m.start() if m else limit


def _clause_at(text: str, segment: Segment, m: re.Match[str]) -> _TermClause:
    start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
    if end - start < HEADING_ONLY_CHARS:  # a heading alone: read on into its clause
        end = _first_sentence_end(text, end, min(len(text), start + HEADED_CLAUSE_CHARS))
    return _read_clause(text, start, end)


def _first_sentence_end(text: str, start: int, limit: int) -> int:
    """Where the sentence after a heading ends: before the next numbered clause or sentence."""
    m = _SENTENCE_END_RE.search(text, start + HEADING_CHARS, limit)
    return m.start() + 1 if m else limit


def _read_clause(text: str, start: int, end: int) -> _TermClause:
    """The length, end date, start date and open-endedness one term sentence states.

    A length counts only where it is the term's ("for a period of", "... from the Effective
    Date"), not a tail after it ("and for two years after termination") or a notice period."""
    dated = [m for m in find_written_dates(text, start, end) if m.iso and len(m.iso) == 10]
    end_date = next((m for m in dated if _ends_on(text, start, m.start)), None)
    if end_date is None and (year_end := _YEAR_END_RE.search(text, start, end)) is not None:
        end_date = DateMention(year_end.start("year"), year_end.end(), year_end.group("year"), f"{year_end.group('year')}-12-31")
    start_date = next((m for m in dated if m is not end_date and
                       _START_CUE_RE.search(text, max(start, m.start - 30), m.start)), None)
    length = None
    for duration in find_durations(text, start, end):
        # one space for each run of white space: a text layer's line break inside "term of this\nAgreement is"
        before = re.sub(r"\s+", " ", text[max(start, duration.start - CUE_CHARS):duration.start])
        after = text[duration.end:min(end, duration.end + 80)]
        if _TAIL_RE.search(after) or _TAIL_BEFORE_RE.search(text, max(start, duration.start - 2 * CUE_CHARS),
                                                               duration.start):
            continue
        if _LENGTH_BEFORE_RE.search(before) or _LENGTH_AFTER_RE.search(after) or \
                (_END_CUE_RE.search(before) and _FROM_EVENT_RE.match(after)):
            length = duration
            break
    if length is None:
        length = _anniversary(text, start, end) or _contract_years(text, start, end) or _single_length(text, start, end)
    ends_with_start_year = end_date is None and _CURRENT_YEAR_END_RE.search(text, start, end) is not None
    open_ended = event = None
    if (forever := _PERPETUAL_RE.search(text, start, end)) is not None:
        open_ended = None if _survives(text, start, end, forever) else \
            "until terminated" if _THEN_UNTIL_TERMINATED_RE.match(text, forever.end(), end) else "perpetual"
    elif (terminated := _UNTIL_TERMINATED_RE.search(text, start, end)) is not None:
        open_ended = None if _survives(text, start, end, terminated) else "until terminated"
    elif (until := _UNTIL_EVENT_RE.search(text, start, end)) is not None and not dated and \
            not find_durations(text, until.start("event"), until.end("event")) and not _survives(text, start, end, until):
        open_ended, event = UNTIL_EVENT, " ".join(until.group("event").split()).rstrip(",")
    return _TermClause(start, end, length, open_ended, end_date, start_date, ends_with_start_year, event)


def _ends_on(text: str, start: int, at: int) -> bool:
    """Whether the date at `at` is where the term ends: an end cue right before it ("expire on",
    "“Expiration Date” means"), or before the time of day it names ("expire at 11:59 p.m. Eastern
    Time on March 14, 2017")."""
    if _END_CUE_RE.search(text, max(start, at - 25), at) or _END_DATE_DEFINED_RE.search(text, max(start, at - 40), at):
        return True
    time = _TIME_OF_DAY_RE.search(text, max(start, at - 60), at)
    return time is not None and _END_CUE_RE.search(text, max(start, time.start() - 25), time.start()) is not None


def _survives(text: str, start: int, end: int, m: re.Match[str]) -> bool:
    """Whether an open-ended phrase says what outlives the contract ("shall continue in perpetuity
    following termination", "survive termination and continue indefinitely") rather than how long
    it runs.  Only the wording next to the phrase counts: in "The nondisclosure provisions shall
    survive the termination of this Agreement and Receiving Party's duty to hold Confidential
    Information in confidence shall remain in effect until ...", the second clause is the NDA's term."""
    return _SURVIVAL_RE.search(text, max(start, m.start() - SURVIVAL_CHARS), min(end, m.end() + SURVIVAL_CHARS)) is not None


def _anniversary(text: str, start: int, end: int) -> Duration | None:
    """'expire on the third anniversary of the Effective Date' as the three years it means."""
    m = _ANNIVERSARY_RE.search(text, start, end)
    if m is None or not _END_CUE_RE.search(text, max(start, m.start() - 25), m.start()):
        return None
    return Duration(m.start(), m.end(), _counted_years(m), "years")


def _contract_years(text: str, start: int, end: int) -> Duration | None:
    """'until the end of the third Contract Year', 'upon the end of Year 3' as three years."""
    m = _CONTRACT_YEAR_END_RE.search(text, start, end)
    return Duration(m.start(), m.end(), _counted_years(m), "years") if m is not None else None


def _single_length(text: str, start: int, end: int) -> Duration | None:
    """'for a term of a year', 'an initial term of year': one year (or month), written without a
    number."""
    m = _SINGLE_LENGTH_RE.search(text, start, end)
    return Duration(m.start("unit"), m.end("unit"), 1, m.group("unit").lower() + "s") if m is not None else None


def _counted_years(m: re.Match[str]) -> int:
    """The years a match's `count` ("three", "3") or else its `ordinal` ("third", "3rd") names."""
    if m.group("count"):
        count = m.group("count").lower()
        return _COUNT_YEARS.get(count) or int(count)
    ordinal = m.group("ordinal").lower()
    return _ORDINAL_YEARS.get(ordinal) or int(re.match(r"\d+", ordinal).group())


def _term_values(text: str, clause: _TermClause, start: TermValue | None,
                 dated: TermValue | None = None) -> list[TermValue]:
    term_quote = Quote(clause.start, clause.end, "term clause")
    written = " ".join(text[clause.start:clause.end].split())
    values = []
    if clause.length is not None:
        length_text = text[clause.length.start:clause.length.end]
        values.append(TermValue(INITIAL_TERM, iso_duration(clause.length), 0.8, (term_quote,),
                                {"text": length_text}))
    elif clause.open_ended and not clause.end_date:
        values.append(TermValue(INITIAL_TERM, clause.open_ended, 0.7, (term_quote,), _open_detail(clause, written)))
    if clause.end_date is not None:
        values.append(TermValue(EXPIRATION, clause.end_date.iso or NOT_STATED, 0.85,
                                (term_quote, Quote(clause.end_date.start, clause.end_date.end, "end date")),
                                {"text": clause.end_date.text}))
    elif clause.ends_with_start_year:
        values.append(_end_of_start_year(clause, term_quote, start))
    elif clause.length is not None:
        values.append(_computed_expiration(text, clause, clause.length, term_quote, start, dated))
    elif clause.open_ended == UNTIL_EVENT:
        values.append(TermValue(EXPIRATION, NOT_STATED, 0.5, (term_quote,), _open_detail(clause, written)))
    elif clause.open_ended:
        values.append(TermValue(EXPIRATION, clause.open_ended, 0.7, (term_quote,), _open_detail(clause, written)))
    return values


def _open_detail(clause: _TermClause, written: str) -> dict:
    return {"text": written, "event": clause.event} if clause.event else {"text": written}


def _computed_expiration(text: str, clause: _TermClause, length: Duration, term_quote: Quote,
                         start: TermValue | None, dated: TermValue | None = None) -> TermValue:
    """Start + initial term, with the quotes and values it was computed from; "not stated" when
    the term runs from an event the document does not date ("three years after the Launch Date")."""
    term = iso_duration(length)
    after = text[length.end:clause.end]
    event = _FROM_EVENT_RE.match(after)
    if event is not None:
        counted_from = " ".join(after[event.end():event.end() + 80].split())
        return TermValue(EXPIRATION, NOT_STATED, 0.5, (term_quote,),
                         {"computed_from": {"start": None, "term": term}, "counted_from": counted_from})
    if _LATER_OF_RE.search(text, max(clause.start, length.start - CUE_CHARS), length.start):
        return TermValue(EXPIRATION, NOT_STATED, 0.5, (term_quote,),
                         {"computed_from": {"start": None, "term": term}, "later_of_event": True})
    if dated is not None and _OWN_DATE_ANNIVERSARY_RE.search(text, length.start, length.end):
        start_iso, start_quote, start_from = _term_start(None, dated)
    else:
        start_iso, start_quote, start_from = _term_start(clause, start)
    if start_iso is None:
        return TermValue(EXPIRATION, NOT_STATED, 0.5, (term_quote,), {"computed_from": {"start": None, "term": term}})
    value = add_duration(start_iso, length.amount, length.unit)
    return TermValue(EXPIRATION, value, 0.7, (term_quote, start_quote),
                     {"computed_from": {"start": start_iso, "term": term}, "start_from": start_from})


def _end_of_start_year(clause: _TermClause, term_quote: Quote, start: TermValue | None) -> TermValue:
    """December 31 of the year the term starts, for a term that runs to the end of "the current
    calendar year"."""
    start_iso, start_quote, start_from = _term_start(clause, start)
    if start_iso is None or len(start_iso) != 10:
        return TermValue(EXPIRATION, NOT_STATED, 0.5, (term_quote,), {"computed_from": {"start": None}})
    return TermValue(EXPIRATION, f"{start_iso[:4]}-12-31", 0.7, (term_quote, start_quote),
                     {"computed_from": {"start": start_iso, "until": END_OF_START_YEAR}, "start_from": start_from})


def _term_start(clause: _TermClause | None, start: TermValue | None) -> tuple[str | None, Quote | None, str | None]:
    """Where the term starts: its own commencement, else `start`; with where that came from
    (TERM_CLAUSE, or the key term `start` is), so a reviewer's correction of that key term
    can move the expiration computed from it (pipelines.terms.derived)."""
    if clause is not None and clause.start_date is not None:
        return clause.start_date.iso, Quote(clause.start_date.start, clause.start_date.end, "start date"), TERM_CLAUSE
    if start is None:
        return None, None, None
    first = start.evidence[0]
    return start.value, Quote(first.start, first.end, "start date"), start.field


def _renewal_term(text: str, segments: list[Segment], fixed_term: bool,
                  initial: Duration | None = None) -> TermValue | None:
    """The first renewal clause that says for how long the contract renews; after a fixed term,
    "thereafter until terminated" renews it for good, which CUAD calls perpetual, and "for
    successive terms of the same duration" renews it for the `initial` term's length."""
    for segment in segments:
        m = next((r for r in _RENEWAL_RE.finditer(segment.text) if not _renews_in_passing(segment.text, r)), None)
        if not m or NOT_RENEWAL_RE.search(segment.text, max(0, m.start() - CUE_CHARS), m.end()) or \
                _OTHER_DEFINITION_RE.match(segment.text) or _LETTERED_DEFINITION_RE.match(segment.text):
            continue
        start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
        clause = text[start:end]
        if _WARRANTY_RE.search(clause) or _INSURANCE_RE.search(clause):
            continue
        continues = bool(_CONTINUES_UNTIL_TERMINATED_RE.match(m.group())) and (
            fixed_term or _AFTER_A_PERIOD_RE.search(text, start, segment.start + m.start()) is not None)
        if continues:  # only a renewal's own wording ("month to month"), never the initial term's length
            worded = _WORDED_LENGTH_RE.search(text, segment.start + m.start(), end)
            length = _worded_duration(worded) if worded else None
        else:
            length = (_renewal_length(text, segment.start + m.start(), end)
                      or _renewal_length(text, max(start, segment.start + m.start() - CUE_CHARS), end))
        if initial is not None and _SAME_LENGTH_RE.search(text, segment.start + m.start(), end):
            length = replace(initial, start=segment.start + m.start(), end=segment.start + m.end())
        if length is None and (fixed_term or continues) and _UNTIL_TERMINATED_RE.search(text, segment.start + m.start(), end):
            return TermValue(RENEWAL, "perpetual", 0.6, (Quote(start, end, "renewal clause"),),
                             {"text": " ".join(clause.split()), "successive": False, "automatic": True,
                              "kind": "automatic", "limit": None})
        if length is None:
            continue
        kind = renewal_kind(clause)
        detail = {
            "text": text[length.start:length.end],
            "successive": bool(SUCCESSIVE_RE.search(clause)),
            "automatic": kind == "automatic",
            "kind": kind,
            "limit": renewal_limit(clause),
        }
        if kind == "option" and (notice := option_notice(text, start, end, segments)):
            detail["exercise_notice"], detail["exercise_notice_text"] = notice
        return TermValue(RENEWAL, iso_duration(length), 0.7, (Quote(start, end, "renewal clause"),), detail)
    return None


def _renews_in_passing(sentence: str, m: re.Match[str]) -> bool:
    """Whether a renewal wording names a renewal the contract states elsewhere ("during the Term
    and any renewal terms", "for any one-year renewal period") or renews another instrument ("if
    the Web Site Services Agreement has not been renewed", "obligations in such other agreement may
    only extend for five years"), or extends something that is not the contract ("Pretzel Time's
    right to first refusal shall be extended for thirty (30) days"): its lengths are not the
    contract's renewal."""
    named = _RENEWAL_PERIOD_RE.fullmatch(m.group()) is not None
    extends = _BARE_EXTENSION_RE.match(m.group()) is not None and not _BY_ITSELF_RE.search(m.group()) and \
        not _THE_CONTRACT_RE.search(sentence, 0, m.end() + CUE_CHARS)
    return bool(named and _RENEWAL_MENTION_RE.search(sentence, max(0, m.start() - CUE_CHARS), m.start())
                or extends or _OTHER_INSTRUMENT_RE.search(sentence, 0, m.start()))


def _renewal_length(text: str, start: int, end: int) -> Duration | None:
    """The first length in a renewal clause that is not a notice period ("ninety days prior")."""
    durations = [d for d in find_durations(text, start, end)
                 if not (BEFORE_END_RE.search(text[d.end:min(end, d.end + 80)])
                         or _NOTICE_RIGHT_AFTER_RE.search(text[d.end:min(end, d.end + 80)]))]
    worded = _WORDED_LENGTH_RE.search(text, start, end)
    if worded is not None and (not durations or worded.start() < durations[0].start):
        return _worded_duration(worded)
    return durations[0] if durations else None


def _worded_duration(m: re.Match[str]) -> Duration:
    if m.group("year"):
        return Duration(m.start(), m.end(), 1, "years")
    if m.group("month"):
        return Duration(m.start(), m.end(), 1, "months")
    if m.group("single"):
        return Duration(m.start(), m.end(), 1, m.group("single").lower() + "s")
    amount = m.group("amount").lower()
    number = _SMALL_NUMBERS.get(amount) or int(amount)
    return Duration(m.start(), m.end(), number, m.group("unit").lower() + "s")


def _renewal_notice(text: str, segments: list[Segment], follows: re.Pattern[str]) -> TermValue | None:
    """The notice that stops a renewal: the duration before "prior to the end of the term", or,
    in a contract that renews, before "prior written notice" in a clause about renewal."""
    for previous, segment in zip([None, *segments], segments):
        # The renewal may be the sentence before: "... renewed for ten years. Six months' notice must be given ..."
        about_renewal = _RENEWAL_CONTEXT_RE.search(segment.text) or (
            previous is not None and segment.start - previous.end <= 2 and not _ARTICLE_HEADING_RE.match(segment.text)
            and _RENEWAL_CONTEXT_RE.search(previous.text))
        # "unless terminated by Reseller within sixty (60) days prior to the expiration" gives notice
        # without the word: a length before the end that stops the renewal.
        notified = _NOTICE_RE.search(segment.text) or (follows is BEFORE_END_RE and _UNLESS_ENDED_RE.search(segment.text))
        if not (notified and about_renewal) or _INSURANCE_RE.search(segment.text) or _elects_renewal(segment.text):
            continue
        if not _notice_of_renewing(segment.text, previous):
            continue
        for duration in find_durations(text, segment.start, segment.end):
            after = text[duration.end:min(segment.end, duration.end + 80)]
            cure = _CURE_BEFORE_RE.search(text, max(segment.start, duration.start - CUE_CHARS), duration.start)
            if cure and follows is not BEFORE_END_RE:
                continue  # "fails to cure a material breach ... within thirty (30) days of written notice"
            if follows.search(after) and not _BEFORE_TERMINATION_RE.search(after):
                start, end = sentence_around(text, segment, duration.start, duration.end)
                return TermValue(NOTICE, iso_duration(duration), 0.7, (Quote(start, end, "notice clause"),),
                                 {"text": text[duration.start:duration.end]})
    return None


def _notice_of_renewing(sentence: str, previous: Segment | None) -> bool:
    """Whether a notice timed by the end of the term is about the contract going on: it stops the
    renewal or ends the contract ("unless either party gives notice of its intention not to renew"),
    or it renews it ("A party wishing to renew this Agreement shall give ... notice"), not something
    else timed by the renewal ("may elect a new distributor annually by notifying McDATA thirty (30)
    days prior to renewal", "give you notice at least six months before the end of the term of any
    required maintenance").  A sentence the text layer broke at a page ("... of its intention not to
    renew the" / "Agreement, which notice must be given ...") or into a list ("Either party may
    terminate this Agreement prior to expiration of the Term:" / "(i) upon thirty (30) days prior
    written notice") is read whole."""
    carried = previous.text if previous is not None and not _SENTENCE_CLOSED_RE.search(previous.text) else ""
    return any(_STOPS_RENEWAL_RE.search(part) or _RENEWING_RE.search(part) for part in (sentence, carried))


def _elects_renewal(sentence: str) -> bool:
    """Whether the notice in `sentence` exercises an option to renew rather than stopping one."""
    return bool(_RENEWAL_BY_ELECTION_RE.search(sentence)) and not _STOPS_RENEWAL_RE.search(sentence)


def _open_spans(clause: _TermClause | None, renewal: TermValue | None) -> list[tuple[int, int]]:
    """The sentences that leave the contract running until a party ends it: an open-ended term
    clause ("shall remain in effect until terminated by either Party upon thirty (30) days'
    notice") and the renewal clause."""
    spans = []
    if clause is not None and clause.open_ended and clause.open_ended != UNTIL_EVENT and \
            clause.length is None and clause.end_date is None:
        spans.append((clause.start, clause.end))
    if renewal is not None:
        spans += [(q.start, q.end) for q in renewal.evidence]
    return spans


def _notice_ending_open_term(text: str, segments: list[Segment], spans: list[tuple[int, int]]) -> TermValue | None:
    """The notice that ends a contract which runs on until terminated, as CUAD reads it: the
    duration before "notice" (or after "notice ... of at least") in the open-ended sentence or
    the sentence after it ("... shall continue indefinitely.  AIG may terminate this Agreement
    upon thirty (30) days' prior written notice"), never a cure period ("within 30 days of notice")."""
    for start, end in spans:
        if _elects_renewal(text[start:end]):
            continue
        reach = _next_sentence_end(segments, end)
        for duration in find_durations(text, start, reach):
            before = text[max(start, duration.start - CUE_CHARS):duration.start]
            after = text[duration.end:min(reach, duration.end + 80)]
            if _CURE_BEFORE_RE.search(before) or _TAIL_RE.search(after):
                continue
            if _NOTICE_AFTER_RE.search(after) or _NOTICE_OF_RE.search(before):
                sentence_start = start if duration.start < end else end
                return TermValue(NOTICE, iso_duration(duration), 0.6, (Quote(sentence_start, reach, "notice clause"),),
                                 {"text": text[duration.start:duration.end], "ends_open_term": True})
    return None


def _next_sentence_end(segments: list[Segment], end: int) -> int:
    """Where the sentence after the one ending at `end` ends, when that one ends the contract
    after its term ("Following the Initial Term, either Party may terminate ..."); else `end`.
    A termination right for convenience at any time is not a notice that stops the term."""
    following = next((s for s in segments if s.start >= end - 1), None)
    if following is None or not (_TERMINATES_RE.search(following.text) and _AFTER_TERM_RE.search(following.text)):
        return end
    return following.end
"""Does a quote state its clause?  Checks a quote must pass before the playbook acts on it.

Finders (rules, the model) match on wording, so they also fire on text that talks about a
clause without stating it: "nothing in this Agreement shall restrict..." has a non-compete's
words, "Company retains all rights in its Property" an assignment's, a WHEREAS recital or a
table-of-contents line a heading's.  An issue raised from such a quote is wrong, and a
required clause "found" in it is still missing.  These functions name what such a quote is
instead, so the playbook can set it aside and say why.

Cap carve-outs are *not* set aside as Uncapped Liability: "the limitations above shall not
apply to indemnification obligations" leaves that liability uncapped, and CUAD's experts
annotate exactly such carve-outs as Uncapped Liability.
"""
from __future__ import annotations

import re

# --- what kind of text the quote is, whatever its category -----------------------------------

# A recital says why the parties contract, not what they agree: "WHEREAS, ...", "RECITALS".
_RECITAL = re.compile(r"^\W*(?:whereas\b|recitals?\b)", re.IGNORECASE)

# A definition: a quoted term, perhaps numbered, then "means", "shall mean", "has the meaning",
# "refers to", "shall include": "'Exclusive Territory' means ...", "1.4 “Products” shall mean".
_DEFINITION = re.compile(
    r"^\W*(?:\(?[\w.]{1,6}\)?\s+)?(?:(?:the\s+)?terms?\s+|as\s+used\s+(?:herein|in\s+this\s+\w+),?\s+(?:the\s+term\s+)?)?[\"“'‘][^\"”'’]{1,80}[\"”'’]\s*,?\s*"
    r"(?:shall\s+|will\s+)?(?:means?|has\s+the\s+meanings?|have\s+the\s+meanings?|refers?\s+to|includes?)\b",
    re.IGNORECASE,
)
# An obligation inside a definition's body ("'Exclusivity' shall mean that Licensor shall not
# grant..."): then the definition states the clause itself.
_OBLIGATION = re.compile(r"\b(?:shall|will|must|may)\b", re.IGNORECASE)

# A contents line: leader dots before a page number ("Non-Competition ........ 14"), or a run
# of section numbers each starting a title ("15.1 Transfer by Franchisee 15.2 Notice 15.3 ...").
_CONTENTS_LEADER = re.compile(r"(?:\.\s*){4,}\s*\d*|…{2,}")
_SECTION_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)*\.?\s+[A-Z]")
_CONTENTS_MIN_SECTIONS = 3
# Words that make a line a sentence rather than a title.
_VERB = re.compile(
    r"\b(?:shall|will|may|must|agrees?|is|are|be|been|has|have|does|do|grants?|means?|"
    r"not|no|any|each|during|until|unless|if)\b",
    re.IGNORECASE,
)
_HEADING_MAX_WORDS = 10
_MINOR_WORD_CHARS = 3  # "of", "and", "the" stay lower case in a title
# Longer words a title keeps in lower case too: "Exclusivity with Respect to the Territory".
_MINOR_WORDS = frozenset({"with", "from", "into", "upon", "under", "over", "after", "before", "between",
                          "within", "without", "through", "against", "during", "including", "regarding"})


# --- negations: a restriction the quote denies ---------------------------------------------

_RESTRICT = r"(?:prevent|restrict|limit|prohibit|preclude|bar|inhibit|restrain|interfere)\w*"
# "X shall not prevent Y from", "shall not be construed to limit", "nothing in this Agreement
# shall restrict", "is free to", "non-exclusive", "is not an exclusive agreement", "none of
# the Shares is subject to any ...".
_NEGATED_RESTRICTION = re.compile(
    r"\b(?:shall|will|does|do|should|may|is|are)\s+not\s+(?:\w+\s+){0,3}?(?:be\s+(?:construed|deemed|interpreted)"
    r"\s+(?:as\s+|so\s+as\s+|to\s+)?(?:\w+\s+){0,2}?)?" + _RESTRICT + r"|"
    r"\bnothing\b[^.;]{0,160}?\b" + _RESTRICT + r"|"
    r"\b(?:shall|will)\s+(?:be|remain)\s+free\s+to\b|\bbeing\s+free\s+to\b|"
    r"\bnon-?\s?exclusive(?:ly)?\b|"
    r"\b(?:is|are|be)\s+not\s+(?:to\s+be\s+)?(?:deemed\s+(?:to\s+be\s+)?|construed\s+as\s+)?(?:an?\s+)?exclusive\b|"
    r"\b(?:does|do)\s+not\s+(?:grant|create|confer)\s+(?:\w+\s+){0,4}?(?:an?\s+)?exclusive\b|"
    r"\b(?:is|are)\s+not\s+subject\s+to\b|\bnone\s+of\b[^.;]{0,80}?\bsubject\s+to\b",
    re.IGNORECASE,
)
# A restriction stated outright ("shall not sell", "not to compete", "exclusive"), which a
# negated carve-out next to it does not undo.
_RESTRICTION = re.compile(
    r"\b(?:shall|will|may|agrees?\s+(?:that\s+it\s+will|to))\s+not\b|"
    r"\bnot\s+to\s+(?:compete|engage|sell|solicit|market|distribute)|\b(?:sole|exclusive)\b",
    re.IGNORECASE,
)

# --- IP: keeping versus passing on ---------------------------------------------------------

# Keeping what a party owns: "retains all rights", "remains the property of", "is and shall
# remain vested in", "owns", "is the sole owner of".
_RETENTION = re.compile(
    r"\b(?:retains?|retained|reserves?|reserved|(?:shall|will)\s+(?:have\s+and\s+)?retain)\b"
    r"[^.;]{0,100}?\b(?:rights?|title|interest|property|ownership)\b|"
    r"\b(?:remains?|(?:shall|will)\s+remain)\s+(?:vested\s+in|with|the\s+(?:sole\s+(?:and\s+exclusive\s+)?|"
    r"exclusive\s+)?property\s+of)\b|"
    r"\b(?:is|are)\s+and\s+(?:shall|will)\s+(?:remain|continue\s+to\s+be)\b|"
    r"\bowns\b|\b(?:is|are)\s+the\s+(?:sole\s+(?:and\s+exclusive\s+)?|exclusive\s+)?owners?\b|\bbelongs?\s+to\b",
    re.IGNORECASE,
)
# A transfer the quote denies: "no title ... is transferred", "does not assign".
_NEGATED_TRANSFER = re.compile(
    r"\bno\s+(?:\w+\s+){0,8}?(?:is|are|shall\s+be|will\s+be)\s+(?:hereby\s+)?(?:transferred|assigned|conveyed)\b|"
    r"\b(?:does|do|shall|will)\s+not\s+(?:\w+\s+){0,2}?(?:transfer|assign|convey)\w*|"
    r"\bnot\s+(?:be\s+)?(?:transferred|assigned|conveyed)\b",
    re.IGNORECASE,
)
# Passing ownership on: "hereby assigns", "shall vest in", "work made for hire", "shall be the
# property of", "shall be owned by".
_ASSIGNMENT = re.compile(
    r"\b(?:assigns?|assigned|assignment|transfers?|transferred|conveys?|conveyed)\b|\bshall\s+(?:vest|belong)\b|"
    r"\bworks?\s+made\s+for\s+hire\b|\b(?:shall|will)\s+(?:be|become)\s+(?:the\s+)?"
    r"(?:sole\s+(?:and\s+exclusive\s+)?|exclusive\s+)?(?:property|owned)\b",
    re.IGNORECASE,
)
# Work the contract produces: who keeps *that* is who owns new IP, which is the clause.
_OWNERSHIP = re.compile(r"\bown\w*|\btitle\b|\bvest\w*|\bbelong\w*|\bproperty\b|\bproprietary\b",
                        re.IGNORECASE)
_NEW_WORK = re.compile(
    r"\b(?:inventions?|developments?|improvements?|deliverables?|work\s+product|innovations?|discoveries)\b|"
    r"\b(?:created|developed|conceived|made|generated|produced)\s+(?:by|under|in|during|pursuant)\b",
    re.IGNORECASE,
)

# --- liability ---------------------------------------------------------------------------

# A period within which a claim must be brought: "no action ... may be brought more than two
# years after", "neither party will bring an action more than ...".  It limits when, not how much.
_LIMITATION_OF_ACTIONS = re.compile(
    r"\b(?:action|claim|suit|proceeding)s?\b[^.;]{0,160}?\b(?:brought|commenced|instituted|filed|asserted)\b"
    r"[^.;]{0,40}?\b(?:more\s+than|after|within|later\s+than)\b|"
    r"\b(?:bring|commence|institute|file)\s+(?:\w+\s+){0,3}?(?:action|claim|suit|proceeding)s?\b"
    r"[^.;]{0,40}?\b(?:more\s+than|after|within|later\s+than)\b",
    re.IGNORECASE,
)
# Something left outside a limit: "except for", "shall not apply to", "excluding", "other than".
_CARVE_OUT = re.compile(
    r"\bexcept(?:ing)?\b|\bshall\s+not\s+apply\b|\bwill\s+not\s+apply\b|\bexclud(?:ing|es?)\b|\bother\s+than\b|"
    r"\bunlimited\b|\buncapped\b",
    re.IGNORECASE,
)
# What leaves liability outside a limit: a carve-out, "notwithstanding", "provided that", "nothing
# in this Section shall limit", "not limited", a waiver of the limitations.  A plain cap or a plain
# exclusion of consequential damages leaves nothing uncapped; 82 of CUAD's 85 training snippets
# of Uncapped Liability carve something out, the other three say nothing limits it or waive the caps.
_LEFT_UNCAPPED = re.compile(
    _CARVE_OUT.pattern + r"|\bnotwithstanding\b|\bprovided\s*,?\s*(?:that|however)\b|\bsave\b|\bunless\b|"
    r"\bsubject\s+to\b|\bin\s+excess\b|\bnot\s+(?:be\s+)?(?:\w+\s+)?limit|\bwithout\s+limit|"
    r"\bnothing\b[^;]{0,120}?\b(?:limit|restrict)|\bwaives?\b[^.;]{0,80}?\b(?:limit|caps?)\b|"
    r"\bdoes\s+not\s+(?:apply|limit)",
    re.IGNORECASE,
)
# Liability, damages, remedies: what a cap or an exclusion of liability is about.
_LIABILITY = re.compile(r"\bliab(?:le|ility|ilities)\b|\bdamages?\b|\bremed(?:y|ies)\b", re.IGNORECASE)
# A limit: "shall not exceed", "limited to", "in no event".
_LIMIT = re.compile(
    r"\bexceed|\blimitations?\b|\blimited\s+to\b|\bmaximum\b|\bcap(?:ped)?\b|\bin\s+no\s+event\b|"
    r"\bunder\s+no\s+circumstances\b",
    re.IGNORECASE,
)
# Insurance wording: a policy limit or a deductible is the insurer's, not a cap on liability.
_INSURANCE = re.compile(
    r"\b(?:insurance|insured|insurers?|deductibles?|self-insured|premiums?|policy|policies)\b", re.IGNORECASE)
# Liability named as a line of insurance ("commercial general liability insurance").
_INSURED_LIABILITY = re.compile(
    r"\b(?:\w+\s+){0,3}?liability\s+(?:insurance|coverage|policy|policies|limits?)\b", re.IGNORECASE)
# A signature block: "By: ____ Name: ... Title: ...", "IN WITNESS WHEREOF".
_SIGNATURE = re.compile(r"\bIN\s+WITNESS\s+WHEREOF\b|\b(?:By|Name|Title)\s*:|_{4,}", re.IGNORECASE)

# --- most favoured nation -----------------------------------------------------------------

# Terms compared with those given to others: "no less favourable terms", "the lowest price",
# "treated no less favorably than any other distributor".  An MFN clause is that comparison of
# what a party gets (prices, terms, rates, royalties, treatment); a comparison of anything else
# ("no less than ninety percent (90%) of the scheduled delivery time", "lower than the initial
# budget") is not one.
_COMPARED = (r"(?:(?:more|less|no\s+less|not\s+less|at\s+least\s+as|as)\s+favou?rabl\w*|favou?rabl\w*\s+than|lowest|"
             r"(?:lower|better|greater|higher|less)\s+than|best|equivalent\s+to|same\b[^.;]{0,60}?\bas|exceed\w*)")
_TERMS_GIVEN = (r"(?:pric\w*|terms?|rates?|fees?|conditions|royalt\w*|discounts?|charges?|compensation|benefits?|"
                r"treat\w*|limits?|allocat\w*)")
_COMPARISON = re.compile(
    rf"\bmost\s+favou?r\w*|\bMFN\b|\b{_COMPARED}\b[^.;]{{0,120}}?\b{_TERMS_GIVEN}\b|"
    rf"\b{_TERMS_GIVEN}\b[^.;]{{0,120}}?\b{_COMPARED}\b",
    re.IGNORECASE,
)

# --- renewal -------------------------------------------------------------------------------

# A term that renews by itself: "automatically renew", "renewed tacitly", "evergreen" (lower
# case: "Evergreen" is a name), "unless either party gives notice", "renewed for successive
# one-year terms", "month to month", "continue thereafter until terminated".
_AUTOMATIC_RENEWAL = re.compile(
    r"\bautomatic(?:ally)?\b|\bauto-?renew|\b(?-i:evergreen)\b|\btacit(?:ly)?\b|\bunless\s+(?:either|a|one)\s+party\b|"
    r"\bunless\b[^.;]{0,80}?\bnotice\b|\b(?:renew|extend)\w*\s+(?:\w+\s+){0,4}?for\s+(?:\w+\s+){0,2}?"
    r"(?:successive|consecutive|additional|further|subsequent)\b|\b(?:month|year)[\s-]to[\s-](?:month|year)\b|"
    r"\bthereafter\b[^.;]{0,80}?\buntil\b",
    re.IGNORECASE,
)
# A renewal someone must choose: "an option to renew" (not a "Service Option Attachment"),
# "may extend", "the right to renew", "the opportunity to renew", "if the parties agree",
# "upon mutual written agreement".
_RENEWAL_OPTION = re.compile(
    r"\b(?:an?|the|its|their|sole)\s+option\b|\bmay\s+(?:elect\s+to\s+|at\s+its\s+\w+\s+)?(?:renew|extend)|"
    r"\b(?:right|opportunity)\s+to\s+(?:renew|extend)|\bif\s+(?:both|the)\s+parties\s+(?:so\s+)?agree|"
    r"\b(?:upon|by)\s+(?:the\s+)?(?:mutual\s+)?(?:written\s+)?agreement|\bagree\s+(?:in\s+writing\s+)?to\s+(?:renew|extend)|"
    r"\belects?\s+to\s+(?:renew|extend)",
    re.IGNORECASE,
)
# Renewal denied: "do not automatically extend", "decide not to renew", "no renewal".
_NO_RENEWAL = re.compile(
    r"\b(?:not|no)\s+(?:be\s+)?(?:\w+\s+){0,2}?(?:automatic(?:ally)?\s+)?(?:renew|extend)", re.IGNORECASE)


def quote_problem(category: str, text: str) -> str | None:
    """Why `text` does not state a `category` clause, or None when it does.

    The category's own check speaks first, its reason being the more telling ("not a cap"
    for a signature block that also looks like a heading).  Reasons are short, for a
    finding's note: "a recital", "a definition", "a heading or contents line", "a negated
    grant", "retention, not assignment", "a transfer denied, not an assignment", "a limitation
    of actions", "not a cap", "no comparison with others' terms", "a renewal option, not
    automatic", "no automatic renewal stated", "employees, not customers", "no law named", "no
    third-party beneficiary", "nothing said of transfer", "no licence granted", "a lead-in".
    """
    return _CATEGORY_CHECKS.get(category, _no_problem)(text) or _form_problem(text)


def _form_problem(text: str) -> str | None:
    """A problem with what kind of text the quote is, whatever its category."""
    if _RECITAL.match(text):
        return "a recital"
    definition = _DEFINITION.match(text)
    if definition and not _OBLIGATION.search(text, definition.end()):
        return "a definition"
    if is_heading(text):
        return "a heading or contents line"
    if text.rstrip().endswith(":") and not _VERB.search(text):
        return "a lead-in"  # "15.3 Information of exclusive access for Senders and Third parties:"
    return None


def is_heading(text: str) -> bool:
    """Whether `text` is a title or a table-of-contents line rather than a sentence.

    A contents line has leader dots or a run of numbered titles; a heading is short, has no
    verb and its words are in capitals or title case ("12. Non-Competition", "EXCLUSIVITY").
    """
    if _CONTENTS_LEADER.search(text):
        return True
    if _VERB.search(text):
        return False
    if len(_SECTION_NUMBER.findall(text)) >= _CONTENTS_MIN_SECTIONS:
        return True
    words = text.split()
    if not words or len(words) > _HEADING_MAX_WORDS:
        return False
    major = [w for w in words if w[:1].isalpha() and len(w) > _MINOR_WORD_CHARS and w not in _MINOR_WORDS]
    return bool(major) and all(w[0].isupper() for w in major)


def _negated(text: str) -> str | None:
    """A restriction the quote only denies ("nothing ... shall restrict") and never imposes."""
    if _NEGATED_RESTRICTION.search(text) and not _RESTRICTION.search(_NEGATED_RESTRICTION.sub(" ", text)):
        return "a negated grant"
    return None


def _retained(text: str) -> str | None:
    """A party keeping IP it already has, rather than IP passing, or new work being owned; or
    a quote that says nothing of who owns anything (a list of the kinds of IP).  A transfer the
    quote denies ("no title ... is transferred") passes nothing on."""
    stated = _NEGATED_TRANSFER.sub(" ", text)
    if not (_ASSIGNMENT.search(stated) or _NEW_WORK.search(stated)):
        if _RETENTION.search(stated):
            return "retention, not assignment"
        if stated != text:
            return "a transfer denied, not an assignment"
    if not (_ASSIGNMENT.search(text) or _OWNERSHIP.search(text)):
        return "no ownership stated"
    return None


def _uncapped(text: str) -> str | None:
    """Liability left outside a limit.  A time bar on claims caps nothing, and a plain cap or
    exclusion of consequential damages ("in no event shall either party be liable for indirect
    damages") leaves nothing uncapped, unless it carves something out."""
    if _LIMITATION_OF_ACTIONS.search(text) and not _CARVE_OUT.search(text):
        return "a limitation of actions"
    if not _LEFT_UNCAPPED.search(text):
        return "a cap or exclusion that leaves nothing uncapped"
    return None


def _capped(text: str) -> str | None:
    """A cap or exclusion of liability (or a time bar on claims, which CUAD counts as one), as
    opposed to an insurance limit, a deductible or a signature block."""
    if _SIGNATURE.search(text):
        return "not a cap"
    if _INSURANCE.search(text):
        return None if _LIABILITY.search(_INSURED_LIABILITY.sub(" ", text)) else "not a cap"
    if _LIABILITY.search(text) or _LIMIT.search(text) or _LIMITATION_OF_ACTIONS.search(text):
        return None
    return "not a cap"


def _compared(text: str) -> str | None:
    """Terms measured against those given to others, which is what makes a clause an MFN."""
    return None if _COMPARISON.search(text) else "no comparison with others' terms"


def _renews(text: str) -> str | None:
    """A term renewing by itself, as opposed to an option to renew or a mere mention."""
    if _RENEWAL_OPTION.search(text):
        return "a renewal option, not automatic"
    if _NO_RENEWAL.search(text) or not _AUTOMATIC_RENEWAL.search(text):
        return "no automatic renewal stated"
    return None


def _control_changes(text: str) -> str | None:
    """A change of control named (a merger, an acquisition, a sale of substantially all the
    assets, a change in who controls or owns a party), and not in the definition of the term,
    which says what a change of control is but not what happens upon one."""
    if _DEFINITION.match(text) or (_CONTROL_DEFINITION.search(text) and not _UPON_CHANGE.search(text)):
        return "a definition"
    return None if _CONTROL_CHANGE.search(_INSOLVENCY.sub(" ", text)) else "no change of control named"


def _exclusive(text: str) -> str | None:
    """Exclusivity needs its words (exclusive, sole, only, with no other) or a refusal to deal
    elsewhere; negated grants are set aside by _negated first.  "Exclusive jurisdiction", "at
    its sole option" or "solely responsible" use the words of something else."""
    return _negated(text) or (None if _EXCLUSIVE.search(_NOT_DEALING.sub(" ", text)) else "no exclusivity stated")


def _for_convenience(text: str) -> str | None:
    """Ending the contract at will, as opposed to for the other side's breach or default or
    upon its change of control, a notice that terminates nothing, or cancelling an order.  Ending it by both parties' written
    agreement needs no clause, and a lead-in to a list of events ("may be terminated at any time
    upon the occurrence of any of the following events:") names no ground by itself; "at any
    time" alone makes neither at will."""
    ends = _ORDER_CANCELLATION.sub(" ", text)
    at_will = _AT_WILL.search(_ANY_TIME.sub(" ", ends))
    if not _TERMINATION.search(ends) and not at_will:
        return "no termination stated"
    if _FOR_CAUSE.search(text) and not _AT_WILL.search(text):
        return "termination for cause, not convenience"
    if _CHANGE_OF_CONTROL.search(text) and not _AT_WILL.search(text):
        return "termination upon a change of control, not convenience"
    if not at_will and _BY_AGREEMENT.search(text) and not _ON_NOTICE.search(text):
        return "termination by agreement, not convenience"
    if not at_will and text.rstrip().endswith(":") and not _ON_NOTICE.search(text):
        return "a lead-in"
    return None


def _solicits_customers(text: str) -> str | None:
    """A no-solicit that names only employees is the other no-solicit."""
    only_employees = _EMPLOYEES.search(text) and not _CUSTOMERS.search(text)
    return _negated(text) or ("employees, not customers" if only_employees else None)


def _competes(text: str) -> str | None:
    """A non-compete restrains competing; a promise not to hire or solicit employees is a
    no-solicit."""
    no_hire = _EMPLOYEE_SOLICITATION.search(text) and not _COMPETE.search(text)
    return _negated(text) or ("a no-solicit of employees, not a non-compete" if no_hire else None)


def _law_named(text: str) -> str | None:
    """A governing-law clause names a law; "governed by the Master Agreement" names a contract,
    and an arbitral body's "rules and regulations" name no law."""
    return None if _LAW.search(_ARBITRATION_RULES.sub(" ", text)) else "no law named"


def _committed(text: str) -> str | None:
    """A minimum commitment names an amount someone must at least buy, sell, pay or do; how
    long records are kept ("maintain all such records for a minimum of three years") is not one."""
    return None if _MINIMUM.search(_RECORD_KEEPING.sub(" ", text)) else "no minimum stated"


def _no_problem(text: str) -> str | None:
    """Categories without a check of their own: any sentence may state them."""
    return None


_CONTROL_CHANGE = re.compile(
    r"\bcontrol\b|\bmerge[dr]?\b|\bmergers?\b|\bconsolidat|\bacqui(?:re|red|rer|res|ring|sition)|\breorgani[sz]|"
    r"\bsubstantially\s+all\b|\b(?:ownership|owners|shareholders?|stockholders?)\b|\bvoting\b|\btakeover|"
    r"\bsuccessor",
    re.IGNORECASE)
# Change of control named in a definition of "control" ("the power to direct the management",
# "controls, is controlled by or is under common control with"), and what a clause does upon one.
_CONTROL_DEFINITION = re.compile(
    r"\b(?:change\s+(?:of|in)\s+control|control(?:led|ling)?)[\"”’']?\s*(?:\([^)]{0,40}\)\s*)?(?:shall\s+)?"
    r"(?:means?|has\s+the\s+meaning)\b|\b(?:regarded|deemed|considered)\s+(?:as\s+)?(?:being\s+)?in\s+control\b|"
    r"\bcontrols?,?\s+(?:or\s+)?(?:is\s+)?controlled\s+by\b|\bpower\s+to\s+direct\b",
    re.IGNORECASE)
_UPON_CHANGE = re.compile(
    r"\bterminat|\bconsent|\bapprov|\bnotif|\bnotice\b|\bassign|\bright\s+to\b|\boption\b|\brepa(?:y|id)|"
    r"\baccelerat", re.IGNORECASE)
# "a petition for bankruptcy, reorganization or arrangement": an insolvency, not a takeover.
_INSOLVENCY = re.compile(
    r"\b(?:bankrupt\w*|insolven\w*|receiver\w*|creditors?)\b[^.;]{0,80}?\breorgani[sz]\w*|"
    r"\breorgani[sz]\w*[^.;]{0,40}?\b(?:bankrupt\w*|insolven\w*|creditors?|arrangement)\b",
    re.IGNORECASE)
# "Sole" and "exclusive" said of something other than dealing: a court's jurisdiction, one
# side's option, cost or responsibility, "the exclusive warranties", the right to settle or
# defend a claim (an indemnity's procedure).
_NOT_DEALING = re.compile(
    r"\b(?:sole|exclusive)(?:\s+and\s+(?:sole|exclusive|absolute))?\s+(?:option|discretion|election|costs?|"
    r"expenses?|risk|responsibility|remed(?:y|ies)|liability|judg(?:e)?ment|jurisdiction|venue|forum|fault|benefit|place|"
    r"property|owner(?:ship)?)\b|"
    r"\b(?:solely|exclusively)\s+(?:responsible|liable|as\s+(?:necessary|required|needed)|for\s+(?:the\s+)?"
    r"(?:purposes?|benefit)|to\s+the\s+extent|governed)\b|\bexclusive\s+of\b|"
    r"\b(?:sole|exclusive)\s+warrant\w*|"
    r"\b(?:sole\s+and\s+)?(?:sole|exclusive)\s+right\s+to\s+(?:settle|defend|prosecute|control\s+the\s+(?:defen[cs]e|prosecution))\b",
    re.IGNORECASE)
_EXCLUSIVE = re.compile(
    r"\bexclusiv|\bsole(?:ly)?\b|\bonly\b|\bother\s+than\b|\b(?:any|no)\s+(?:other|third)|\bcompet|"
    r"\bnot\s+(?:\w+\s+){0,4}?(?:sell|appoint|grant|licen[cs]e|distribut|purchase|buy|engage|enter|market|offer|"
    r"procure|source|deal|contract|represent|promote)",
    re.IGNORECASE)
_TERMINATION = re.compile(r"\bterminat|\bterminab|\bcancel|\bwithdraw|\babandon|\brevok|\bdiscontinu", re.IGNORECASE)
# An event that ends the contract, not a party's will: "may terminate ... upon the occurrence of a
# Change of Control" (none of CUAD's 169 training snippets of termination for convenience names one).
_CHANGE_OF_CONTROL = re.compile(r"\bchange\s+(?:of|in)\s+(?:the\s+)?control\b", re.IGNORECASE)
_ANY_TIME = re.compile(r"\bat\s+any\s+time\b", re.IGNORECASE)  # alone, "may be changed at any time" ends nothing
_FOR_CAUSE = re.compile(
    r"\bbreach|\bdefault|\binsolv|\bbankrupt|\bfail(?:s|ed|ure)?\s+(?:\w+ly\s+)?to\b|\bin\s+the\s+event\s+of\s+the\s+occurrence|"
    r"\bfor\s+cause\b|\bviolat", re.IGNORECASE)
_AT_WILL = re.compile(
    r"\bconvenience\b|\bwithout\s+(?:cause|reason)|\bfor\s+any\s+(?:or\s+no\s+)?reason|\bno\s+reason|"
    r"\bat\s+(?:any\s+time|will)\b|\bin\s+its\s+(?:sole\s+)?(?:and\s+absolute\s+)?discretion", re.IGNORECASE)
# Both parties ending the contract together ("by mutual written agreement", "by written consent of
# the parties"), and a party ending it alone on notice ("upon 5 days written notice").
_BY_AGREEMENT = re.compile(
    r"\b(?:by|upon|with)\s+(?:the\s+)?(?:mutual\s+)?(?:written\s+)?(?:agreement|consent)\b", re.IGNORECASE)
_ON_NOTICE = re.compile(r"\bnotice\b", re.IGNORECASE)
# Cancelling an order or a shipment, which leaves the contract standing.
_ORDER_CANCELLATION = re.compile(
    r"\bcancel\w*\s+(?:\w+\s+){0,5}?(?:(?:purchase\s+)?orders?|on\s+order|shipments?|deliver(?:y|ies))\b",
    re.IGNORECASE)
# Whom a no-solicit protects, after the soliciting ("Client will not solicit ... employees"
# protects no client).
_CUSTOMERS = re.compile(
    r"\b(?:solicit|entice|induce|divert|call\s+on|accept|interfere)\w*\b[^.;]{0,100}?(?:\bcustom(?:ers?)?\b|\bclients?\b|"
    r"\baccounts?\b|\bpatrons?\b|\bsubscribers?\b|\bpurchasers?\b|\bbuyers?\b|\busers?\b|\bbusiness\b|"
    r"\btrade\b|\borders?\b|\bmembers?\b|\bprospects?\b)",
    re.IGNORECASE)
_STAFF = r"employees?|personnel|staff"
_EMPLOYEES = re.compile(rf"\b(?:{_STAFF}|employed)\b", re.IGNORECASE)
_EMPLOYEE_SOLICITATION = re.compile(rf"\b(?:solicit|hire|employ|recruit|entice)\w*\b[^.;]{{0,80}}?\b(?:{_STAFF})\b",
                                    re.IGNORECASE)
_COMPETE = re.compile(r"\bcompet\w*", re.IGNORECASE)
_LAW = re.compile(r"\blaws?\b|\blegislation\b|\bstatutes?\b|\bcode\b|\bregulations\b", re.IGNORECASE)
# An arbitral body's rules: "the rules and regulations of the American Arbitration Association".
_ARBITRATION_RULES = re.compile(r"\brules\s+(?:and|or)\s+regulations\s+of\b", re.IGNORECASE)
_MINIMUM = re.compile(
    r"\bminimum\b|\bminima\b|\bat\s+least\b|\b(?:not|no)\s+less\s+than\b|\bcommit\w*|\bguarantee\w*|\bquota|"
    r"\btarget|\bthreshold|\bshortfall|\btake[\s-]or[\s-]pay|\b(?:shall|will|agrees?\s+to)\s+(?:\w+\s+){0,3}?"
    r"(?:purchase|buy|order|sell|pay|procure)\b", re.IGNORECASE)
_RECORD_KEEPING = re.compile(
    r"\b(?:maintain|keep|retain|preserve)\w*\b[^.;]{0,60}?\brecords?\b[^.;]{0,40}?"
    r"\b(?:for\s+)?(?:a\s+)?(?:minimum|at\s+least|(?:not|no)\s+less\s+than)\b", re.IGNORECASE)
# "There are no third party beneficiaries", "nothing herein shall confer upon any Person other than
# the Parties any rights", "solely for the benefit of the Parties", "X shall not be considered a
# third party beneficiary": the boilerplate that denies any; unless an exception names one
# ("except for the Affiliates ..., which are intended third party beneficiaries", "other than
# Affiliates of a Party", "unless otherwise provided", "is not a party ... but is an intended
# beneficiary").  A mention of a beneficiary denies one when a negation comes before it in its
# clause; a quote that names no beneficiary at all denies one with the "nothing confers" forms.
_BENEFICIARY = re.compile(r"\bbeneficiar", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|nor|neither|never|none|nothing)\b|n't\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[.;:]\s")
_NO_BENEFICIARY = re.compile(
    r"\bnot\s+(?:be\s+)?(?:intended|deemed|construed)\s+(?:to\s+|as\s+)?(?:confer|create|give|grant|provide|make|be)|"
    r"\bnothing\b[^.]{0,200}?\b(?:confer|give|create|grant|provide)|\bsolely\s+for\s+the\s+(?:benefit|parties)|"
    r"\bfor\s+the\s+(?:sole|exclusive)\s+benefit|\bonly\s+for\s+the\s+benefit", re.IGNORECASE)
_BENEFICIARY_NAMED = re.compile(
    r"\bexcept\b|\bunless\b|\bsave\s+(?:as|that|for)\b|\bprovided\s+(?:that|however)\b|"
    r"\bbut\s+(?:is|are|shall|will)\b|\bother\s+than\s+(?!(?:the|a|any)\s+part(?:y|ies)\b|part(?:y|ies)\b)",
    re.IGNORECASE)


# A licence that may not pass to others: its transfer, assignment or sublicensing limited, or the
# right kept personal ("may not permit any third party to use the Marks").
_TRANSFER_LIMITED = re.compile(
    r"\btransfer\w*|\bassign\w*|\bsub-?licen[cs]\w*|\bpersonal\b|\bwithout\s+the\s+right\s+to\b|"
    r"\bmay\s+not\s+be\s+(?:sold|conveyed)|\b(?:permit|allow|grant)\w*\b[^.]{0,40}\bthird\s+part", re.IGNORECASE)
# A licence or right granted, which is what can be irrevocable or perpetual (not a letter of credit
# or a waiver of moral rights).
_LICENSED = re.compile(r"\blicen[cs]\w*|\bgrant\w*|\bright\w*\s+to\s+use\b|\bperpetual\w*", re.IGNORECASE)


def _transfer_limited(text: str) -> str | None:
    return None if _TRANSFER_LIMITED.search(text) else "nothing said of transfer"


def _licence_granted(text: str) -> str | None:
    return None if _LICENSED.search(text) else "no licence granted"


def _benefits_a_third_party(text: str) -> str | None:
    """A clause giving someone outside the contract rights under it, not the boilerplate that
    denies there is any (CUAD counts only the first)."""
    if _BENEFICIARY_NAMED.search(text):
        return None
    mentions = [m.start() for m in _BENEFICIARY.finditer(text)]
    if mentions:
        denied = all(_NEGATION.search(_CLAUSE_BREAK.split(text[max(0, at - 250):at])[-1]) for at in mentions)
    else:
        denied = bool(_NO_BENEFICIARY.search(text))
    return "no third-party beneficiary" if denied else None


_CATEGORY_CHECKS = {
    "Rofr/Rofo/Rofn": _negated,
    "Non-Compete": _competes,
    "No-Solicit Of Customers": _solicits_customers,
    "Governing Law": _law_named,
    "Exclusivity": _exclusive,
    "Change Of Control": _control_changes,
    "Termination For Convenience": _for_convenience,
    "Minimum Commitment": _committed,
    "Ip Ownership Assignment": _retained,
    "Uncapped Liability": _uncapped,
    "Cap On Liability": _capped,
    "Most Favored Nation": _compared,
    "Renewal Term": _renews,
    "Third Party Beneficiary": _benefits_a_third_party,
    "Non-Transferable License": _transfer_limited,
    "Irrevocable Or Perpetual License": _licence_granted,
}

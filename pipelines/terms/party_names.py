"""What a party's legal name is, once the text around it is cut away, and what kind of party it is.

The preamble and the signature blocks hand over a stretch of text that starts with a name and
runs on into what the drafter said about it: "Acme Corp., a Delaware corporation with offices at
1 Main Street", "Jane Roe of 4 Elm Street", "Xencor, Inc. 111 W. Lemon Ave.".  Reports
show the name on its own, so everything after the legal name is cut, and a stretch that is not a
name at all (a sentence, an address, a phone number) is refused rather than shown.
"""
from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

from pipelines.rules.jurisdictions import SPELLINGS, normalise_jurisdiction

# Corporate suffixes, in any case: the legal name ends with the last of a run of them
# ("Co., Ltd.", "Pty Ltd", "S.A. de C.V.").
_SUFFIX = (
    r"(?:Inc|Incorporated|Corp|Corporation|Co|Company|Limited\s+Liability\s+Company|Ltd|Limited|LLC|L\.L\.C|LLP|L\.L\.P|LP|L\.P|"
    r"PLC|P\.L\.C|GmbH|AG|KG|SA|S\.A|S/A|SAS|S\.A\.S|S\.p\.A|SpA|S\.R\.L|SRL|S\.à\s?r\.l|BV|B\.V|"
    r"NV|N\.V|N\.A|AB|A/S|ASA|Oy|Pte|Pty|K\.K|G\.I\.E|S\.L|de\s+C\.V|Sp\.?\s?z\s?o\.?o|LCC|MHC)"
)
_SUFFIX_WORD_RE = re.compile(rf"(?i)^{_SUFFIX}\.?,?$")
_KEPT_FULL_STOP_RE = re.compile(rf"(?i){_SUFFIX}\.$|\b[A-Z]\.$")
# A run of suffixes ending the legal name, and where it ends.
# A suffix may be bracketed: "CRO Consulting (Pty) Limited".
_SUFFIX_RUN_RE = re.compile(rf"(?i)(?<![\w&])(?:(?:{_SUFFIX}\.?|\({_SUFFIX}\.?\))(?:,?\s+(?:&\s+(?={_SUFFIX}\b))?|(?=[\s,;)]|$)))+")
# Words that make a name an organisation even without a suffix.
_ORG_WORD_RE = re.compile(
    r"(?i)\b(?:bank|trust|fund|association|university|college|institute|foundation|group|holdings?|"
    r"partners(?:hip)?|government|county|city|authority|agency|council|ministry|department|"
    r"enterprises?|industries|international|technologies|systems|services|solutions|media|"
    r"pharmaceuticals?|capital|ventures|networks?|communications|entertainment|labs?|"
    r"laboratories|studios?|productions|society|club|league|chapter|office|board|commission|"
    r"telecom\w*|financial|insurance|energy|global|software|funds?|technology|micro|press|housing|"
    r"portfolios?|exchange|aktiengesellschaft|solutions?|strategies|online|marketplace|speakers|"
    r"\w+\.com)\b"
)
# What a drafter writes after a name: its description, address, capacity or successors.
_DESCRIPTION_RE = re.compile(
    r",?\s+(?:a|an)\s+(?=[A-Za-z])"  # ", a Delaware corporation", " an individual"
    r"|,\s+(?-i:(?=(?:[A-Z][\w.\-]*\s+){1,4}(?:corporation|company|limited|partnership|bank|entity)\b))"
    r"|,\s+the\s+(?-i:(?=[a-z]))"  # ", the organisation within ...", ", the sole general partner"
    r"|,?\s+(?:with|having|whose|located|organi[sz]ed|incorporated|formed|existing|doing\s+business|"
    r"acting|residing|on\s+behalf|which|its|through|together\s+with|represented|in\s+(?:his|her|its)\s|"
    r"individual(?:ly)?|an?\s+individual|and\s+its\s+(?:subsidiaries|affiliates)|and/or|c/o|care\s+of|"
    r"hereinafter|hereafter|herein|registered|domiciled|at\s+\d|address|tel\b|telephone|fax|"
    r"e-?mail|phone)\b"
    r"|\s+of\s+(?=\d|\[|the\s+other\s+part|one\s+part)"  # "Celebrity Speakers of 90 High Street"
    r"|\s*\n\s*\n|\s{3,}|\s*[;:]\s|,\s*(?=\d)|\s+(?=\d{3,}\b[^\n]*\b(?:Street|St\.|Avenue|Ave|Road|Suite)\b)"
    # "Dialog Semiconductor (UK) Ltd." and "China Online Housing (Hong Kong) Co., Ltd." stay whole
    r"|\s*\((?!(?-i:[A-Z][\w.]*(?:\s+[A-Z][\w.]*){0,2}\)\s*[A-Z]))",
    re.IGNORECASE,
)
_OF_JURISDICTION_RE = re.compile(r"\s+of\s+((?:the\s+)?[A-Z][\w.]*(?:\s+[A-Z][\w.]*){0,2})")
# What precedes a name in a list: separators (U+037E is a semicolon), numbering, "and", "the".
_LEAD_RE = re.compile(
    r"^(?:[\s,;\u037e:.\-–—●•·▪*]|\b(?i:and|&|or|between|among(?:st)?|by)\b|\(?(?:\d{1,2}|[a-hA-H]|[ivxIVX]{1,4})[.)]\s"
    r"|the\s+(?=[A-Z])|THE\s+(?=[A-Z]{2})|(?:Mr|Mrs|Ms|Dr)\.?\s+(?=[A-Z])|(?:MR|MRS|MS|DR)\.\s+(?=[A-Z]))+"
)
# A date's year left before a name: "2015 Tribute Pharmaceuticals Canada Inc." (not "WPP 2005 Limited").
_LEADING_YEAR_RE = re.compile(r"^(?:19|20)\d\d\s+(?=[A-Z][\w.&\-]*\s+[A-Z])")
_TRAILING_CONNECTOR_RE = re.compile(r"(?i)(?:[\s,]+(?:of|and|for|the|&|or|at|in|by|on|behalf))+[\s,]*$")
_US_STATE_CODES = frozenset({
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
    "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
    "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
})
# A postcode or zip code: what is left of an address after its street is cut off.
_POSTCODE_RE = re.compile(
    r"\b\d{5}(?:-\d{4})?\b"  # a US zip code
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"  # a UK postcode
    r"|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b"  # a Canadian postal code
    r"|^[A-Z]{2}\s+\d|\bX{4,}"  # "NV 89706"; a template's "XXXXXX"
)
_CITY_STATE_RE = re.compile(r",\s*[A-Z]{2}$")
_PLACE_WORDS_RE = re.compile(r"(?i)\b(?:the|state|commonwealth|province|republic|of)\b")
# A name left blank or redacted: "[ * * * ]", "[•]" (a template's bullet), "________".
_PLACEHOLDER_RE = re.compile(r"^[\[\]_*•●.\s]+$")
# The leaders of a table of contents' line: "Services ........ 4", "Customer Obligations…… 5".
CONTENTS_LEADER = r"\.{4,}|…|(?:\.\s){3,}"
_LEADER_RE = re.compile(CONTENTS_LEADER)
# Lower-case words a legal name may hold; any other lower-case word means a sentence.
_NAME_CONNECTORS = {
    "of", "and", "the", "for", "de", "del", "des", "du", "la", "le", "los", "las", "van", "von", "der",
    "den", "y", "e", "et", "und", "&", "d/b/a", "dba", "t/a", "on", "in", "at", "à", "r.l", "zo.0", "z",
    "o.o.", "s.a.", "da", "do", "dos", "das",
}
# Words that describe a kind of entity: "Joint Venture Company" is a description, not a name.
_GENERIC_WORDS = {"joint", "venture", "liability", "new", "investment", "manager", "partnership", "entity"}
_LEADING_NON_NAME = {"of", "and", "for", "or", "in", "on", "by", "to", "with", "from"}
# Brands written in lower case: "eBay", "drkoop.com", "iVillage", "e-centives".
_BRAND_WORD_RE = re.compile(r"^(?:[a-z]{1,4}[A-Z][\w\-]*|[a-z][\w\-]*\.(?:com|net|org)\b.*|i[A-Z]\w*|[a-z]{1,2}-[a-z]{3,}\w*)")
_NOT_A_NAME_RE = re.compile(
    r"(?i)\b(?:agreement|appendix|annex|hereto|hereunder|herein|hereof|party|parties|page|schedule|exhibit|"
    r"whereas|witnesseth|effective|dated?|between|undersigned|address|telephone|facsimile|e-?mail|"
    r"attention|attn|strasse|straße|boulevard|blvd|"
    r"suite|floor|p\.?\s?o\.?\s+box|zip|name|title|by|tel|fax|phone|dear|officer|president|"
    r"ladies|gentlemen|sirs|madam|whom\s+it\s+may\s+concern|"  # a letter's salutation
    r"director|secretary|witness|attest|signed|identified|redacted|omitted|"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+\d+)\b(?!-)|"
    r"[\w.+\-]+@[\w\-]+\.[a-z]|https?:|www\.|\w['’]s$|"  # an e-mail address, not "Excite@Home, Inc."
    r"\d{3}[\s.\-)]+\d{3,4}[\s.\-]+\d{3,4}"  # a phone number
)
# Words of a signature page or an address that a company's name may also hold ("Signature
# Orthopaedics Pty Ltd", "Tower Semiconductor Ltd."): a name only when it ends with its suffix.
# A street in an address ("100 Main Street", "Fleet Street, London"), as opposed to a name that
# holds one ("Main Street Capital Corp.", "Maple Street Bakery"): a number, or nothing after it.
_STREET_RE = re.compile(r"(?i)\b(?:street|road|avenue)\b(?!-)(?P<after>[^,;]*)")
_ADDRESS_OR_PAGE_WORD_RE = re.compile(r"(?i)\b(?:signature|drive|lane|district|building|tower|plaza)\b(?!-)")
# A municipality is named by its place: "Town of Vinton, Virginia", "City and County of Denver".
_MUNICIPALITY_RE = re.compile(
    r"(?i)^(?:the\s+)?(?:town|city|county|village|borough|township|municipality|parish)\s+(?:and\s+county\s+)?of\s+[A-Z]")
_PERSONAL_MARKER_RE = re.compile(r"^(?:Mr|Mrs|Ms|Dr)\.?\s|\s[A-Z]\.\s")
_PERSON_RE = re.compile(
    r"^(?:(?:Mr|Mrs|Ms|Dr)\.?\s+)?[A-Z][a-zA-Z'’\-]+(?:\s+(?:[A-Z]\.|[A-Z][a-zA-Z'’\-]+)){1,3}"
    r"(?:,?\s+(?:Jr|Sr|III|II|IV)\.?)?$"
)


def clean_name(raw: str) -> str | None:
    """The legal name at the head of `raw`, or None when `raw` does not start with one."""
    text = " ".join(raw.split())
    lead = _LEAD_RE.match(text)
    text = text[lead.end():] if lead else text
    cut = _DESCRIPTION_RE.search(text)
    name = _end_at_suffix(text[:cut.start()] if cut else text)
    name = _after_address(_LEADING_YEAR_RE.sub("", name))
    name = _TRAILING_CONNECTOR_RE.sub("", name).strip(" ,;:-–—\"“”'‘’")
    if name.endswith(".") and not _KEPT_FULL_STOP_RE.search(name):
        name = name[:-1]  # a sentence's full stop, not "Inc." or an initial
    return name if is_name(name) else None


def _after_address(name: str) -> str:
    """The name after an address run into it: "Aizu Wakamatsu, Fukushima, Japan, Fujitsu Ltd"."""
    parts = name.split(", ")
    places = [i for i, part in enumerate(parts[:-1]) if i and _names_a_place(part)]
    return ", ".join(parts[places[-1] + 1:]) if places else name


def _end_at_suffix(text: str) -> str:
    """The name up to its corporate suffix run, keeping a trade name and 'of <State>'.

    What follows a suffix is an address or description ("Xencor, Inc. 111 W. Lemon Ave."),
    except a "d/b/a" trade name, a chartering jurisdiction ("Alliance Bancorp, Inc. of
    Pennsylvania") and a closing roman numeral, which belong to the name.
    """
    run = next((m for m in _SUFFIX_RUN_RE.finditer(text) if m.start() > 0), None)
    if run is None or run.end() >= len(text):
        return text
    name, rest = text[:run.end()].rstrip(" ,"), text[run.end():].lstrip(" ,")
    if (numeral := _CLOSING_NUMERAL_RE.fullmatch(rest)) is not None:
        return f"{name} {numeral.group(1)}"  # "... Lux S.à r.l. II", a sister of "... Lux S.à r.l."
    trade = _TRADE_NAME_RE.match(rest)
    if trade:
        return f"{name} {trade.group().strip()}"
    chartered = _OF_JURISDICTION_RE.match(" " + rest)
    if chartered and normalise_jurisdiction(chartered.group(1)):
        return f"{name} {chartered.group().strip()}"
    return name


# A roman numeral alone after the suffix run, the whole rest of the name.
_CLOSING_NUMERAL_RE = re.compile(r"(?i)\s*([IVX]{1,5})\.?\s*")
# "d/b/a", "doing business as", "trading as": a trade name follows.
TRADE_NAME_MARK = r"(?:d/b/a|dba|doing\s+business\s+as|t/a|trading\s+as)"
# A trade name: "d/b/a Time Life Music".
_TRADE_NAME_RE = re.compile(rf"(?i)\b{TRADE_NAME_MARK}\s+([^,;()\n]{{2,60}})")


def trade_name_in(description: str) -> str | None:
    """The name a party trades under, when its description gives one ("a Delaware corporation
    d/b/a Time Life Music"): reports show it with the legal name, as the contract does."""
    m = _TRADE_NAME_RE.search(description)
    return clean_name(m.group(1)) if m else None


def is_name(name: str) -> bool:
    """Whether `name` reads as a legal name: short, capitalised, no sentence or contact detail."""
    words = name.split()
    if not words or len(words) > 12 or len(name) > 120:
        return False
    if _PLACEHOLDER_RE.match(name):
        return "[" in name  # a redacted name; a blank line ("______") names no one
    if _NOT_A_NAME_RE.search(name) or _POSTCODE_RE.search(name) or name.count("(") != name.count(")") or \
            _LEADER_RE.search(name):
        return False
    street = _STREET_RE.search(name)
    if street and (any(c.isdigit() for c in name) or not street.group("after").strip() or "," in name[street.start():]):
        return False
    if _ADDRESS_OR_PAGE_WORD_RE.search(name) and not (_ends_with_suffix(name) and not any(c.isdigit() for c in name)):
        return False
    if _MUNICIPALITY_RE.match(name):
        return all(_is_name_word(w) for w in words)
    if (len(words) == 1 and len(name) <= 3) or sum(len(w) == 1 and w.isalpha() for w in words) >= 3:
        return False  # a state code, a stray short name ("FL", "SIC"), a spaced heading ("R E C I T")
    if words[0].lower() in _LEADING_NON_NAME or _SUFFIX_WORD_RE.match(words[0]):
        return False  # "Inc. and Beta Inc.", "OF REGULATION S-K": a name's tail or a sentence's
    if words[-1] in _US_STATE_CODES and name.endswith(f", {words[-1]}"):
        return False  # "Carson City, NV", though "NV" is a Dutch suffix too
    if (_CITY_STATE_RE.search(name) and not has_corporate_suffix(name)) or _is_place(name.split(" in ")[0]) or (
            "," in name and not has_corporate_suffix(name) and _names_a_place(name.rsplit(",", 1)[1])):
        return False  # what is left of an address: "Carson City, NV", "Germany"
    if all(_SUFFIX_WORD_RE.match(w) or w.lower() in _NAME_CONNECTORS or w.lower().strip(",.;:") in ROLE_WORDS
           or w.lower() in _GENERIC_WORDS for w in words) or not any(c.isalpha() for c in name):
        return False  # "Inc.", "AND", "Company and the Bank": no name left
    if not (words[0][0].isupper() or words[0][0].isdigit() or _BRAND_WORD_RE.match(words[0])):
        return False
    return all(_is_name_word(w) for w in words)


def _ends_with_suffix(name: str) -> bool:
    words = name.split()
    return len(words) > 1 and bool(_SUFFIX_WORD_RE.match(words[-1]))


def _is_place(name: str) -> bool:
    """'Germany', "People's Republic of China", 'State of Delaware', 'Florida Corporation'."""
    bare = " ".join(w for w in name.split() if not _SUFFIX_WORD_RE.match(w)).strip(" ,.").lower()
    return bare in SPELLINGS or " ".join(_PLACE_WORDS_RE.sub(" ", bare).split()) in SPELLINGS


def _names_a_place(part: str) -> bool:
    """'Florida', "the People's Republic of China": a short stretch naming a jurisdiction."""
    return len(part.split()) <= 5 and normalise_jurisdiction(part) is not None


def _is_name_word(word: str) -> bool:
    bare = word.strip(",.()\"“”'’")
    return (
        not bare
        or not bare[0].isalpha()
        or bare[0].isupper()
        or bare.lower() in _NAME_CONNECTORS
        or (bool(_SUFFIX_WORD_RE.match(bare)) and len(bare) <= 4)  # "inc.", not "company"
        or bool(_BRAND_WORD_RE.match(bare))
    )


def has_corporate_suffix(name: str) -> bool:
    """Whether a word after the first is a corporate suffix (a first word is part of the name:
    "Company Store LLC")."""
    return any(_SUFFIX_WORD_RE.match(w) for w in name.split()[1:])


def is_corporate_suffix(word: str) -> bool:
    """Whether `word` is a corporate suffix alone ("LLC", "Ltd."): a name's form, not a name."""
    return bool(_SUFFIX_WORD_RE.match(word.strip()))


def is_organisation(name: str) -> bool:
    """Whether the name carries a corporate suffix or an organisation word ("Bank", "Trust")."""
    return has_corporate_suffix(name) or bool(_ORG_WORD_RE.search(name))


def looks_like_person(name: str) -> bool:
    """Two to four capitalised words with nothing corporate about them ("Jane Q. Marlow").

    Many companies look the same ("Apollo Endosurgery"), so this is a shape, not a verdict:
    the reader asks for more (an initial, a title, "an individual", a role only people play).
    """
    return (not is_organisation(name) and not name.lower().startswith("the ")
            and bool(_PERSON_RE.match(name.title() if name.isupper() else name)))


def has_personal_marker(name: str) -> bool:
    """A title or a middle initial: "Mr. Zheng Qing", "Gregory P. Spivy"."""
    return bool(_PERSONAL_MARKER_RE.search(name))


_NUMERAL_RE = re.compile(r"^(?:[ivx]{1,5}|\d{1,3})$")
_SUFFIX_LETTERS = frozenset("lcspa")  # the dotted letters of "L.L.C.", "L.P.", "S.A.", "P.C."


def name_key(name: str) -> frozenset[str]:
    """The words two spellings of one name share: case, punctuation and suffixes aside.

    A word said twice counts twice ("ii#2"): "Mezzanine Partners II Lux S.à r.l. II" is a sister
    of "Mezzanine Partners II Lux S.à r.l.", though it adds no word the other lacks.  A dotted
    letter is a piece of a suffix ("L.L.C.", "S.A."), but a bare one is part of the name:
    "Clarus IV-A, L.P." and "Clarus IV-C, L.P." are two funds."""
    tokens = re.findall(r"\w+\.?", name.casefold().replace("’", "").replace("'", ""))
    words = [t.rstrip(".") for t in tokens]
    core = [w for w, t in zip(words, tokens)
            if not _SUFFIX_WORD_RE.match(w) and w != "the" and not (t[1:] == "." and w in _SUFFIX_LETTERS)]
    repeated = [f"{w}#{n}" for w, n in Counter(core).items() if n > 1]
    return frozenset(core + repeated or words)


def same_party(a: str, b: str) -> bool:
    """Whether two names are spellings of one party ("ACME CORP." and "Acme Corporation").

    A misspelling changes one word ("Bellicum Phamaceuticals"), while an added word makes a
    sister company ("Prairie Non-ECI Acquiror LP" beside "Prairie ECI Acquiror LP").
    "Adaptimmune LLC" and "Adaptimmune Limited" share every word but are two companies, so
    names whose suffixes say different forms are different parties.
    """
    ka, kb = name_key(a), name_key(b)
    if not (ka and kb) or not (ka == kb or _misspelt(ka, kb)):
        return False
    form_a, form_b = _legal_form(a), _legal_form(b)
    return form_a is None or form_b is None or form_a == form_b


def _misspelt(ka: frozenset[str], kb: frozenset[str]) -> bool:
    """One word spelt two ways ("Phamaceuticals"), not two words ("Sciences", "Nutraceuticals")."""
    only_a, only_b = ka - kb, kb - ka
    if len(ka) != len(kb) or len(ka) < 2 or len(only_a) != 1 or len(only_b) != 1:
        return False
    if any("#" in w or _NUMERAL_RE.match(w) for w in only_a | only_b):
        return False  # "Fund II" and "Fund III" are two funds, not one misspelt
    return SequenceMatcher(None, next(iter(only_a)), next(iter(only_b))).ratio() >= 0.85


# Spellings of one legal form, so "Corp." and "Corporation" agree.
_FORMS = {"incorporated": "inc", "corporation": "corp", "limited": "ltd", "l.l.c": "llc", "company": "co",
          "l.p": "lp", "p.l.c": "plc", "s.a": "sa", "b.v": "bv", "n.v": "nv"}


def _legal_form(name: str) -> str | None:
    suffixes = [w.strip(",.").lower() for w in name.split()[1:] if _SUFFIX_WORD_RE.match(w)]
    return _FORMS.get(suffixes[-1], suffixes[-1]) if suffixes else None


# --- what the description says -------------------------------------------------------------

ROLE_WORDS = frozenset(
    w.lower() for w in (
        "Licensor", "Licensee", "Sublicensee", "Supplier", "Distributor", "Company", "Employee",
        "Employer", "Executive", "Consultant", "Contractor", "Subcontractor", "Disclosing Party",
        "Discloser", "Receiving Party", "Recipient", "Buyer", "Seller", "Purchaser", "Vendor",
        "Customer", "Client", "Provider", "Service Provider", "Manufacturer", "Reseller", "Agent",
        "Franchisor", "Franchisee", "Developer", "Publisher", "Lender", "Borrower", "Landlord",
        "Tenant", "Lessor", "Lessee", "Owner", "Operator", "Manager", "Partner", "Investor",
        "Sponsor", "Endorser", "Talent", "Celebrity", "Affiliate", "Marketing Affiliate", "Host",
        "Shipper", "Carrier", "Transporter", "Producer", "Guarantor", "Member", "Adviser",
        "Advisor", "Sub-Advisor", "Underwriter", "Servicer", "Issuer", "Depositor", "Trustee",
        "Party A", "Party B", "Party C", "Party D", "Principal", "Athlete",
        "Professional", "Corporation", "Bank", "Trust", "Association", "Holding Company",
    )
)
# The article before a role or a name: "the Licensee", "a Delaware corporation".
ARTICLE_RE = re.compile(r"(?i)^(?:the|a|an)\s+")


def role_of(short_names: list[str]) -> str | None:
    """The first short name that names the part the party plays ("Licensee", "Recipient")."""
    for short in short_names:
        bare = ARTICLE_RE.sub("", short).strip(" ,.")
        if bare.lower() in ROLE_WORDS:
            return bare[0].upper() + bare[1:] if not bare.isupper() else bare.title()
    return None


# "a Delaware corporation", "a Cayman Islands exempted company", "a corporation organized under
# the laws of the State of New York", "a company incorporated in England and Wales".
_JURISDICTION_RES = (
    re.compile(
        r"\b(?:organi[sz]ed|incorporated|existing|formed|registered|established|constituted)\s+"
        r"(?:and\s+existing\s+)?(?:under\s+the\s+laws?\s+of|in|under)\s+(?P<place>[A-Z(][^,;()\n]{2,60})",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:a|an)\s+(?P<place>(?:[A-Z][\w.]*\s+){1,4})(?:exempted\s+)?(?:general\s+|limited\s+)?"
        r"(?:corporation|company|limited|partnership|association|banking|bank|société|"
        r"public|private|statutory|trust|entity|national|state|chartered|stock|nonprofit|"
        r"not-for-profit|non-profit)",
    ),
)


def jurisdiction_in(description: str) -> str | None:
    """The jurisdiction the description says the party is organised under, normalised."""
    for pattern in _JURISDICTION_RES:
        m = pattern.search(description)
        if m:
            found = normalise_jurisdiction(m.group("place"))
            if found:
                return found
    return None

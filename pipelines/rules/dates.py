"""Finding and normalising the dates and durations contracts are written with.

Contracts spell dates many ways ("March 3, 2021", "the 3rd day of March, 2021", "03/03/2021",
templates such as "____ day of May, 2000") and durations as "five (5) years".  Key terms need
both as values (ISO dates, computed expiry dates), so the parsing lives here, apart from the
logic that decides which date is which.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

from dateutil.relativedelta import relativedelta

MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
_MONTH = (
    r"(?:jan(?:uary|\.)?|feb(?:ruary|\.)?|mar(?:ch|\.)?|apr(?:il|\.)?|may|june?|july?|"
    r"aug(?:ust|\.)?|sep(?:t(?:ember|\.)?|\.)?|oct(?:ober|\.)?|nov(?:ember|\.)?|dec(?:ember|\.)?)"
)
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}
_ORDINAL = (
    r"(?:(?:twenty|thirty)[\s-](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|"
    + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True)) + ")"
)
# "3rd", also as text layers split it ("16t h", "1s t"), bracketed ("(1st)"), or spelt ("first").
_DAY = rf"(?:\(?[0-3]?\d(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h))?\)?|{_ORDINAL})"
# A blank left in a template ("____", "[•]", "[ ]") instead of the day.
_BLANK = r"(?:_{2,}|\[[^\]\n]{0,6}\])"
# A weekday a drafter put between "day of" and the month: "this 20th day of Friday, March 2020".
_WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)"
_YEAR = r"(?:19|20)\d{2}"

DATE_RE = re.compile(
    "|".join(
        [
            # March 3, 2021 / March 3rd 2021 / March ___, 2021 / June , 2010 / April. 1st 2019
            rf"(?P<m1>{_MONTH})\.?\s+(?:(?P<d1>{_DAY})|{_BLANK}|(?=,))\s*,?\s*(?P<y1>{_YEAR})",
            # 3rd day of March, 2021 / 3 March 2021 / ____ day of March, 2021 / the 1st of March, 2003
            # ("of" without "day" only after an ordinal: "5 of March" is more often a count)
            rf"(?:(?P<d2>{_DAY})|{_BLANK})(?:\s*day\s+of\s+{_WEEKDAY}?|(?<=[a-z])\s+of\s+|\s*)(?P<m2>{_MONTH})\s*,?\s*"
            rf"(?:A\.?D\.?\s+|in\s+the\s+year\s+)?(?P<y2>{_YEAR})",
            # ____ day of ________, 2021 / day of , 2021 (a template with day and month left blank;
            # "day of , 19" where the text layer dropped the underscores of "19__")
            rf"(?:{_BLANK}\s*)?day\s+of\s*(?:{_BLANK}|(?=\s*,))\s*,?\s*(?P<y5>{_YEAR}|(?:19|20)(?:_+|(?!\d)))",
            # 2021-03-03
            rf"(?P<y3>{_YEAR})-(?P<m3>[01]?\d)-(?P<d3>[0-3]?\d)",
            # 1.4.2011: dotted dates are day first, as contracts outside the US write them
            rf"(?P<a6>[0-3]?\d)\.(?P<b6>[01]?\d)\.(?P<y6>{_YEAR})",
            # 03/03/2021, 3/3/21 or 3-31-16 (month first, as US contracts write them)
            r"(?P<a4>[0-3]?\d)(?P<sep>[/-])(?P<b4>[0-3]?\d)(?P=sep)(?P<y4>(?:19|20)?\d{2})",
        ]
    ),
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateMention:
    """A date written in a text: where it is and what it means.

    `iso` is yyyy-mm-dd, or yyyy-mm / yyyy when a template left the day / month blank, or None
    when the text is not a valid calendar date.
    """

    start: int
    end: int
    text: str
    iso: str | None


def _month_number(name: str) -> int:
    return MONTHS[name.lower()[:3]]


def _day_number(day: str) -> int:
    digits = re.search(r"\d+", day)
    if digits:
        return int(digits.group())
    words = re.split(r"[\s-]+", day.lower())
    tens = {"twenty": 20, "thirty": 30}
    return sum(tens.get(w, _ORDINAL_WORDS.get(w, 0)) for w in words)


def _year_number(year: str) -> int:
    value = int(year)
    if len(year) == 2:
        value += 2000 if value < 50 else 1900
    return value


def _iso(year: int, month: int, day: int | None) -> str | None:
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _mention_iso(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    if g["m1"]:
        return _iso(int(g["y1"]), _month_number(g["m1"]), _day_number(g["d1"]) if g["d1"] else None)
    if g["m2"]:
        return _iso(int(g["y2"]), _month_number(g["m2"]), _day_number(g["d2"]) if g["d2"] else None)
    if g["y3"]:
        return _iso(int(g["y3"]), int(g["m3"]), int(g["d3"]))
    if g["y5"]:
        return g["y5"] if g["y5"].isdigit() and len(g["y5"]) == 4 else None
    if g["y6"]:
        day, month = int(g["a6"]), int(g["b6"])
        if month > 12 >= day:  # 4.13.2011 can only be month first
            day, month = month, day
        return _iso(int(g["y6"]), month, day)
    first, second, year = int(g["a4"]), int(g["b4"]), _year_number(g["y4"])
    if first > 12 >= second:  # 29/3/18 can only be day first
        first, second = second, first
    return _iso(year, first, second)


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMention]:
    """Every date written in text[start:end], in order, with offsets into `text`."""
    mentions = []
    for m in DATE_RE.finditer(text, start, len(text) if end is None else end):
        # "3 March 2021" inside "13 March 2021" or "2021-03-03" inside a longer number: skip;
        # also "1.4.2011" inside a section number "3.1.4.2011".
        if m.start() > 0 and (text[m.start() - 1].isalnum() or (m.group("y6") and text[m.start() - 1] == ".")):
            continue
        if m.end() < len(text) and text[m.end()].isdigit():
            continue
        mentions.append(DateMention(m.start(), m.end(), m.group(), _mention_iso(m)))
    return mentions


YEAR_LOOKBACK_CHARS = 80  # the longest written date ends this far after it starts


def find_dates_of_year(text: str, year: int) -> list[DateMention]:
    """Every date `find_dates` reads in `text` whose year is `year`, found by trying the pattern
    only around that year's digits ("2021", or "/21" and "-21"): scanning a whole long contract
    with DATE_RE is slow, and every date ends with (or, as 2021-03-03, starts with) its year."""
    windows: list[tuple[int, int]] = []
    for m in re.finditer(rf"(?<!\d){year:04d}(?!\d)|(?<=[/-]){year % 100:02d}(?!\d)", text):
        lo, hi = max(0, m.start() - YEAR_LOOKBACK_CHARS), min(len(text), m.end() + 8)
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
    found = [d for lo, hi in windows for d in find_dates(text, lo, hi)]
    return [d for d in found if d.iso and d.iso[:4] == f"{year:04d}"]


_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "and"], key=len, reverse=True))
_WORDS = rf"(?:(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*)"

DURATION_RE = re.compile(
    # "one (I) year": a text layer's I or l for the digit one in the parenthesis; "5 (five) years";
    # "a two-year period", "a 12-month term"
    rf"\b(?:(?P<words>{_WORDS})(?:\s*|-)(?:\(\s*(?:(?P<paren>\d+)|[Il])\s*\)(?:\s*|-))?|(?P<digits>\d+)(?:\s*|-)(?:\(\s*{_WORDS}\s*\)\s*)?)"
    r"(?:calendar\s+|full\s+|consecutive\s+|business\s+|contract\s+)?"
    r"(?P<unit>years?|months?|weeks?|days?)\b",
    re.IGNORECASE,
)


def words_to_number(words: str) -> int | None:
    """'twenty-four' -> 24, 'one hundred twenty' -> 120; None if not a number."""
    total = 0
    current = 0
    seen = False
    for word in re.split(r"[\s-]+", words.lower().strip()):
        if word == "and" or not word:
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            return None
        seen = True
    total += current
    return total if seen else None


@dataclass(frozen=True)
class Duration:
    """A length of time written in a text ("five (5) years")."""

    start: int
    end: int
    amount: int
    unit: str  # "years", "months", "weeks" or "days"

    def describe(self) -> str:
        """The normalised value CUAD answers use: '5 years', '1 month'."""
        unit = self.unit[:-1] if self.amount == 1 else self.unit
        return f"{self.amount} {unit}"


def find_durations(text: str, start: int = 0, end: int | None = None) -> list[Duration]:
    """Every duration written in text[start:end], in order."""
    found = []
    for m in DURATION_RE.finditer(text, start, len(text) if end is None else end):
        if m.group("paren"):
            amount: int | None = int(m.group("paren"))
        elif m.group("digits"):
            amount = int(m.group("digits"))
        else:
            amount = words_to_number(m.group("words"))
        if not amount:
            continue
        unit = m.group("unit").lower()
        found.append(Duration(m.start(), m.end(), amount, unit if unit.endswith("s") else unit + "s"))
    return found


def add_duration(iso: str, amount: int, unit: str) -> str:
    """The ISO date `amount` `unit`s after `iso`, as CUAD counts terms (same calendar day)."""
    start = date.fromisoformat(iso)
    step = {
        "years": relativedelta(years=amount),
        "months": relativedelta(months=amount),
        "weeks": relativedelta(weeks=amount),
        "days": relativedelta(days=amount),
    }[unit]
    return (start + step).isoformat()


# --- dates written loosely or in words ------------------------------------------------------

# "two thousand and five", "nineteen hundred and ninety-eight", "nineteen ninety-eight".
_YEAR_WORDS = (
    rf"(?:two\s+thousand(?:\s+and)?(?:[\s-]+{_WORDS})?|nineteen[\s-]+hundred(?:\s+and)?[\s-]+{_WORDS}|"
    rf"nineteen[\s-]+(?:{'|'.join(_TENS)})(?:[\s-]+(?:{'|'.join(k for k in _UNITS if _UNITS[k] < 10)}))?)"
)
WORD_DATE_RE = re.compile(
    # the first day of March, two thousand and five / 1st day of March in the year two thousand five
    rf"(?P<day>{_DAY})\s+day\s+of\s+(?P<month>{_MONTH})\s*,?\s*(?:in\s+the\s+year\s+(?:of\s+our\s+lord\s+)?)?"
    rf"(?P<year>{_YEAR_WORDS})\b",
    re.IGNORECASE,
)
# Punctuation a typist or a text layer put inside a date: "16 day of August. 2012",
# "04th, August, 2019", "31 December,\n ----- \n1996" (underlining drawn with hyphens).
_GAP = r"(?:[\s,.]++|-{3,}+){0,6}+"  # possessive: runs of hyphens must not backtrack
LOOSE_DATE_RE = re.compile(
    rf"(?P<day>\(?[0-3]?\d(?:\s?(?:st|nd|rd|th))?\)?|{_ORDINAL}){_GAP}(?:(?:day\s+)?of{_GAP})?"
    rf"(?P<month>{_MONTH}){_GAP}(?P<year>{_YEAR})"
    rf"|(?P<month2>{_MONTH})\s+(?P<day2>[0-3]?\d(?:st|nd|rd|th)?){_GAP}(?P<year2>{_YEAR})",
    re.IGNORECASE,
)


# "the last day of February, 2023", "the last day in June 2010": the month's last calendar day.
LAST_DAY_OF_MONTH_RE = re.compile(
    rf"\b(?:the\s+)?last\s+(?:calendar\s+)?day\s+(?:of|in)\s+(?:the\s+month\s+of\s+)?(?P<month>{_MONTH})\.?\s*,?\s*(?P<year>{_YEAR})\b",
    re.IGNORECASE,
)


def year_from_words(words: str) -> int | None:
    """'two thousand and five' -> 2005, 'nineteen ninety-eight' -> 1998; None if not a year."""
    words = words.lower()
    m = re.match(r"(two\s+thousand|nineteen[\s-]+hundred|nineteen)(?:\s+and)?[\s-]*(.*)$", words)
    if not m:
        return None
    base = 2000 if m.group(1).startswith("two") else 1900
    rest = m.group(2).strip()
    if not rest:
        return base if base == 2000 else None
    number = words_to_number(rest)
    return base + number if number is not None and number < 100 else None


def _loose_mention(text: str, m: re.Match[str]) -> DateMention | None:
    g = m.groupdict()
    if g["month"]:
        day, month, year = _day_number(g["day"]), _month_number(g["month"]), int(g["year"])
    else:
        day, month, year = _day_number(g["day2"]), _month_number(g["month2"]), int(g["year2"])
    iso = _iso(year, month, day)
    return DateMention(m.start(), m.end(), m.group(), iso) if iso else None


def find_written_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMention]:
    """Every date in text[start:end] as `find_dates` reads them, plus those written in words
    ("the first day of March, two thousand and five", "the last day of February, 2023") or with
    stray punctuation ("as of1 August 2019", "16 day of August. 2012"), which contracts and their
    text layers also produce."""
    end = len(text) if end is None else end
    found = find_dates(text, start, end)
    for window_start, window_end in _month_windows(text, start, end):
        for m in WORD_DATE_RE.finditer(text, window_start, window_end):
            year = year_from_words(m.group("year"))
            iso = _iso(year, _month_number(m.group("month")), _day_number(m.group("day"))) if year else None
            if iso:
                found.append(DateMention(m.start(), m.end(), m.group(), iso))
        for m in LAST_DAY_OF_MONTH_RE.finditer(text, window_start, window_end):
            year, month = int(m.group("year")), _month_number(m.group("month"))
            day = calendar.monthrange(year, month)[1]
            found.append(DateMention(m.start(), m.end(), m.group(), _iso(year, month, day)))
        for m in LOOSE_DATE_RE.finditer(text, window_start, window_end):
            if m.start() > 0 and text[m.start() - 1].isdigit():
                continue
            mention = _loose_mention(text, m)
            if mention:
                found.append(mention)
    return _without_overlaps(found)


_MONTH_NAME_RE = re.compile(rf"\b{_MONTH}(?![a-z])", re.IGNORECASE)
MONTH_WINDOW_CHARS = 120  # a written date reaches this far around its month's name


def _month_windows(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Stretches of text[start:end] around month names, merged: the word and loose date patterns
    are slow to try at every position of a long document, and every such date names its month."""
    windows: list[tuple[int, int]] = []
    for m in _MONTH_NAME_RE.finditer(text, start, end):
        lo, hi = max(start, m.start() - MONTH_WINDOW_CHARS), min(end, m.end() + MONTH_WINDOW_CHARS)
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
    return windows


def _without_overlaps(mentions: list[DateMention]) -> list[DateMention]:
    """Mentions in order, keeping the longest of any that overlap."""
    kept: list[DateMention] = []
    for mention in sorted(mentions, key=lambda d: (d.start, -(d.end - d.start))):
        if kept and mention.start < kept[-1].end:
            if mention.end - mention.start > kept[-1].end - kept[-1].start and mention.iso:
                kept[-1] = mention
            continue
        kept.append(mention)
    return kept


# "made this 30th day of April (the "Effective Date")": a day and month, the year left out.
YEARLESS_DATE_RE = re.compile(
    rf"(?P<day>{_DAY})\s+day\s+of\s+(?P<month>{_MONTH})(?![a-z])(?!\s*,?\s*(?:A\.?D\.?\s+|in\s+the\s+year\s+)?(?:19|20)\d)",
    re.IGNORECASE,
)


def find_yearless_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMention]:
    """Days of a month written without a year ("the 1st day of December"), as mentions with no
    value: a contract that leaves out its year still dates itself there, so the span is a
    candidate, but no calendar date can be read from it."""
    return [DateMention(m.start(), m.end(), m.group(), None)
            for m in YEARLESS_DATE_RE.finditer(text, start, len(text) if end is None else end)
            if not (m.start() > 0 and text[m.start() - 1].isalnum())]

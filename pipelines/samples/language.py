"""The wording synthetic contracts are written in, all of it original to this project.

Clause language is data, kept apart from the code that assembles contracts so that adding a
phrasing never touches the assembly logic.  Templates are `str.format` strings over a
contract's context (see `contracts._context`): `{A}` and `{B}` are the parties' defined
names (the provider side and the customer side), `{A_caps}` and the like are the same values
in capitals for conspicuous text, and the remaining keys are the contract's terms written out
("ninety (90) days", "$2,000,000").

Each clause phrasing is one or two sentences that together are the clause a reviewer would
mark for its CUAD category; nothing unrelated shares a phrasing, so a phrasing's whole text is
the expected span.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

# --- Numbers and dates as contracts write them ------------------------------------------

_NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 12: "twelve", 15: "fifteen", 18: "eighteen", 20: "twenty",
    24: "twenty-four", 25: "twenty-five", 30: "thirty", 36: "thirty-six", 45: "forty-five",
    60: "sixty", 90: "ninety", 120: "one hundred twenty", 180: "one hundred eighty",
}
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def counted(n: int, unit: str) -> str:
    """'ninety (90) days': the belt-and-braces style contracts use so figures can't be misread."""
    return f"{_NUMBER_WORDS[n]} ({n}) {unit if n == 1 else unit + 's'}"


def percent(n: int) -> str:
    return f"{_NUMBER_WORDS[n]} percent ({n}%)"


def dollars(amount: int) -> str:
    return f"${amount:,}"


def long_date(day: date) -> str:
    """'March 3, 2021'."""
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def formal_date(day: date) -> str:
    """'the 3rd day of March, 2021', the older style key-term parsers must also read."""
    suffix = "th" if 10 <= day.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return f"the {day.day}{suffix} day of {_MONTHS[day.month - 1]}, {day.year}"


# --- Who and where ----------------------------------------------------------------------

NAME_STEMS = (
    "Northwind", "Bluefin", "Cedar Ridge", "Halcyon", "Ironbridge", "Lumenfield", "Meridian Bay",
    "Pinecrest", "Quarry Lane", "Redwater", "Silverline", "Tidewater", "Vantage Point",
    "Westbrook", "Orchid Hill", "Granite Peak", "Keystone Valley", "Larkspur", "Brightwater",
    "Copperleaf", "Driftwood", "Foxglove", "Harborview", "Juniper Row", "Marigold", "Stonegate",
)
NAME_TRADES = (
    "Analytics", "Logistics", "Software", "Health Systems", "Foods", "Robotics", "Media",
    "Networks", "Biosciences", "Energy", "Payments", "Materials", "Data Services", "Devices",
    "Learning", "Outdoor Products", "Diagnostics", "Security",
)


@dataclass(frozen=True)
class EntityForm:
    """How a company's name ends and how the preamble describes it."""

    suffix: str  # appended to the name, punctuation included
    description: str  # "a {place} corporation"; {place} is filled with `place`
    place: str


ENTITY_FORMS = (
    EntityForm(", Inc.", "a {place} corporation", "Delaware"),
    EntityForm(", Inc.", "a {place} corporation", "California"),
    EntityForm(" Corporation", "a {place} corporation", "New York"),
    EntityForm(" Corp.", "a {place} corporation", "Nevada"),
    EntityForm(" LLC", "a {place} limited liability company", "Delaware"),
    EntityForm(" LLC", "a {place} limited liability company", "Texas"),
    EntityForm(" Holdings, Inc.", "a {place} corporation", "Massachusetts"),
    EntityForm(" Limited", "a company incorporated in {place}", "England and Wales"),
)

FIRST_NAMES = ("Avery", "Jordan", "Morgan", "Priya", "Daniel", "Elena", "Marcus", "Sofia",
               "Wei", "Hannah", "Tomas", "Grace", "Rafael", "Naomi", "Owen", "Lucia")
LAST_NAMES = ("Whitfield", "Okafor", "Lindqvist", "Brennan", "Castellano", "Haddad", "Moreau",
              "Nakamura", "Abernathy", "Delgado", "Kowalski", "Pemberton", "Ashworth", "Vance")
OFFICER_TITLES = ("Chief Executive Officer", "President", "Chief Financial Officer",
                  "General Counsel", "Chief Operating Officer", "Vice President, Operations")

STREETS = ("Harbor Way", "Commerce Drive", "Lakeview Parkway", "Market Street", "Innovation Boulevard",
           "Cypress Avenue", "Foundry Road", "Summit Plaza")
CITIES = (("Austin", "Texas", "787"), ("Denver", "Colorado", "802"), ("Columbus", "Ohio", "432"),
          ("Raleigh", "North Carolina", "276"), ("Portland", "Oregon", "972"),
          ("Minneapolis", "Minnesota", "554"), ("Boston", "Massachusetts", "021"),
          ("San Jose", "California", "951"), ("Atlanta", "Georgia", "303"))


@dataclass(frozen=True)
class Jurisdiction:
    name: str  # as the rules engine normalises it (pipelines.rules.jurisdictions)
    laws_of: str  # what follows "the laws of"
    courts: str  # who hears disputes


JURISDICTIONS = (
    Jurisdiction("Delaware", "the State of Delaware",
                 "the state and federal courts located in New Castle County, Delaware"),
    Jurisdiction("New York", "the State of New York",
                 "the state and federal courts located in the Borough of Manhattan, New York, New York"),
    Jurisdiction("California", "the State of California",
                 "the state and federal courts located in Santa Clara County, California"),
    Jurisdiction("Texas", "the State of Texas", "the state and federal courts located in Travis County, Texas"),
    Jurisdiction("Illinois", "the State of Illinois", "the state and federal courts located in Cook County, Illinois"),
    Jurisdiction("Massachusetts", "the Commonwealth of Massachusetts",
                 "the state and federal courts located in Suffolk County, Massachusetts"),
    Jurisdiction("Washington", "the State of Washington",
                 "the state and federal courts located in King County, Washington"),
    Jurisdiction("Georgia", "the State of Georgia", "the state and federal courts located in Fulton County, Georgia"),
    Jurisdiction("England and Wales", "England and Wales", "the courts of England and Wales"),
    Jurisdiction("Ontario, Canada", "the Province of Ontario and the federal laws of Canada applicable therein",
                 "the courts of the Province of Ontario sitting in Toronto"),
)

TERRITORIES = ("the United States", "the United States and Canada", "North America",
               "the European Economic Area", "the states of Texas, Oklahoma and Louisiana")
PRODUCT_NAMES = ("Beacon", "Cobalt", "Lattice", "Quillon", "Sextant", "Tessera", "Trellis", "Keel")
PRODUCT_KINDS = ("Platform", "Suite", "Engine", "Studio")


# --- Contract types ---------------------------------------------------------------------

@dataclass(frozen=True)
class ContractType:
    """What kind of deal a contract is; decides its roles, vocabulary and possible clauses."""

    slug: str  # file names start with it
    title: str
    provider: str  # defined name of the party that supplies
    customer: str  # defined name of the party that pays
    subject: str  # what is supplied, with its article: "the Services"
    same_kind: str  # what a competitor would offer instead, for restrictive covenants
    volume_unit: str  # the unit usage limits count, plural
    licenses: bool  # whether software/trademark license clauses belong in it
    core_heading: str
    core: tuple[tuple[str, str], ...]  # (run-in heading, paragraph) for the operative section
    definitions: tuple[str, ...]  # type-specific definitions, always included
    recital: str


CONTRACT_TYPES = (
    ContractType(
        "msa", "MASTER SERVICES AGREEMENT", "Provider", "Customer", "the Services",
        "professional services of the kind described in any Statement of Work", "hours of Services",
        False, "SERVICES",
        (("Statements of Work.", "{A} shall perform the services described in one or more statements of work "
          "executed by both parties that reference this Agreement (each, a \"Statement of Work\"). Each Statement of "
          "Work is governed by this Agreement, and if a Statement of Work conflicts with this Agreement, this "
          "Agreement controls unless the Statement of Work expressly states otherwise."),
         ("Personnel.", "{A} shall assign personnel with appropriate skill and experience to perform the Services "
          "and shall remain responsible for the acts and omissions of its subcontractors. {B} may request the "
          "replacement of any individual it reasonably considers unsuitable, and {A} shall consider such request "
          "in good faith."),
         ("Cooperation.", "{B} shall provide {A} with timely access to the information, facilities and personnel "
          "reasonably required to perform the Services. {A} is excused from any delay to the extent caused by "
          "{B}'s failure to provide such cooperation.")),
        ("\"Services\" means the services that {A} performs under a Statement of Work.",
         "\"Deliverables\" means the documents, reports and other materials that a Statement of Work identifies "
         "as items to be delivered to {B}."),
        "{A} provides data, technology and advisory services, and {B} wishes to engage {A} to provide such "
        "services on the terms of this Agreement.",
    ),
    ContractType(
        "license", "SOFTWARE LICENSE AGREEMENT", "Licensor", "Licensee", "the Software",
        "software that performs substantially the same functions as the Software", "named users",
        True, "LICENSE AND DELIVERY",
        (("Delivery.", "{A} shall make the Software available to {B} for electronic download within five (5) "
          "Business Days after the Effective Date, together with any license keys required to operate it."),
         ("Support.", "During the Term, {A} shall provide {B} with the maintenance releases and updates that it "
          "makes generally available to its customers, and shall respond to support requests submitted through "
          "its customer portal within the response times stated in the Documentation.")),
        ("\"Software\" means the software product known as {product}, in object code form, together with all "
         "updates and maintenance releases that {A} provides under this Agreement.",
         "\"Documentation\" means the user guides and technical manuals for the Software that {A} makes "
         "available to its licensees."),
        "{A} has developed and owns the Software, and {B} wishes to obtain a license to use the Software in its "
        "business.",
    ),
    ContractType(
        "distribution", "DISTRIBUTION AGREEMENT", "Supplier", "Distributor", "the Products",
        "products that are substantially similar to the Products", "units",
        True, "APPOINTMENT AND ORDERS",
        (("Appointment.", "{A} appoints {B} as a distributor of the Products in the Territory, and {B} accepts "
          "such appointment, on the terms of this Agreement. {B} shall use commercially reasonable efforts to "
          "promote and sell the Products throughout the Territory."),
         ("Orders.", "{B} shall submit purchase orders in writing, and each purchase order is binding only once "
          "{A} accepts it in writing or by shipping the ordered Products. {A} shall use reasonable efforts to "
          "ship accepted orders within thirty (30) days after acceptance."),
         ("Forecasts.", "By the tenth day of each calendar quarter, {B} shall provide {A} with a non-binding "
          "forecast of its expected purchases of each Product for the following two quarters.")),
        ("\"Products\" means the products listed in Exhibit A, as {A} may update that list from time to time by "
         "written notice to {B}.",),
        "{A} manufactures the Products, and {B} is in the business of distributing products of that kind in the "
        "Territory.",
    ),
    ContractType(
        "supply", "SUPPLY AGREEMENT", "Supplier", "Buyer", "the Products",
        "the Products or any functionally equivalent products", "units",
        False, "SUPPLY OF PRODUCTS",
        (("Purchase and Sale.", "{A} shall manufacture and sell the Products to {B}, and {B} shall purchase "
          "them from {A}, in the quantities stated in purchase orders that {B} issues and {A} accepts."),
         ("Delivery.", "{A} shall deliver the Products FCA {A}'s facility, and title and risk of loss pass to "
          "{B} upon delivery to the carrier. {A} shall pack the Products in accordance with good commercial "
          "practice so that they reach {B} undamaged."),
         ("Inspection.", "{B} may inspect each shipment within ten (10) days after receipt and reject any "
          "Products that do not conform to the Specifications, and {A} shall replace rejected Products at its "
          "own cost.")),
        ("\"Products\" means the goods described in Exhibit A that are manufactured in accordance with the "
         "Specifications.",
         "\"Specifications\" means the specifications for each Product set out in Exhibit A, as amended by "
         "written agreement of the parties."),
        "{B} requires a reliable source of the Products for its operations, and {A} is willing to manufacture "
        "and supply them.",
    ),
    ContractType(
        "reseller", "RESELLER AGREEMENT", "Vendor", "Reseller", "the Products",
        "products that compete with the Products", "subscriptions",
        True, "APPOINTMENT AS RESELLER",
        (("Appointment.", "{A} appoints {B} as an authorized reseller of subscriptions to the Products to end "
          "customers located in the Territory. {B} shall resell the Products only under {A}'s standard end user "
          "terms, as updated by {A} from time to time."),
         ("Marketing.", "{B} shall market the Products in a manner that reflects favorably on the Products and "
          "on {A}'s reputation, and shall not make any representation about the Products that is inconsistent "
          "with the Documentation.")),
        ("\"Products\" means {A}'s cloud software products known as {product}, together with the related "
         "Documentation.",
         "\"End Customer\" means a third party that purchases a subscription to the Products from {B} for its "
         "own internal use."),
        "{A} offers the Products on a subscription basis, and {B} resells software subscriptions to business "
        "customers in the Territory.",
    ),
    ContractType(
        "subscription", "SUBSCRIPTION SERVICES AGREEMENT", "Provider", "Subscriber", "the Subscription Service",
        "services substantially similar to the Subscription Service", "named users",
        True, "SUBSCRIPTION SERVICE",
        (("Provision of Service.", "{A} shall make the Subscription Service available to {B} in accordance with "
          "the Documentation and the service levels described in Exhibit B. {A} may update the Subscription "
          "Service from time to time, provided that no update materially reduces its functionality."),
         ("Customer Data.", "{B} retains all rights in the data it submits to the Subscription Service, and {A} "
          "shall process such data only to provide the Subscription Service and as {B} otherwise instructs in "
          "writing."),
         ("Acceptable Use.", "{B} shall not use the Subscription Service to store or transmit unlawful material, "
          "to interfere with its operation, or to attempt to gain unauthorized access to it.")),
        ("\"Subscription Service\" means {A}'s hosted software service known as {product}, as described in "
         "the Documentation.",
         "\"Documentation\" means {A}'s online user guides for the Subscription Service."),
        "{A} operates a hosted software service, and {B} wishes to subscribe to that service for use in its "
        "business.",
    ),
    ContractType(
        "consulting", "CONSULTING AGREEMENT", "Consultant", "Client", "the Services",
        "consulting services of the kind described in Exhibit A", "hours of Services",
        False, "CONSULTING SERVICES",
        (("Engagement.", "{B} engages {A} to provide the consulting services described in Exhibit A (the "
          "\"Services\"), and {A} accepts the engagement. {A} shall determine the method, details and means of "
          "performing the Services."),
         ("Reports.", "{A} shall report to {B}'s designated project manager on the progress of the Services at "
          "least monthly, and at any other time on {B}'s reasonable request.")),
        ("\"Services\" means the consulting services described in Exhibit A.",),
        "{A} has expertise in operational strategy, and {B} wishes to retain {A} as an independent consultant.",
    ),
    ContractType(
        "manufacturing", "MANUFACTURING AGREEMENT", "Manufacturer", "Company", "the Products",
        "products that are substantially similar to the Products", "units",
        False, "MANUFACTURE OF PRODUCTS",
        (("Manufacture.", "{A} shall manufacture the Products in accordance with the Specifications, applicable "
          "Law and current good manufacturing practices, using materials that {A} sources from suppliers "
          "approved by {B}."),
         ("Quality.", "{A} shall maintain a quality control program that meets the requirements of Exhibit C, "
          "and {B} may inspect {A}'s manufacturing facility on reasonable notice during normal business hours.")),
        ("\"Products\" means the products that {A} manufactures for {B} under this Agreement, as listed in "
         "Exhibit A.",
         "\"Specifications\" means {B}'s written specifications for each Product set out in Exhibit A."),
        "{B} designs and markets the Products, and {A} operates manufacturing facilities capable of producing "
        "them.",
    ),
)

# What the licence clauses license and the escrow clauses deposit, per licensing type.
LICENSED_SUBJECT = {
    "license": "the Software and the Documentation",
    "distribution": "{A}'s trademarks, trade names and logos (the \"Marks\")",
    "reseller": "the Products and {A}'s trademarks",
    "subscription": "the Subscription Service and the Documentation",
}
LICENSE_PURPOSE = {
    "license": "{B}'s internal business operations",
    "distribution": "marketing and distributing the Products in the Territory",
    "reseller": "demonstrating, marketing and reselling the Products in the Territory",
    "subscription": "{B}'s internal business operations",
}
ESCROWED_CODE = {"license": "the Software", "subscription": "the software underlying the Subscription Service"}


# --- Clauses by CUAD category -----------------------------------------------------------

CLAUSES: dict[str, tuple[str, ...]] = {
    "License Grant": (
        "Subject to the terms and conditions of this Agreement, {A} hereby grants to {B} a non-exclusive license "
        "to use {licensed} solely for {license_purpose}.",
        "{A} grants {B} a limited, non-exclusive right and license to use, reproduce and display {licensed} in "
        "the Territory solely in connection with {license_purpose}.",
        "Subject to {B}'s payment of the Fees, {A} hereby grants to {B}, and {B} accepts, a non-exclusive license "
        "to access and use {licensed} for {license_purpose}.",
    ),
    "Non-Transferable License": (
        "The license granted in this Section is non-transferable and non-sublicensable, except as expressly "
        "permitted by this Agreement.",
        "{B} may not sublicense, rent, lease or otherwise transfer any of its rights in {licensed} to any third "
        "party.",
    ),
    "Affiliate License-Licensor": (
        "The license granted in this Section extends to all Intellectual Property Rights in {licensed} that are "
        "owned or controlled by {A}'s Affiliates, and {A} shall cause its Affiliates to grant such rights to {B}.",
        "{A}, on behalf of itself and its Affiliates, grants to {B} a license under the patents of {A} and its "
        "Affiliates that cover {licensed}, to the extent necessary to exercise the rights granted in this Section.",
    ),
    "Affiliate License-Licensee": (
        "{B} may permit its Affiliates to use {licensed} under the license granted in this Section, provided "
        "that {B} remains responsible for each Affiliate's compliance with this Agreement.",
        "The license granted in this Section extends to {B}'s Affiliates, each of which may exercise the rights "
        "of {B} under it as if it were a party to this Agreement.",
    ),
    "Irrevocable Or Perpetual License": (
        "Upon payment of the one-time license fee set out in Exhibit B, the license granted in this Section "
        "shall be perpetual and irrevocable.",
        "The license granted in this Section is worldwide, perpetual, irrevocable and fully paid-up, and shall "
        "survive any expiration or termination of this Agreement.",
    ),
    "Unlimited/All-You-Can-Eat-License": (
        "{B} may allow an unlimited number of its employees and contractors to use {licensed}, on an unlimited "
        "number of devices, without payment of any additional Fees.",
        "The Fees entitle {B} to make an unlimited number of copies of {licensed} and to deploy them throughout "
        "its organization.",
    ),
    "Volume Restriction": (
        "{B}'s use of {subject} is limited to {volume_cap} in any calendar month, and any use in excess of that "
        "limit requires an additional order and payment of the corresponding Fees.",
        "{A} shall not be obliged to accept orders in any calendar month for more than {volume_cap}, and any "
        "order in excess of that quantity is subject to {A}'s written approval.",
    ),
    "Minimum Commitment": (
        "{B} shall purchase {subject} with an aggregate value of not less than {min_amount} in each Contract "
        "Year during the Term (the \"Minimum Commitment\").",
        "{B} commits to pay minimum annual Fees of {min_amount} regardless of its actual usage, and {A} shall "
        "invoice any shortfall within thirty (30) days after the end of the applicable Contract Year.",
    ),
    "Revenue/Profit Sharing": (
        "{A} shall pay {B} a commission equal to {share_pct} of the Net Revenue (as defined in Exhibit B) that "
        "{A} receives from each customer referred by {B} during the Term.",
        "In consideration of the rights granted in this Agreement, {B} shall pay {A} a royalty equal to "
        "{share_pct} of Net Sales of {subject}, payable within thirty (30) days after the end of each calendar "
        "quarter.",
        "The parties shall share the net profits arising from sales of {subject} in the Territory, with "
        "{share_pct} allocated to {B} and the balance allocated to {A}.",
    ),
    "Price Restrictions": (
        "The Fees are fixed for the Initial Term, and thereafter {A} may increase them no more than once in any "
        "Contract Year and by no more than {increase_pct}.",
        "Any adjustment to the prices set out in Exhibit B shall not exceed the percentage increase in the "
        "Consumer Price Index for All Urban Consumers during the preceding twelve (12) months.",
    ),
    "Most Favored Nation": (
        "If {A} offers {subject} to any other customer on pricing terms more favorable than those in this "
        "Agreement, {A} shall promptly offer the same terms to {B}, effective from the date they were first "
        "offered to the other customer.",
        "{A} represents that the prices charged to {B} under this Agreement are, and shall remain, no less "
        "favorable than the prices {A} charges to any other customer purchasing similar volumes of {subject}.",
    ),
    "Liquidated Damages": (
        "If {A} fails to deliver {subject} by the agreed delivery date, {A} shall pay {B}, as liquidated damages "
        "and not as a penalty, {ld_amount} for each day of delay, up to a maximum of {ld_cap_pct} of the Fees "
        "for the delayed order.",
        "If {B} terminates this Agreement other than for {A}'s uncured breach, {B} shall pay {A} an early "
        "termination fee equal to {ld_months} of the average monthly Fees, which the parties agree is a "
        "reasonable estimate of {A}'s damages and not a penalty.",
    ),
    "Audit Rights": (
        "{B} may, upon {audit_notice} prior written notice and not more than once in any calendar year, audit "
        "the books and records of {A} relating to this Agreement to verify the amounts invoiced under it.",
        "{A} or an independent accountant it appoints may inspect and audit {B}'s relevant records during "
        "normal business hours upon reasonable notice, and if an audit reveals an underpayment exceeding "
        "{audit_pct}, {B} shall reimburse the reasonable costs of the audit.",
    ),
    "Exclusivity": (
        "During the Term, {A} shall not appoint any other person to market or sell {subject} in the Territory, "
        "and {B} shall be {A}'s exclusive channel for {subject} in the Territory.",
        "{B} shall obtain all of its requirements for {same_kind} exclusively from {A} during the Term.",
        "During the Term, {B} shall not engage any third party to provide {same_kind}, and shall obtain such "
        "products and services solely from {A}.",
    ),
    "Non-Compete": (
        "During the Term and for a period of {noncompete_period} thereafter, {B} shall not, directly or "
        "indirectly, develop, market, distribute or sell {same_kind} in the Territory.",
        "{A} agrees that, while this Agreement remains in effect, it shall not engage in, own, manage or provide "
        "services to any business that competes with {B} in the Territory in the supply of {same_kind}.",
    ),
    "Competitive Restriction Exception": (
        "Nothing in this Section prevents {B} from owning, as a passive investment, up to two percent (2%) of "
        "the publicly traded securities of any entity.",
        "The restrictions in this Section shall not apply to any product or service that {B} offered "
        "commercially before the Effective Date, or that it acquires through the purchase of a business whose "
        "competing activities represent less than ten percent (10%) of that business's revenue.",
        "{A} may continue to supply the customers listed in Exhibit C, which are excluded from the restrictions "
        "set out in this Section.",
    ),
    "Rofr/Rofo/Rofn": (
        "If {A} receives a bona fide offer from a third party to acquire distribution rights for {subject} in "
        "any territory outside the Territory, {A} shall notify {B} of the terms of that offer, and {B} shall "
        "have the right, exercisable within {rofr_period} after the notice, to acquire such rights on the same "
        "terms.",
        "{B} shall have a right of first negotiation with respect to any new product line that {A} intends to "
        "commercialize in the Territory, and {A} shall negotiate exclusively and in good faith with {B} for "
        "{rofr_period} before offering such product line to any third party.",
        "Before offering to sell or exclusively license {subject} to any third party, {A} shall first offer such "
        "rights to {B} in writing, and {B} may accept the offer within {rofr_period} after receiving it.",
    ),
    "No-Solicit Of Customers": (
        "During the Term and for {nonsolicit_period} thereafter, {B} shall not, directly or indirectly, solicit "
        "any customer of {A} with whom {B} had contact under this Agreement for the purpose of selling "
        "{same_kind}.",
        "Neither party shall induce or attempt to induce any customer of the other party to cease or reduce its "
        "business with the other party during the Term and for {nonsolicit_period} after its expiration or "
        "termination.",
    ),
    "No-Solicit Of Employees": (
        "During the Term and for {nonsolicit_period} thereafter, neither party shall solicit for employment any "
        "employee of the other party who was involved in the performance of this Agreement.",
        "{B} shall not, without {A}'s prior written consent, hire or engage any employee of {A} who performed "
        "work under this Agreement until {nonsolicit_period} after the last date on which that employee "
        "performed such work.",
    ),
    "Non-Disparagement": (
        "Neither party shall make any public statement that disparages the other party, its Affiliates, or their "
        "respective products, services, officers or employees.",
        "{B} shall not make, publish or communicate to any third party any defamatory or disparaging remarks "
        "concerning {A} or {subject}.",
    ),
    "Ip Ownership Assignment": (
        "{A} hereby assigns to {B} all right, title and interest in and to all work product that {A} creates "
        "specifically for {B} under this Agreement (the \"Work Product\"), including all Intellectual Property "
        "Rights in it, effective upon {B}'s payment of the applicable Fees.",
        "All work product that {A} creates for {B} under this Agreement shall be a \"work made for hire\" as "
        "defined in the U.S. Copyright Act, and to the extent it is not, {A} hereby irrevocably assigns all "
        "rights in it to {B}.",
    ),
    "Joint Ip Ownership": (
        "Any invention conceived or reduced to practice jointly by personnel of both parties in the course of "
        "this Agreement (a \"Joint Invention\") shall be owned jointly by the parties, each holding an undivided "
        "interest without a duty to account to the other.",
        "The parties shall jointly own all Intellectual Property Rights in the co-developed materials described "
        "in Exhibit D, and neither party shall license such rights to a third party without the other party's "
        "written consent.",
    ),
    "Covenant Not To Sue": (
        "{B} shall not, and shall cause its Affiliates not to, challenge or contest the validity of {A}'s "
        "Intellectual Property Rights in {subject}, or assist any third party in doing so.",
        "Each party covenants that it shall not assert any claim of patent infringement against the other party "
        "or its customers based on the use of {subject} as permitted under this Agreement.",
    ),
    "Source Code Escrow": (
        "Within thirty (30) days after the Effective Date, {A} shall deposit the source code of {escrowed_code}, "
        "together with build instructions, with an independent escrow agent under an escrow agreement naming {B} "
        "as beneficiary, and shall update the deposit with each major release.",
        "If {A} ceases to carry on business in the ordinary course or becomes the subject of any bankruptcy "
        "proceeding, {B} shall be entitled to obtain the source code for {escrowed_code} from the escrow agent "
        "and to use it solely to support its licensed use.",
    ),
    "Warranty Duration": (
        "{A} warrants that {subject} will conform in all material respects to the applicable specifications for "
        "a period of {warranty_period} after delivery (the \"Warranty Period\").",
        "{A} warrants that {subject} will be free from material defects in materials and workmanship for "
        "{warranty_period} from the date of acceptance by {B}.",
    ),
    "Cap On Liability": (
        "EACH PARTY'S TOTAL CUMULATIVE LIABILITY ARISING OUT OF OR RELATING TO THIS AGREEMENT SHALL NOT EXCEED "
        "THE FEES PAID OR PAYABLE BY {B_caps} UNDER THIS AGREEMENT IN THE {cap_months_caps} PRECEDING THE EVENT "
        "GIVING RISE TO THE CLAIM.",
        "In no event shall {A}'s aggregate liability arising out of or related to this Agreement exceed "
        "{cap_amount}.",
        "No action arising out of this Agreement may be brought by either party more than {claim_period} after "
        "the cause of action has accrued.",
    ),
    "Uncapped Liability": (
        "The limitations of liability in this Section shall not apply to a party's indemnification obligations, "
        "its breach of the confidentiality obligations of this Agreement, or damages arising from its gross "
        "negligence, fraud or willful misconduct.",
        "Nothing in this Agreement limits or excludes either party's liability for death or personal injury "
        "caused by its negligence, for fraud, or for infringement of the other party's Intellectual Property "
        "Rights.",
    ),
    "Insurance": (
        "{A} shall maintain, at its own expense, commercial general liability insurance with limits of not less "
        "than {insurance_amount} per occurrence and {insurance_aggregate} in the aggregate, and shall provide "
        "certificates of insurance to {B} upon request.",
        "During the Term and for two (2) years thereafter, each party shall maintain professional liability "
        "insurance with coverage of at least {insurance_amount} per claim.",
        "{B} shall be named as an additional insured under {A}'s commercial general liability policy, which "
        "shall provide coverage of not less than {insurance_amount} per occurrence.",
    ),
    "Expiration Date": (
        "This Agreement commences on the Effective Date and, unless terminated earlier in accordance with its "
        "terms, continues for an initial term of {term_period} (the \"Initial Term\").",
        "The term of this Agreement begins on the Effective Date and expires on {expiration_date} (the "
        "\"Initial Term\"), unless terminated earlier as provided in this Agreement.",
    ),
    "Termination For Convenience": (
        "{B} may terminate this Agreement at any time, for any reason or no reason, upon {tfc_period} prior "
        "written notice to {A}.",
        "Either party may terminate this Agreement without cause by giving the other party at least {tfc_period} "
        "written notice of termination.",
        "After the first anniversary of the Effective Date, {B} may terminate this Agreement for its convenience "
        "upon {tfc_period} written notice, provided that {B} pays all Fees accrued through the effective date of "
        "termination.",
    ),
    "Post-Termination Services": (
        "Upon expiration or termination of this Agreement, {A} shall, at {B}'s request, continue to provide "
        "{subject} for up to {transition_period} at the rates then in effect in order to permit an orderly "
        "transition to {B} or its designee.",
        "For {transition_period} following any termination, {A} shall provide reasonable transition assistance "
        "to {B}, including the return of {B}'s data in a commonly used electronic format.",
    ),
    "Governing Law": (
        "This Agreement shall be governed by and construed in accordance with the laws of {laws_of}, without "
        "giving effect to any choice or conflict of law provision or rule that would cause the application of "
        "the laws of any other jurisdiction.",
        "This Agreement and any dispute arising out of or relating to it shall be governed by the laws of "
        "{laws_of}, excluding its conflict of laws principles.",
    ),
    "Anti-Assignment": (
        "Neither party may assign or transfer this Agreement, in whole or in part, by operation of law or "
        "otherwise, without the prior written consent of the other party, which shall not be unreasonably "
        "withheld.",
        "{B} shall not assign, delegate or otherwise transfer any of its rights or obligations under this "
        "Agreement without {A}'s prior written consent, and any purported assignment in violation of this "
        "Section shall be null and void.",
        "Either party may assign this Agreement to an Affiliate or to a successor to all or substantially all of "
        "its business upon written notice to the other party, but otherwise may not assign it without the other "
        "party's prior written consent.",
    ),
    "Change Of Control": (
        "Any merger or reorganization of {B}, or any transaction by which a third party acquires more than fifty "
        "percent (50%) of {B}'s voting securities, shall be deemed an assignment of this Agreement requiring "
        "{A}'s prior written consent.",
        "{A} may terminate this Agreement upon written notice if {B} undergoes a change of control, including "
        "the acquisition of a majority of its voting stock or of all or substantially all of its assets by a "
        "competitor of {A}.",
    ),
    "Third Party Beneficiary": (
        "Each Affiliate of {B} that receives {subject} under this Agreement is an intended third-party "
        "beneficiary of this Agreement and may enforce its terms directly against {A}.",
        "The persons entitled to indemnification under this Agreement are intended third-party beneficiaries "
        "of the indemnification provisions and are entitled to enforce them directly.",
    ),
}

RENEWAL_TERM_AUTOMATIC = (
    "Thereafter, this Agreement shall automatically renew for successive renewal terms of {renewal_period} each "
    "(each, a \"Renewal Term\"), unless either party gives notice of non-renewal as provided below.",
    "Upon expiration of the Initial Term, this Agreement will renew automatically for additional periods of "
    "{renewal_period} each (each, a \"Renewal Term\") unless terminated in accordance with this Section.",
)
RENEWAL_TERM_OPTIONAL = (
    "{B} may extend this Agreement for one additional term of {renewal_period} (the \"Renewal Term\") by giving "
    "written notice to {A} before the end of the Initial Term.",
)
NOTICE_TO_TERMINATE_RENEWAL = (
    "Either party may elect not to renew this Agreement by giving the other party written notice at least "
    "{notice_period} before the end of the then-current term.",
    "To prevent automatic renewal, a party must deliver written notice of non-renewal no later than "
    "{notice_period} prior to the expiration of the Initial Term or any Renewal Term.",
)

# Sentences that look like a category to a careless reader but are not a clause of it.  The
# pipeline must not report these; tests of the rules engine use them as hard negatives.
LOOKALIKES: dict[str, tuple[str, ...]] = {
    "Cap On Liability": (  # excludes kinds of damages; caps no amount and no time to sue
        "IN NO EVENT SHALL EITHER PARTY BE LIABLE TO THE OTHER FOR ANY INDIRECT, INCIDENTAL, SPECIAL, "
        "CONSEQUENTIAL OR PUNITIVE DAMAGES, OR FOR ANY LOSS OF PROFITS, REVENUE OR DATA, ARISING OUT OF OR "
        "RELATING TO THIS AGREEMENT, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGES.",
        "Neither party shall be liable to the other for any indirect, special, incidental or consequential "
        "damages, including lost profits, whether in contract, tort or otherwise.",
    ),
    "Termination For Convenience": (  # needs a breach, so it is not "for convenience"
        "Either party may terminate this Agreement upon written notice if the other party materially breaches "
        "this Agreement and fails to cure the breach within thirty (30) days after receiving written notice of "
        "it.",
    ),
    "Audit Rights": (  # keeping records gives the other party no right to inspect them
        "Each party shall maintain complete and accurate books and records relating to its activities under "
        "this Agreement for at least three (3) years after the related invoice.",
    ),
    "Anti-Assignment": (  # only when no assignment or change-of-control clause is present
        "Either party may freely assign or transfer this Agreement, in whole or in part, without the consent of "
        "the other party.",
    ),
    "Exclusivity": (  # only when no exclusivity clause is present
        "Nothing in this Agreement creates an exclusive relationship between the parties, and each party remains "
        "free to do business with third parties, including competitors of the other party.",
    ),
}

# --- Boilerplate by section -------------------------------------------------------------
# (run-in heading, paragraph); assembly keeps a random subset in this order.

COMMON_DEFINITIONS = (
    "\"Affiliate\" means any entity that directly or indirectly controls, is controlled by, or is under common "
    "control with a party, where \"control\" means ownership of more than fifty percent (50%) of the voting "
    "interests of the entity.",
    "\"Business Day\" means any day other than a Saturday, a Sunday or a day on which commercial banks in New "
    "York, New York are authorized or required to close.",
    "\"Contract Year\" means each successive period of twelve (12) months beginning on the Effective Date or an "
    "anniversary of it.",
    "\"Fees\" means the amounts payable by {B} under this Agreement, as set out in Exhibit B.",
    "\"Intellectual Property Rights\" means all patents, copyrights, trademarks, trade secrets, database rights "
    "and other intellectual property rights, whether registered or unregistered, anywhere in the world.",
    "\"Law\" means any statute, regulation, ordinance or binding order of a governmental authority.",
    "\"Territory\" means {territory}.",
)

BOILERPLATE: dict[str, tuple[tuple[str, str], ...]] = {
    "fees": (
        ("Invoices.", "{A} shall invoice the Fees monthly in arrears, and {B} shall pay each undisputed invoice "
         "within {payment_period} after the invoice date. Amounts not paid when due bear interest at the lesser of "
         "one percent (1%) per month and the highest rate permitted by Law."),
        ("Taxes.", "All Fees are stated and payable in United States dollars and are exclusive of sales, use, "
         "value added and similar taxes, which {B} shall pay, other than taxes based on {A}'s net income."),
        ("Disputed Amounts.", "{B} may dispute an invoice in good faith by written notice that describes the "
         "disputed amount in reasonable detail, given before the invoice is due. The parties shall work together "
         "diligently to resolve the dispute, and {A} shall not suspend performance while they do so."),
        ("Expenses.", "{B} shall reimburse {A} for reasonable travel and out-of-pocket expenses incurred at "
         "{B}'s written request, provided that {A} submits receipts and complies with {B}'s travel policy."),
    ),
    "ip": (
        ("Ownership.", "Except as expressly provided in this Agreement, each party retains all right, title and "
         "interest in and to its Intellectual Property Rights, and no license is granted by implication, estoppel "
         "or otherwise."),
        ("Pre-Existing Materials.", "{A} retains ownership of all tools, methods and materials that it developed "
         "before the Effective Date or independently of this Agreement, and grants {B} a non-exclusive right to use "
         "any of them incorporated in a deliverable solely as part of that deliverable."),
    ),
    "confidentiality": (
        ("Definition.", "\"Confidential Information\" means all non-public information that one party (the "
         "\"Discloser\") discloses to the other party (the \"Recipient\") in connection with this Agreement and "
         "that is marked as confidential or would reasonably be understood to be confidential. Confidential "
         "Information does not include information that is or becomes public through no fault of the Recipient, "
         "that the Recipient already knew without restriction, or that the Recipient develops independently."),
        ("Obligations.", "The Recipient shall use the Discloser's Confidential Information only to perform its "
         "obligations and exercise its rights under this Agreement, and shall protect it with at least the care "
         "it uses for its own information of a similar nature, and no less than reasonable care. The Recipient may "
         "disclose Confidential Information to its employees and advisers who need to know it and who are bound "
         "by obligations of confidentiality no less protective than these."),
        ("Compelled Disclosure.", "The Recipient may disclose Confidential Information to the extent required by "
         "Law or court order, provided that it gives the Discloser prompt notice, where lawful, and reasonable "
         "assistance in seeking a protective order."),
        ("Return of Information.", "Upon the Discloser's written request, the Recipient shall promptly return or "
         "destroy the Discloser's Confidential Information, except for copies kept in routine backups or required "
         "to be retained by Law, which remain subject to this Section."),
    ),
    "warranties": (
        ("Mutual Representations.", "Each party represents and warrants that it is duly organized and in good "
         "standing under the laws of its jurisdiction of organization, that it has full power and authority to "
         "enter into this Agreement, and that its performance of this Agreement will not breach any other "
         "agreement by which it is bound."),
        ("Compliance with Law.", "Each party shall comply with all Laws applicable to its performance under this "
         "Agreement, including applicable anti-corruption and export control Laws."),
        ("Disclaimer.", "EXCEPT AS EXPRESSLY SET OUT IN THIS AGREEMENT, NEITHER PARTY MAKES ANY WARRANTY, WHETHER "
         "EXPRESS, IMPLIED OR STATUTORY, AND EACH PARTY SPECIFICALLY DISCLAIMS ALL IMPLIED WARRANTIES OF "
         "MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NON-INFRINGEMENT."),
    ),
    "indemnification": (
        ("By {A}.", "{A} shall defend {B} and its officers, directors and employees against any claim by a third "
         "party alleging that its Intellectual Property Rights are infringed or misappropriated by {subject} as "
         "provided by {A}, and shall pay any damages finally awarded or agreed in settlement of such "
         "claim."),
        ("By {B}.", "{B} shall defend {A} against any claim by a third party arising from {B}'s breach of "
         "applicable Law or its use of {subject} other than as permitted by this Agreement, and shall pay any "
         "damages finally awarded or agreed in settlement of such claim."),
        ("Procedure.", "The indemnified party shall give the indemnifying party prompt written notice of the "
         "claim, sole control of its defense and settlement, and reasonable cooperation at the indemnifying "
         "party's expense. The indemnifying party shall not settle any claim in a manner that imposes an "
         "obligation on the indemnified party without its prior written consent."),
    ),
    "insurance": (
        ("Insurers.", "Each policy required by this Section shall be issued by an insurer of recognized financial "
         "standing that is authorized to do business in each jurisdiction in which the insured party performs this "
         "Agreement."),
    ),
    "termination": (
        ("Insolvency.", "Either party may terminate this Agreement immediately upon written notice if the other "
         "party becomes insolvent, makes a general assignment for the benefit of creditors, or becomes the subject "
         "of any voluntary or involuntary bankruptcy proceeding that is not dismissed within sixty (60) days."),
        ("Effect of Termination.", "Upon any expiration or termination of this Agreement, {B} shall pay all Fees "
         "accrued through the effective date of termination, and each party shall return or destroy the other "
         "party's Confidential Information in accordance with this Agreement."),
        ("Survival.", "The provisions of this Agreement that by their nature are intended to survive its "
         "expiration or termination, including those concerning payment, confidentiality, indemnification and "
         "limitation of liability, shall so survive."),
    ),
    "general": (
        ("Notices.", "All notices under this Agreement shall be in writing and delivered by hand, by nationally "
         "recognized overnight courier or by certified mail, return receipt requested, to the addresses below, "
         "and are effective upon receipt. Notices to {A} shall be sent to {A_address}, Attention: General "
         "Counsel. Notices to {B} shall be sent to {B_address}, Attention: Legal Department."),
        ("Force Majeure.", "Neither party is liable for any failure or delay in performance, other than payment "
         "obligations, caused by events beyond its reasonable control, including acts of God, fire, flood, war, "
         "terrorism, labor disputes, epidemics or failures of public utilities, provided that it gives prompt "
         "notice and uses reasonable efforts to resume performance."),
        ("Relationship of the Parties.", "The parties are independent contractors, and nothing in this Agreement "
         "creates a partnership, joint venture, agency or employment relationship between them."),
        ("Entire Agreement.", "This Agreement, together with its exhibits, constitutes the entire agreement "
         "between the parties concerning its subject matter and supersedes all prior and contemporaneous "
         "agreements, proposals and representations, whether written or oral."),
        ("Amendment and Waiver.", "No amendment to this Agreement is effective unless it is in writing and signed "
         "by both parties. No failure or delay in exercising any right operates as a waiver of that right."),
        ("Severability.", "If any provision of this Agreement is held invalid or unenforceable, it shall be "
         "limited to the minimum extent necessary, and the remaining provisions shall continue in full force and "
         "effect."),
        ("Counterparts.", "This Agreement may be executed in counterparts, including by electronic signature, "
         "each of which is deemed an original and all of which together constitute one instrument."),
    ),
}

VENUE = ("Each party irrevocably submits to the exclusive jurisdiction of {courts} for any action arising out of "
         "or relating to this Agreement.")
SUCCESSORS = ("Subject to the foregoing, this Agreement binds and benefits the parties and their respective "
              "successors and permitted assigns.")
LIABILITY_SURVIVAL = ("The parties agree that the limitations in this Section are an essential basis of the "
                      "bargain between them.")

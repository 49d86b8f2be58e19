"""What each category means, for the reviewer deciding an item: one plain sentence each.

Written for clausemill in our own words after CUAD's category list (CUAD v1, The Atticus
Project, CC BY 4.0), so the app needs no dataset at run time.
"""
from __future__ import annotations

DESCRIPTIONS: dict[str, str] = {
    "Document Name": "The title the contract gives itself.",
    "Parties": "Who signs the contract and is bound by it.",
    "Agreement Date": "The date the contract is dated or signed.",
    "Effective Date": "The date from which the contract takes effect.",
    "Expiration Date": "When the initial term ends, if nothing renews it.",
    "Renewal Term": "How long the contract runs again after the initial term, automatically or at a party's option.",
    "Notice Period To Terminate Renewal": "How much notice a party must give to stop the contract from renewing.",
    "Governing Law": "Whose law decides what the contract means.",
    "Most Favored Nation": "A promise that this buyer gets terms at least as good as any other customer gets.",
    "Competitive Restriction Exception": "A carve-out from a non-compete, an exclusivity or a no-solicit clause.",
    "Non-Compete": "A party may not compete, or work with competitors, in some field, place or time.",
    "Exclusivity": "A party must deal only with the other, or the other may not deal with anyone else.",
    "No-Solicit Of Customers": "A party may not approach the other's customers for a time.",
    "No-Solicit Of Employees": "A party may not hire or approach the other's staff.",
    "Non-Disparagement": "A party may not speak ill of the other.",
    "Termination For Convenience": "A party may end the contract without cause, usually on notice.",
    "Rofr/Rofo/Rofn": "A party gets the first chance to buy, offer or negotiate before others do.",
    "Change Of Control": "What happens, such as a right to end the contract or a need for consent, when a party is "
                         "bought, merged or sells most of its assets.",
    "Anti-Assignment": "A party needs consent, or notice, to pass the contract to someone else.",
    "Revenue/Profit Sharing": "A party pays the other a share of its revenue or profit.",
    "Price Restrictions": "Limits on raising or lowering prices.",
    "Minimum Commitment": "A party must buy, sell, order or pay at least a stated amount.",
    "Volume Restriction": "A cap or a fee on use beyond a stated volume.",
    "Ip Ownership Assignment": "Intellectual property passes to, or is owned by, the other party.",
    "Joint Ip Ownership": "Both parties own some intellectual property together.",
    "License Grant": "A party grants the other a licence to use its property.",
    "Non-Transferable License": "A licence that the licensee may not transfer or sublicense.",
    "Affiliate License-Licensor": "A licence granted by, or covering property of, the licensor's affiliates.",
    "Affiliate License-Licensee": "A licence that extends to the licensee's affiliates.",
    "Unlimited/All-You-Can-Eat-License": "A licence without limits on use or copies, often for a fixed fee.",
    "Irrevocable Or Perpetual License": "A licence that cannot be taken back, or never ends.",
    "Source Code Escrow": "Source code held by a third party, released to the customer on set events.",
    "Post-Termination Services": "Duties that go on after the contract ends: transition help, wind-down, "
                                 "sell-off rights.",
    "Audit Rights": "A party may inspect the other's books or records.",
    "Uncapped Liability": "Liability that no cap limits, such as a breach carved out of the cap.",
    "Cap On Liability": "A limit on how much a party can owe, or an exclusion of kinds of damages.",
    "Liquidated Damages": "An amount fixed in advance that a party pays for a breach or an early end.",
    "Warranty Duration": "How long a warranty lasts.",
    "Insurance": "Insurance a party must carry.",
    "Covenant Not To Sue": "A party gives up suing or challenging the other, for example over its "
                           "intellectual property.",
    "Third Party Beneficiary": "Someone who is not a party may enforce the contract.",
    "Contract Type": "What kind of contract this is (licence, supply, distribution, amendment…), read by clausemill.",
    "Initial Term": "How long the contract runs before any renewal, read by clausemill.",
}


def description(category: str) -> str:
    """What `category` asks of a contract; an unknown category (a playbook's own) has none."""
    return DESCRIPTIONS.get(category, "")

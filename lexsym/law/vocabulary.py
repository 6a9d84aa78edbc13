"""The words a case may use to describe property, mirrored one-to-one by `encodings/vocabulary.lp`.

Statutes test property by what it is, how it is used, by whom, and who owns it. Keeping the
allowed values in one Python module (for validation and the JSON Schema) and one ASP file (for the
rules) lets a test prove that the two never drift apart.
"""

from __future__ import annotations

from enum import Enum


class AssetKind(str, Enum):
    """What the property is, at the grain the exemption statutes distinguish."""

    REAL_PROPERTY = "real_property"
    MOBILE_HOME = "mobile_home"
    COOPERATIVE_SHARE = "cooperative_share"
    BURIAL_PLOT = "burial_plot"
    MOTOR_VEHICLE = "motor_vehicle"
    HOUSEHOLD_FURNISHING = "household_furnishing"
    HOUSEHOLD_GOOD = "household_good"
    WEARING_APPAREL = "wearing_apparel"
    APPLIANCE = "appliance"
    BOOK = "book"
    ANIMAL = "animal"
    CROP = "crop"
    MUSICAL_INSTRUMENT = "musical_instrument"
    JEWELRY = "jewelry"
    WATCH = "watch"
    WEDDING_RING = "wedding_ring"
    BIBLE = "bible"
    SCHOOL_BOOK = "school_book"
    PICTURE = "picture"
    FAMILY_PICTURE = "family_picture"
    SEWING_MACHINE = "sewing_machine"
    CONSUMER_ELECTRONICS = "consumer_electronics"
    TELEVISION = "television"
    RADIO = "radio"
    COMPUTER = "computer"
    KEEPSAKE = "keepsake"
    FIREARM = "firearm"
    RIFLE = "rifle"
    SHOTGUN = "shotgun"
    PISTOL = "pistol"
    SPORTING_GOOD = "sporting_good"
    BICYCLE = "bicycle"
    PET = "pet"
    LIVESTOCK = "livestock"
    HORSE = "horse"
    MILK_COW = "milk_cow"
    POULTRY = "poultry"
    MILITARY_UNIFORM = "military_uniform"
    TRAILER = "trailer"
    WATERCRAFT = "watercraft"
    BURIAL_ARTICLE = "burial_article"
    EQUIPMENT = "equipment"
    FARM_MACHINERY = "farm_machinery"
    FARM_SUPPLY = "farm_supply"
    FARM_PRODUCT = "farm_product"
    INVENTORY = "inventory"
    HOMESTEAD_PROCEEDS = "homestead_proceeds"
    IMPLEMENT = "implement"
    PROFESSIONAL_BOOK = "professional_book"
    TOOL = "tool"
    LIFE_INSURANCE_POLICY = "life_insurance_policy"
    LIFE_INSURANCE_VALUE = "life_insurance_value"
    HEALTH_AID = "health_aid"
    PROSTHESIS = "prosthesis"
    MOBILITY_DEVICE = "mobility_device"
    SOCIAL_SECURITY_BENEFIT = "social_security_benefit"
    UNEMPLOYMENT_BENEFIT = "unemployment_benefit"
    PUBLIC_ASSISTANCE_BENEFIT = "public_assistance_benefit"
    VETERANS_BENEFIT = "veterans_benefit"
    DISABILITY_BENEFIT = "disability_benefit"
    ILLNESS_BENEFIT = "illness_benefit"
    ALIMONY = "alimony"
    SUPPORT = "support"
    SEPARATE_MAINTENANCE = "separate_maintenance"
    PLAN_PAYMENT = "plan_payment"
    CRIME_VICTIM_AWARD = "crime_victim_award"
    WRONGFUL_DEATH_PAYMENT = "wrongful_death_payment"
    LIFE_INSURANCE_PAYMENT = "life_insurance_payment"
    PERSONAL_INJURY_PAYMENT = "personal_injury_payment"
    LOST_EARNINGS_PAYMENT = "lost_earnings_payment"
    RETIREMENT_ACCOUNT = "retirement_account"
    CASH = "cash"
    BANK_ACCOUNT = "bank_account"
    SECURITIES = "securities"
    BUSINESS_INTEREST = "business_interest"
    TAX_REFUND = "tax_refund"
    COLLECTIBLE = "collectible"
    OTHER = "other"


KIND_PARENTS: dict[AssetKind, AssetKind] = {
    AssetKind.BIBLE: AssetKind.BOOK,
    AssetKind.SCHOOL_BOOK: AssetKind.BOOK,
    AssetKind.FAMILY_PICTURE: AssetKind.PICTURE,
    AssetKind.PICTURE: AssetKind.HOUSEHOLD_FURNISHING,
    AssetKind.SEWING_MACHINE: AssetKind.APPLIANCE,
    AssetKind.TELEVISION: AssetKind.CONSUMER_ELECTRONICS,
    AssetKind.RADIO: AssetKind.CONSUMER_ELECTRONICS,
    AssetKind.COMPUTER: AssetKind.CONSUMER_ELECTRONICS,
    AssetKind.CONSUMER_ELECTRONICS: AssetKind.HOUSEHOLD_GOOD,
    AssetKind.WATCH: AssetKind.JEWELRY,
    AssetKind.WEDDING_RING: AssetKind.JEWELRY,
    AssetKind.PET: AssetKind.ANIMAL,
    AssetKind.LIVESTOCK: AssetKind.ANIMAL,
    AssetKind.HORSE: AssetKind.LIVESTOCK,
    AssetKind.MILK_COW: AssetKind.LIVESTOCK,
    AssetKind.POULTRY: AssetKind.LIVESTOCK,
    AssetKind.MILITARY_UNIFORM: AssetKind.WEARING_APPAREL,
    AssetKind.TOOL: AssetKind.EQUIPMENT,
    AssetKind.IMPLEMENT: AssetKind.EQUIPMENT,
    AssetKind.FARM_MACHINERY: AssetKind.IMPLEMENT,
    AssetKind.BICYCLE: AssetKind.SPORTING_GOOD,
    AssetKind.RIFLE: AssetKind.FIREARM,
    AssetKind.SHOTGUN: AssetKind.FIREARM,
    AssetKind.PISTOL: AssetKind.FIREARM,
    AssetKind.PROSTHESIS: AssetKind.HEALTH_AID,
    AssetKind.MOBILITY_DEVICE: AssetKind.HEALTH_AID,
}
"""Kinds that are a special case of another: a television is consumer electronics, which are household
goods. Mirrored by kind_is/2 in encodings/vocabulary.lp; rules test asset_is/2, which follows the chain."""


class VehicleType(str, Enum):
    """Body type of a motor vehicle, for descriptions and the rules that single types out."""

    CAR = "car"
    TRUCK = "truck"
    VAN = "van"
    SUV = "suv"
    MOTORCYCLE = "motorcycle"
    MOTOR_HOME = "motor_home"
    ATV = "atv"
    OTHER = "other"


class Use(str, Enum):
    """The use the property is held primarily for."""

    RESIDENCE = "residence"
    PERSONAL = "personal"  # personal, family or household use
    TRADE = "trade"  # the trade or profession of its user
    BURIAL = "burial"
    BUSINESS = "business"
    INVESTMENT = "investment"
    NONE = "none"


class Person(str, Enum):
    """Who a use, policy or payment concerns, as the statutes name people."""

    DEBTOR = "debtor"
    DEPENDENT = "dependent"  # a dependent of the debtor
    PROVIDER = "provider"  # an individual of whom the debtor is (or was) a dependent
    OTHER = "other"


class Owner(str, Enum):
    """Who holds the property in a joint case; in a single case it is always the debtor."""

    DEBTOR = "debtor"
    SPOUSE = "spouse"
    JOINT = "joint"


class RetirementPlan(str, Enum):
    """The Internal Revenue Code provision a retirement fund is tax-exempt under."""

    IRC_401 = "irc_401"
    IRC_403 = "irc_403"
    IRC_408 = "irc_408"  # individual retirement account
    IRC_408A = "irc_408a"  # Roth IRA
    IRC_408K = "irc_408k"  # simplified employee pension
    IRC_408P = "irc_408p"  # SIMPLE retirement account
    IRC_414 = "irc_414"
    IRC_457 = "irc_457"
    IRC_501A = "irc_501a"
    NONQUALIFIED = "nonqualified"


class AmountKind(str, Enum):
    """What a dated dollar amount of an exemption is (amount/4 in encodings/vocabulary.lp)."""

    LIMIT = "limit"
    PER_ITEM = "per_item"
    FALLBACK = "fallback"
    JOINT_LIMIT = "joint_limit"


class MunicipalService(str, Enum):
    """Services that land receives, as Tex. Prop. Code § 41.002(c) lists them to tell urban from rural."""

    POLICE = "police"
    FIRE = "fire"  # paid or volunteer fire protection
    ELECTRIC = "electric"
    NATURAL_GAS = "natural_gas"
    SEWER = "sewer"
    STORM_SEWER = "storm_sewer"
    WATER = "water"


class HomesteadCapGround(str, Enum):
    """What makes 11 U.S.C. § 522(q) cap state homestead claims: a finding, or a kind of debt owed."""

    FELONY_ABUSE = "felony_abuse"  # (q)(1)(A): a felony conviction the court finds shows the filing an abuse
    SECURITIES_VIOLATION = "securities_violation"  # (B)(i): a debt from a federal or state securities law
    FIDUCIARY_FRAUD = (
        "fiduciary_fraud"  # (B)(ii): fraud, deceit, manipulation as fiduciary or in a securities sale
    )
    RICO = "rico"  # (B)(iii): a civil remedy under 18 U.S.C. § 1964
    INJURY_MISCONDUCT = (
        "injury_misconduct"  # (B)(iv): crime, intentional tort, willful or reckless misconduct
    )
    # that caused serious physical injury or death to another in the preceding 5 years


class Filing(str, Enum):
    SINGLE = "single"
    JOINT = "joint"


FOREIGN = "FOREIGN"
"""Place code for a domicile outside the United States."""

STATES: dict[str, str] = {
    "AL": "Alabama",
    "AK": "Alaska",
    "AZ": "Arizona",
    "AR": "Arkansas",
    "CA": "California",
    "CO": "Colorado",
    "CT": "Connecticut",
    "DE": "Delaware",
    "DC": "District of Columbia",
    "FL": "Florida",
    "GA": "Georgia",
    "HI": "Hawaii",
    "ID": "Idaho",
    "IL": "Illinois",
    "IN": "Indiana",
    "IA": "Iowa",
    "KS": "Kansas",
    "KY": "Kentucky",
    "LA": "Louisiana",
    "ME": "Maine",
    "MD": "Maryland",
    "MA": "Massachusetts",
    "MI": "Michigan",
    "MN": "Minnesota",
    "MS": "Mississippi",
    "MO": "Missouri",
    "MT": "Montana",
    "NE": "Nebraska",
    "NV": "Nevada",
    "NH": "New Hampshire",
    "NJ": "New Jersey",
    "NM": "New Mexico",
    "NY": "New York",
    "NC": "North Carolina",
    "ND": "North Dakota",
    "OH": "Ohio",
    "OK": "Oklahoma",
    "OR": "Oregon",
    "PA": "Pennsylvania",
    "RI": "Rhode Island",
    "SC": "South Carolina",
    "SD": "South Dakota",
    "TN": "Tennessee",
    "TX": "Texas",
    "UT": "Utah",
    "VT": "Vermont",
    "VA": "Virginia",
    "WA": "Washington",
    "WV": "West Virginia",
    "WI": "Wisconsin",
    "WY": "Wyoming",
}
"""USPS codes of the places whose law §522(b)(3)(A) can point to (the 50 states and D.C.)."""

FEDERAL = "US"
"""Jurisdiction id of the federal exemptions of 11 U.S.C. §522(d)."""

STATE_SYSTEMS: dict[str, dict[str, str]] = {
    "CA": {
        "CA_704": "California (C.C.P. § 704)",
        "CA_703": "California (C.C.P. § 703.140(b))",
    },
}
"""States whose law offers the debtor more than one exemption system to elect between, by state: each
system's id and name. California's Code of Civil Procedure § 703.140(a) lets a debtor in bankruptcy take
either the exemptions of its chapter 4 other than § 703.140(b) (the § 704 system) or § 703.140(b)'s list,
"but not both". Every other state's law is one system, with the state's own code as its id. Mirrored by
state_system_of/2 in statutes/opt_out.lp (a test checks both agree)."""

JURISDICTION_NAMES: dict[str, str] = {
    FEDERAL: "Federal",
    **STATES,
    **{code: name for systems in STATE_SYSTEMS.values() for code, name in systems.items()},
}
"""Names of jurisdiction ids: Federal, each state, and each system of a state with several."""


def state_of(jurisdiction: str) -> str:
    """The state whose law a jurisdiction id is: "CA_703" -> "CA", "OR" -> "OR", "US" -> "US"."""
    for state, systems in STATE_SYSTEMS.items():
        if jurisdiction in systems:
            return state
    return jurisdiction


def systems_of(state: str) -> tuple[str, ...]:
    """The jurisdiction ids of a state's exemption systems: ("CA_704", "CA_703") for California, else the
    state's own code."""
    return tuple(STATE_SYSTEMS[state]) if state in STATE_SYSTEMS else (state,)

"""The ERI alphabet, query normalisation and the built-in word lists."""

from __future__ import annotations

import math
import re
from typing import Literal

__all__ = [
    "ALPHABET",
    "CASED_ALPHABET",
    "DEFAULT_QUERY_LENGTH",
    "LOG2_26",
    "MAX_LEN",
    "MIN_QUERY_LENGTH",
    "OUTPUT_FORMATS",
    "SYLLABLES",
    "WORDS",
    "OutputFormat",
    "dedupe",
    "letters_of",
    "normalise",
    "normalise_cased",
    "normalise_digits",
    "respace",
]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CASED_ALPHABET = ALPHABET + ALPHABET.lower()
"""The 52 letters of the case-sensitive kinds, numbered A=0 .. Z=25, a=26 .. z=51."""
MAX_LEN = 32
"""Longest plaintext a box accepts, in characters after normalisation (letters and spaces)."""
MIN_QUERY_LENGTH = 8
"""Shortest query length a suite may set. Every kind's log2|H| is the exact number of
distinct functions on plaintexts of at most n characters for every n in [8, 32]: below
8, some transpositions and Vigenere keys of different lengths agree on every query."""
DEFAULT_QUERY_LENGTH: dict[str, int] = {"easy": MAX_LEN, "hard": 8}
"""Query length per level when ``--query-length`` is not given: at 8 characters one answer
carries at most 8 letters, so T_info > 1 for the hard kinds with large key spaces."""
LOG2_26 = math.log2(26)

OutputFormat = Literal["letters", "cased", "digits"]
"""How a kind's ciphertext looks and how answers are normalised before comparing:

- ``letters``: uppercase A-Z and spaces; answers are uppercased (case does not matter);
- ``cased``: A-Z, a-z and spaces, case-sensitive (the plaintext keeps its case too);
- ``digits``: groups of digits 0-9 separated by single spaces; any run of other
  characters in an answer (spaces, commas, dashes) is one separator.

In every format runs of whitespace collapse to one space and the ends are trimmed.
"""
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("letters", "cased", "digits")

# Keywords for the keyword-substitution and Playfair kinds. Order matters: the first
# keyword giving a function is that function's canonical parameter.
WORDS: tuple[str, ...] = (
    "ANCHOR",
    "APRICOT",
    "ARCHIVE",
    "BALCONY",
    "BANJO",
    "BASKET",
    "BEACON",
    "BIOLOGY",
    "BISCUIT",
    "BLANKET",
    "BORDER",
    "BOTTLE",
    "BRAVE",
    "BRIDGE",
    "BUCKET",
    "BUTTER",
    "CABIN",
    "CACTUS",
    "CAMERA",
    "CANDLE",
    "CANYON",
    "CARPET",
    "CASTLE",
    "CEDAR",
    "CHAMBER",
    "CHERRY",
    "CIPHER",
    "CITADEL",
    "CLOVER",
    "COBALT",
    "COMET",
    "COPPER",
    "CORAL",
    "COTTON",
    "CRADLE",
    "CRYSTAL",
    "DAGGER",
    "DANCER",
    "DESERT",
    "DIAMOND",
    "DOLPHIN",
    "DRAGON",
    "EAGLE",
    "ECLIPSE",
    "ELBOW",
    "EMBER",
    "EMPIRE",
    "ENIGMA",
    "FABRIC",
    "FALCON",
    "FEATHER",
    "FIGURE",
    "FLAME",
    "FOREST",
    "FORTUNE",
    "FOSSIL",
    "GALAXY",
    "GARDEN",
    "GARLIC",
    "GENIUS",
    "GLACIER",
    "GOBLIN",
    "GRAVITY",
    "HAMMER",
    "HARBOR",
    "HARVEST",
    "HELMET",
    "HERMIT",
    "HONEY",
    "HORIZON",
    "ISLAND",
    "IVORY",
    "JACKET",
    "JASMINE",
    "JUNGLE",
    "KERNEL",
    "KETTLE",
    "KINGDOM",
    "KNIGHT",
    "LADDER",
    "LANTERN",
    "LEMON",
    "LIBRARY",
    "LIZARD",
    "MAGNET",
    "MANTLE",
    "MARBLE",
    "MEADOW",
    "MIRROR",
    "MONARCH",
    "MOSAIC",
    "MOUNTAIN",
    "MUSEUM",
    "NEPTUNE",
    "NOMAD",
    "OBJECT",
    "OCEAN",
    "ORACLE",
    "ORCHID",
    "OXYGEN",
    "PALACE",
    "PARADOX",
    "PEBBLE",
    "PELICAN",
    "PEPPER",
    "PHANTOM",
    "PILGRIM",
    "PLANET",
    "POCKET",
    "PORTAL",
    "PUZZLE",
    "QUARTZ",
    "QUIVER",
    "RABBIT",
    "RADIANT",
    "RAINBOW",
    "RAVEN",
    "RIDDLE",
    "ROCKET",
    "SADDLE",
    "SAILOR",
    "SALMON",
    "SCARLET",
    "SHADOW",
    "SILVER",
    "SPHINX",
    "SPIRAL",
    "SQUIRREL",
    "STORM",
    "SUMMIT",
    "SYMBOL",
    "TABLET",
    "TEMPLE",
    "THUNDER",
    "TIMBER",
    "TORNADO",
    "TRUMPET",
    "TUNDRA",
    "TURTLE",
    "UMBRELLA",
    "UNICORN",
    "VALLEY",
    "VELVET",
    "VIOLET",
    "VOLCANO",
    "VOYAGE",
    "WALNUT",
    "WHISPER",
    "WIZARD",
    "WONDER",
    "YELLOW",
    "ZEPHYR",
)

# Syllables for held-out plaintexts: pronounceable pseudo-words, so the test items
# look like text without coming from a dictionary an agent might guess.
SYLLABLES: tuple[str, ...] = (
    "BA",
    "BE",
    "BRO",
    "CA",
    "CHI",
    "CO",
    "DA",
    "DE",
    "DRU",
    "FA",
    "FI",
    "GA",
    "GLO",
    "HA",
    "HE",
    "JO",
    "KA",
    "KI",
    "LA",
    "LE",
    "LO",
    "LU",
    "MA",
    "ME",
    "MI",
    "MO",
    "NA",
    "NE",
    "NO",
    "PA",
    "PE",
    "PI",
    "PRA",
    "QUA",
    "RA",
    "RE",
    "RI",
    "RO",
    "SA",
    "SE",
    "SHO",
    "SI",
    "SO",
    "STA",
    "TA",
    "TE",
    "THE",
    "TI",
    "TO",
    "TRI",
    "VA",
    "VE",
    "VI",
    "WA",
    "WE",
    "XA",
    "YO",
    "ZA",
    "ZE",
    "ZU",
    "AN",
    "EN",
    "IN",
    "ON",
    "UN",
    "AR",
    "ER",
    "OR",
    "AL",
    "EL",
    "IS",
    "US",
    "OX",
    "EX",
    "AT",
)


def normalise(text: str) -> str:
    """Uppercase, keep letters A-Z, turn any whitespace into a space, collapse runs, strip."""
    # Tabs and newlines separate words for people and LLMs alike: keep them as spaces.
    kept = "".join(
        " " if ch.isspace() else ch for ch in text.upper() if ch.isspace() or ch in ALPHABET
    )
    return " ".join(kept.split())


def normalise_cased(text: str) -> str:
    """Like :func:`normalise` but keeping case: letters A-Z and a-z, single spaces, trimmed."""
    kept = "".join(
        " " if ch.isspace() else ch for ch in text if ch.isspace() or ch in CASED_ALPHABET
    )
    return " ".join(kept.split())


_DIGIT_RUN = re.compile(r"[0-9]+")


def normalise_digits(text: str) -> str:
    """The runs of digits 0-9 in ``text``, joined by single spaces (everything else separates)."""
    return " ".join(_DIGIT_RUN.findall(text))


def letters_of(text: str) -> str:
    """The letters of a normalised text, spaces removed."""
    return text.replace(" ", "")


def respace(letters: str, template: str) -> str:
    """Put ``letters`` back into the non-space positions of ``template`` (same letter count)."""
    if " " not in template:
        return letters
    out: list[str] = []
    it = iter(letters)
    for ch in template:
        out.append(" " if ch == " " else next(it))
    return "".join(out)


def dedupe(text: str) -> str:
    """The letters of ``text`` in order of first appearance, each once."""
    seen: dict[str, None] = {}
    for ch in text:
        seen.setdefault(ch, None)
    return "".join(seen)

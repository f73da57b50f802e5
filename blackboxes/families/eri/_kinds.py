"""Which cipher kinds exist and which level samples them."""

from __future__ import annotations

from blackboxes.box import Level
from blackboxes.families.eri._autokey import Autokey52Kind, AutokeyKind, CipherAutokeyKind
from blackboxes.families.eri._cased import Shift52Kind, Vigenere52Kind
from blackboxes.families.eri._coded import (
    BaconKind,
    Code01248Kind,
    PolybiusKeywordKind,
    PolybiusKind,
)
from blackboxes.families.eri._composition import CompositionKind, LetterChainKind
from blackboxes.families.eri._digraph import HillKind, PlayfairKind
from blackboxes.families.eri._frequency import FrequencyShiftKind
from blackboxes.families.eri._kind import CipherKind
from blackboxes.families.eri._letterwise import (
    AffineKind,
    CaesarKind,
    KeywordKind,
    SubstitutionKind,
)
from blackboxes.families.eri._numeric import KnapsackKind, RsaPairsKind
from blackboxes.families.eri._periodic import ProgressiveKind, VigenereKind
from blackboxes.families.eri._polyalphabetic import PolyalphabeticKind
from blackboxes.families.eri._transposition import ColumnarKind, RailFenceKind

__all__ = ["KINDS", "LEVEL_KINDS"]

_AFFINE, _SUBSTITUTION, _VIGENERE = AffineKind(), SubstitutionKind(), VigenereKind()
_CAESAR, _KEYWORD = CaesarKind(), KeywordKind()
_RAILFENCE, _COLUMNAR = RailFenceKind(), ColumnarKind()

KINDS: dict[str, CipherKind] = {
    kind.name: kind
    for kind in (
        _CAESAR,
        _AFFINE,
        _KEYWORD,
        _SUBSTITUTION,
        _VIGENERE,
        ProgressiveKind(),
        _RAILFENCE,
        _COLUMNAR,
        PlayfairKind(),
        HillKind(),
        CompositionKind(_AFFINE, _RAILFENCE),
        CompositionKind(_VIGENERE, _COLUMNAR),
        CompositionKind(_SUBSTITUTION, _COLUMNAR),
        CompositionKind(LetterChainKind(_KEYWORD, _CAESAR), _RAILFENCE),
        PolybiusKeywordKind(),
        KnapsackKind(),
        Shift52Kind(),
        AutokeyKind(),
        CipherAutokeyKind(),
        FrequencyShiftKind(),
        PolybiusKind(),
        BaconKind(),
        Code01248Kind(),
        RsaPairsKind(),
        Vigenere52Kind(),
        Autokey52Kind(),
        PolyalphabeticKind(),
    )
}

LEVEL_KINDS: dict[Level, tuple[str, ...]] = {
    "easy": (
        "caesar",
        "affine",
        "keyword",
        "substitution",
        "vigenere",
        "progressive",
        "railfence",
        "columnar",
        "polybius_keyword",
        "knapsack",
        "shift52",
    ),
    "hard": (
        "playfair",
        "hill",
        "affine_railfence",
        "vigenere_columnar",
        "substitution_columnar",
        "keyword_caesar_railfence",
        "autokey",
        "cipher_autokey",
        "frequency_shift",
        "polybius",
        "bacon",
        "code01248",
        "rsa_pairs",
        "vigenere52",
        "autokey52",
        "polyalphabetic",
    ),
}

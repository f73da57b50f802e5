"""ERI, encryption rule inference: infer a hidden cipher from plaintext -> ciphertext queries.

Importing this package registers the family (``get_family("ERI")``).
"""

from blackboxes.families.eri._alphabet import ALPHABET, MAX_LEN, normalise
from blackboxes.families.eri._family import EncryptionRuleInference
from blackboxes.families.eri._kind import CipherKind
from blackboxes.families.eri._kinds import KINDS, LEVEL_KINDS

__all__ = [
    "ALPHABET",
    "KINDS",
    "LEVEL_KINDS",
    "MAX_LEN",
    "CipherKind",
    "EncryptionRuleInference",
    "normalise",
]

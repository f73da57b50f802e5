"""The domain: the Box format, families, rules, hypothesis and version spaces."""

from blackboxes.box import (
    Attempt,
    BoxEntry,
    BoxInfo,
    CallRecord,
    DfaBaselineCost,
    DfaBoxInfo,
    HiddenInfo,
    JSONValue,
    Level,
    Provenance,
    SuiteInfo,
    Verdict,
)
from blackboxes.families import Family, HypothesisSpace, Rule, family_names, get_family
from blackboxes.information import (
    MixtureVersionSpace,
    Predictive,
    VersionSpace,
    expected_information,
    realised_information,
)
from blackboxes.store import Box, load_box, load_suite, load_suite_boxes, write_box, write_suite

__all__ = [
    "Attempt",
    "Box",
    "BoxEntry",
    "BoxInfo",
    "CallRecord",
    "DfaBaselineCost",
    "DfaBoxInfo",
    "Family",
    "HiddenInfo",
    "HypothesisSpace",
    "JSONValue",
    "Level",
    "MixtureVersionSpace",
    "Predictive",
    "Provenance",
    "Rule",
    "SuiteInfo",
    "Verdict",
    "VersionSpace",
    "expected_information",
    "family_names",
    "get_family",
    "load_box",
    "load_suite",
    "load_suite_boxes",
    "realised_information",
    "write_box",
    "write_suite",
]

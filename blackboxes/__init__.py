"""The domain: the Box format, families, rules, hypothesis and version spaces."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oracle_bench._lazy import lazy_exports

if TYPE_CHECKING:
    from blackboxes.box import (
        Attempt,
        BoxEntry,
        BoxFacts,
        BoxInfo,
        CallRecord,
        DfaBaselineCost,
        DfaBoxInfo,
        DfaFacts,
        HiddenInfo,
        JSONValue,
        Level,
        Provenance,
        SuiteInfo,
        SuiteOwnerInfo,
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
    from blackboxes.store import (
        Box,
        load_box,
        load_owner,
        load_suite,
        load_suite_boxes,
        seed_commitment,
        write_box,
        write_suite,
    )
else:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "blackboxes.box": (
                "Attempt",
                "BoxEntry",
                "BoxFacts",
                "BoxInfo",
                "CallRecord",
                "DfaBaselineCost",
                "DfaBoxInfo",
                "DfaFacts",
                "HiddenInfo",
                "JSONValue",
                "Level",
                "Provenance",
                "SuiteInfo",
                "SuiteOwnerInfo",
                "Verdict",
            ),
            "blackboxes.families": (
                "Family",
                "HypothesisSpace",
                "Rule",
                "family_names",
                "get_family",
            ),
            "blackboxes.information": (
                "MixtureVersionSpace",
                "Predictive",
                "VersionSpace",
                "expected_information",
                "realised_information",
            ),
            "blackboxes.store": (
                "Box",
                "load_box",
                "load_owner",
                "load_suite",
                "load_suite_boxes",
                "seed_commitment",
                "write_box",
                "write_suite",
            ),
        },
    )

__all__ = [
    "Attempt",
    "Box",
    "BoxEntry",
    "BoxFacts",
    "BoxInfo",
    "CallRecord",
    "DfaBaselineCost",
    "DfaBoxInfo",
    "DfaFacts",
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
    "SuiteOwnerInfo",
    "Verdict",
    "VersionSpace",
    "expected_information",
    "family_names",
    "get_family",
    "load_box",
    "load_owner",
    "load_suite",
    "load_suite_boxes",
    "realised_information",
    "seed_commitment",
    "write_box",
    "write_suite",
]

"""``oracle-publish``: Docker images that serve a suite (or one box) over HTTP.

:func:`publish_suite` builds them through the docker SDK; :func:`plan_images` and
:func:`write_context` say what an image holds without an engine. The server inside is
``python3 -m evaluator.serve /srv/suite`` (see :data:`SERVE_PORT`).
"""

from __future__ import annotations

from evaluator.publish._closure import Distribution, serve_distributions
from evaluator.publish._context import (
    IMAGE_SUITE_DIR,
    SERVE_PORT,
    SERVER_GID,
    SERVER_UID,
    SITE_DIR,
    BuildContext,
    ImagePlan,
    image_labels,
    plan_images,
    suite_digest,
    write_context,
)
from evaluator.publish.builder import (
    BaseImageFacts,
    PublishedImage,
    probe_base_image,
    publish_suite,
    save_image,
)

__all__ = [
    "IMAGE_SUITE_DIR",
    "SERVER_GID",
    "SERVER_UID",
    "SERVE_PORT",
    "SITE_DIR",
    "BaseImageFacts",
    "BuildContext",
    "Distribution",
    "ImagePlan",
    "PublishedImage",
    "image_labels",
    "plan_images",
    "probe_base_image",
    "publish_suite",
    "save_image",
    "serve_distributions",
    "suite_digest",
    "write_context",
]

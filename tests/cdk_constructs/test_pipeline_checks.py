"""cdk_constructs/pipeline_checks.py: a generated wildcard without a reviewed reason is refused."""

from __future__ import annotations

import pytest

from cdk_constructs import pipeline_checks


def test_a_generated_wildcard_without_a_reviewed_reason_is_refused():
    with pytest.raises(ValueError, match="no reviewed reason"):
        pipeline_checks._reason("Pipeline/Role/DefaultPolicy", "Resource::arn:<AWS::Partition>:s3:::other-bucket/*")
    with pytest.raises(ValueError, match="no reviewed reason"):  # `Resource::*` is reviewed per policy only
        pipeline_checks._reason("Build/Synth/CdkBuildProject/Role/DefaultPolicy", "Resource::*")
    with pytest.raises(ValueError, match="no reviewed reason"):  # a literal `*` matches only itself
        pipeline_checks._reason("Pipeline/Role/DefaultPolicy", "Action::s3:*")

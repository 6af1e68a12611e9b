"""cdk-nag is wired so that a finding stops synth, and acknowledgements need a reason."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_s3 as s3

from cdk_constructs.nag_checks import acknowledge, enable_nag


def _app_with_unlogged_bucket(tmp_path, *, acknowledged: bool) -> cdk.App:
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Probe")
    bucket = s3.Bucket(stack, "Bucket", enforce_ssl=True)
    if acknowledged:
        acknowledge(bucket, "S1", "the probe bucket is the log destination itself")
    enable_nag(app)
    return app


def test_an_unacknowledged_finding_fails_synth(tmp_path):
    with pytest.raises(RuntimeError, match=r"Validation ?[Ff]ailed"):
        _app_with_unlogged_bucket(tmp_path, acknowledged=False).synth()


def test_an_acknowledged_finding_lets_synth_pass(tmp_path):
    assembly = _app_with_unlogged_bucket(tmp_path, acknowledged=True).synth()
    assert assembly.get_stack_by_name("Probe").template["Resources"]


def test_an_acknowledgement_without_a_reason_is_refused():
    stack = cdk.Stack(cdk.App(), "Probe")
    with pytest.raises(ValueError, match="needs a real reason"):
        acknowledge(stack, "S1", "because")

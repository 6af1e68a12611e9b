"""The example config synthesizes into the expected stacks, clean under cdk-nag and cfn-lint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def test_one_platform_stack_and_one_stack_per_listed_tenant(synthesized):
    assert sorted(synthesized.templates) == ["dev-acme", "dev-globex", "dev-platform"]


def test_cdk_nag_reported_no_unacknowledged_findings(synthesized):
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    failures = [plugin for plugin in report["pluginReports"] if plugin["conclusion"] != "success"]
    assert failures == []


def _iam_acknowledgements(synthesized) -> list[dict]:
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    return [
        violation
        for plugin in report["pluginReports"]
        for violation in plugin.get("suppressedViolations", [])
        if violation["ruleName"].startswith(("AwsSolutions-IAM4", "AwsSolutions-IAM5"))
    ]


def test_every_iam_acknowledgement_cites_an_aws_documentation_page(synthesized):
    acknowledged = _iam_acknowledgements(synthesized)
    assert acknowledged, "the dev templates have IAM5 acknowledgements (wildcards with reasons)"
    without_page = {
        (violation["acknowledgedAt"], violation["ruleName"]): violation["reason"]
        for violation in acknowledged
        if "https://docs.aws.amazon.com/" not in violation["reason"]
    }
    assert without_page == {}


def test_every_template_passes_cfn_lint_without_errors(synthesized):
    templates = sorted(str(path) for path in synthesized.outdir.glob("*.template.json"))
    assert len(templates) == 3
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "cfn-lint"),
            "--format",
            "parseable",
            "--non-zero-exit-code",
            "error",
            *templates,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_tenant_stacks_are_tagged_with_environment_and_tenant(synthesized):
    metadata = json.loads((synthesized.outdir / "manifest.json").read_text())
    tags = metadata["artifacts"]["dev-acme"]["properties"].get("tags", {})
    # acme's file sets cost_center (tests/stacks/test_cost_tags.py checks every resource)
    assert tags == {"akb:environment": "dev", "akb:tenant": "acme", "akb:cost-center": "support-emea"}

"""Synthesizes a config directory into a cloud assembly in-process (no CDK CLI, no AWS)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import aws_cdk as cdk

from schema import Project, load_project
from stacks.app_builder import build_app
from stacks.cdk_context import cdk_json_context


@dataclass
class Synthesized:
    project: Project
    outdir: Path
    templates: dict[str, dict]

    def template(self, stack_name: str) -> dict:
        return self.templates[stack_name]

    def resources(self, stack_name: str, resource_type: str) -> dict[str, dict]:
        resources = self.templates[stack_name].get("Resources", {})
        return {key: value for key, value in resources.items() if value["Type"] == resource_type}


def synthesize(config_dir: Path | str, env_name: str, outdir: Path) -> Synthesized:
    project = load_project(config_dir, env_name)
    app = cdk.App(outdir=str(outdir), context=cdk_json_context())
    stacks = build_app(app, project)
    app.synth()
    templates = {
        name: json.loads((outdir / f"{stack.artifact_id}.template.json").read_text()) for name, stack in stacks.items()
    }
    return Synthesized(project=project, outdir=outdir, templates=templates)


def nag_and_lint_problems(outdir: Path) -> list[str]:
    """cdk-nag's failed plugin reports and cfn-lint's errors over every template of a synthesized assembly."""
    import subprocess
    import sys

    report = json.loads((outdir / "validation-report.json").read_text())
    problems = [json.dumps(p) for p in report["pluginReports"] if p["conclusion"] != "success"]
    templates = sorted(str(path) for path in outdir.glob("*.template.json"))
    lint = Path(sys.executable).parent / "cfn-lint"
    result = subprocess.run(
        [str(lint), "--format", "parseable", "--non-zero-exit-code", "error", *templates],
        capture_output=True,
        text=True,
        check=False,
    )
    return problems + ([result.stdout + result.stderr] if result.returncode != 0 else [])

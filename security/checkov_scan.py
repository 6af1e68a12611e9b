"""`make scan`: checkov over the synthesized CloudFormation templates, with reviewed skips only.

checkov runs from its own virtualenv (.venv-checkov; it pins an older boto3 than the app's). Skip
comments cannot be written into generated JSON, so every accepted finding is a row of
`security/checkov-skips.yaml` (check id + resource + reason), listed again in docs/security.md.
This script fails on any finding without a row, and on any row that no longer matches a finding
(a skip must not outlive its reason).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SKIPS_FILE = Path(__file__).with_name("checkov-skips.yaml")
DEFAULT_CHECKOV = Path(".venv-checkov/bin/checkov")


@dataclass(frozen=True)
class Finding:
    """One failed check on one resource of one template."""

    check_id: str
    check_name: str
    resource: str  # checkov's `<Type>.<LogicalId>`
    template: str

    def __str__(self) -> str:
        return f"{self.check_id} {self.resource} ({Path(self.template).name}): {self.check_name}"


@dataclass(frozen=True)
class Skip:
    """A reviewed finding: `resource` may use fnmatch wildcards; `reason` says why it stays."""

    check_id: str
    resource: str
    reason: str

    def matches(self, finding: Finding) -> bool:
        return finding.check_id == self.check_id and fnmatch.fnmatchcase(finding.resource, self.resource)


def load_skips(path: Path = SKIPS_FILE) -> list[Skip]:
    """The skip list; an entry without a reason is an error, not a silent skip."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    skips = []
    for index, entry in enumerate(entries):
        reason = str(entry.get("reason", "")).strip()
        if not reason or not entry.get("check") or not entry.get("resource"):
            raise ValueError(f"{path}: entry {index} needs check, resource and a non-empty reason")
        skips.append(Skip(check_id=entry["check"], resource=entry["resource"], reason=reason))
    return skips


def failed_checks(report: Any) -> list[Finding]:
    """Findings from checkov's `-o json` report (one dict per framework, or a list of them)."""
    reports = report if isinstance(report, list) else [report]
    findings = []
    for part in reports:
        for item in part.get("results", {}).get("failed_checks", []):
            findings.append(
                Finding(
                    check_id=item["check_id"],
                    check_name=item.get("check_name", ""),
                    resource=item["resource"],
                    template=item.get("file_path", ""),
                )
            )
    return findings


def triage(findings: list[Finding], skips: list[Skip]) -> tuple[list[Finding], list[Skip]]:
    """(findings no skip explains, skips that explain no finding)."""
    unexplained = [finding for finding in findings if not any(skip.matches(finding) for skip in skips)]
    unused = [skip for skip in skips if not any(skip.matches(finding) for finding in findings)]
    return unexplained, unused


def run_checkov(checkov: Path, templates: list[Path]) -> Any:
    """checkov's JSON report over the given templates (its exit code only says 'some check failed')."""
    # --skip-download: no Prisma Cloud lookups (CI has no route there; the checks ship with checkov).
    command = [str(checkov), "--quiet", "--compact", "--skip-download", "--framework", "cloudformation", "-o", "json"]
    for template in templates:
        command += ["-f", str(template)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1) or not result.stdout.strip():
        raise RuntimeError(f"checkov failed (exit {result.returncode}): {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assemblies", type=Path, nargs="+", help="cdk.out directories (one per environment)")
    parser.add_argument("--checkov", type=Path, default=DEFAULT_CHECKOV)
    args = parser.parse_args(argv)
    templates = sorted(path for assembly in args.assemblies for path in assembly.glob("*.template.json"))
    if not templates:
        print(f"no *.template.json in {', '.join(map(str, args.assemblies))}: run the synth first", file=sys.stderr)
        return 2
    findings = failed_checks(run_checkov(args.checkov, templates))
    unexplained, unused = triage(findings, load_skips())
    for finding in unexplained:
        print(f"UNEXPLAINED  {finding}", file=sys.stderr)
    for skip in unused:
        print(f"STALE SKIP   {skip.check_id} {skip.resource}: matches no finding; remove it", file=sys.stderr)
    explained = len(findings) - len(unexplained)
    print(f"checkov: {len(templates)} templates, {len(findings)} findings, {explained} skipped with a reason")
    return 1 if unexplained or unused else 0


if __name__ == "__main__":
    sys.exit(main())

"""`akb eval --gate`: the tenant's golden set through `akb eval`, then the verdict, the report, the CloudWatch figures
and, with `--promote-baseline`, the new baseline (docs/evaluation.md, The quality gate).

`plan_gate` turns the command line and the tenant's `quality:` block into what `akb eval` runs (questions, modes,
output folder, the canary identity, where the baseline lives) before any request; `finish_gate` takes the
evaluation's report and returns the exit status: 0 pass, 3 a figure regressed (or a request failed), 1 the gate
could not judge (baseline unreadable or not written).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from client.evaluation.baseline_store import BaselineError, BaselineStore, FileBaselineStore, SsmBaselineStore
from schema.eval_dataset import EvalItem
from schema.quality_config import (
    DEFAULT_SESSION_NAME,
    RECALL_K,
    GateIdentity,
    Quality,
    gate_identity,
    golden_set_path,
)

GATE_FAILED_EXIT = 3
PIPE_WIDTH = 200
LOCAL_BASELINES = Path("eval-out") / "baselines"


@dataclass(frozen=True)
class GatePlan:
    env_name: str
    tenant: str
    region: str
    quality: Quality
    items: list[EvalItem]
    golden_set: Path
    identity: GateIdentity
    out_dir: Path
    store: BaselineStore
    local: bool
    promote: bool

    @property
    def modes(self) -> list[str]:
        return list(self.quality.modes)

    def ks(self, requested: list[int]) -> list[int]:
        """The cut-offs to report: the requested ones and the gate's Recall@5."""
        return sorted({*requested, RECALL_K})

    def finish(self, report: dict[str, Any]) -> int:
        return finish_gate(self, report)


@dataclass(frozen=True)
class GateRequest:
    """The command line's part: where the tenant runs and what to do with a passing run."""

    gate: bool
    config_dir: Path
    env_name: str
    tenant: str | None
    local: bool
    url: str | None
    promote: bool
    baseline_file: Path | None
    out_dir: Path | None


def plan_gate(request: GateRequest, conflicting: Mapping[str, object]) -> GatePlan:
    """What `akb eval` runs for the gate; a usage error (exit 2) or a config problem (exit 1) before any request.
    `conflicting`: options of a plain evaluation, refused with --gate (the whole golden set runs, as configured)."""
    from client.options import load_or_exit
    from schema.quality_config import load_golden_set

    if not request.gate:
        raise click.UsageError("--promote-baseline and --baseline-file need --gate")
    given = [option for option, value in conflicting.items() if value is not None]
    if given:
        raise click.UsageError(f"--gate runs the tenant's whole golden set as configured: remove {', '.join(given)}")
    if request.url or not request.tenant:
        raise click.UsageError(
            "--gate runs a configured tenant's golden set: --env ENV --tenant T, or --local --tenant T"
        )
    if request.baseline_file is not None and not request.local:
        raise click.UsageError("--baseline-file is for --local; a deployed tenant's baseline is in SSM Parameter Store")
    project = load_or_exit(request.config_dir, request.env_name)
    tenant = project.tenants.get(request.tenant)
    if tenant is None:
        known = ", ".join(project.tenants) or "none"
        raise click.ClickException(f"tenant '{request.tenant}' is not in environment '{request.env_name}' ({known})")
    if tenant.quality is None:
        raise click.ClickException(
            f"tenant '{request.tenant}' has no quality: block in {request.config_dir}/tenants/{request.tenant}.yaml: "
            "add a golden set and thresholds (docs/evaluation.md, The quality gate)"
        )
    kind = "local" if request.local else "deployed"
    name = f"{request.env_name}-{request.tenant}"
    return GatePlan(
        env_name=request.env_name,
        tenant=request.tenant,
        region=project.environment.region,
        quality=tenant.quality,
        items=load_golden_set(project.config_dir, tenant.quality),  # validated with the config: it parses
        golden_set=golden_set_path(project.config_dir, tenant.quality),
        # Locally the endpoint's default caller is one the tenant vouches for (client/local_settings.py).
        identity=GateIdentity(None, DEFAULT_SESSION_NAME)
        if request.local
        else gate_identity(tenant.user_context, tenant.canary),
        out_dir=request.out_dir or Path("eval-out") / f"gate-{kind}-{name}",
        store=_store(request, project.environment.region, name),
        local=request.local,
        promote=request.promote,
    )


def _store(request: GateRequest, region: str, name: str) -> BaselineStore:
    if request.local:
        return FileBaselineStore(request.baseline_file or LOCAL_BASELINES / f"local-{name}.json")
    import boto3

    return SsmBaselineStore(boto3.client("ssm", region_name=region), request.env_name, request.tenant or "")


def _console() -> Any:
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=PIPE_WIDTH)


def finish_gate(plan: GatePlan, report: dict[str, Any]) -> int:
    """Judges the report, prints and writes the gate's report, puts the figures (deployed), promotes if asked."""
    from client.evaluation.gate import baseline_record, evaluate, golden_set_fingerprint
    from client.evaluation.gate_report import render, write

    console = _console()
    try:
        baseline = plan.store.load()
    except BaselineError as error:
        click.echo(f"the gate cannot compare with its baseline: {error}", err=True)
        return 1
    result = evaluate(report, plan.quality, golden_set_fingerprint(plan.items), baseline, plan.local)
    meta = {
        "environment": plan.env_name,
        "tenant": plan.tenant,
        "target": report.get("target"),
        "targetKey": report.get("targetKey"),
        "goldenSet": str(plan.golden_set),
        "questions": len(plan.items),
        "generatedAt": report.get("generatedAt"),
        "baseline": plan.store.where,
        **({"disclaimer": report["disclaimer"]} if report.get("disclaimer") else {}),
    }
    render(result, console, f"Quality gate: {plan.tenant} in {plan.env_name} (baseline: {plan.store.where})")
    written = write(result, meta, plan.out_dir)
    console.print("wrote " + ", ".join(map(str, written)))
    if not plan.local:
        _put_figures(plan, result, console)
    if plan.promote:
        if not result.passed:
            console.print("not promoted: a failing run never becomes the baseline")
        else:
            try:
                plan.store.save(baseline_record(result, str(report.get("targetKey"))))
            except BaselineError as error:
                click.echo(f"the run passed but could not be promoted: {error}", err=True)
                return 1
            console.print(f"promoted: this run is the new baseline ({plan.store.where})")
    return 0 if result.passed else GATE_FAILED_EXIT


def _put_figures(plan: GatePlan, result: Any, console: Any) -> None:
    import boto3

    from client.evaluation.gate_metrics import put_figures

    problem = put_figures(boto3.client("cloudwatch", region_name=plan.region), result, plan.env_name, plan.tenant)
    if problem:
        console.print(f"[yellow]{problem}: the tenant's quality alarms see no figures of this run[/yellow]")

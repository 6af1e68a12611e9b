"""A tenant's `quality:` block: the golden set the quality gate runs, its thresholds and tolerance (docs/evaluation.md).

`akb eval --gate` asks the golden set (a JSONL file in the config folder, the format of `akb eval`'s datasets:
schema/eval_dataset.py) of the deployed or local tenant, compares each figure with the thresholds here and
with the last promoted baseline, and fails on any regression; the promotion pipeline runs it after each
stage (docs/pipeline.md) and `schedule` runs it periodically in the environments it names.

The model checks what one file can say; `quality_file_problems` checks what needs the config folder: the
golden set exists inside it, parses (every problem with its line), names only this tenant's knowledge
bases, and the schedule's environments exist. Every problem names the tenant file and the field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field

from contract.enums import Mode
from schema.canary_config import Canary
from schema.common import Name, StrictModel, unique
from schema.config_errors import Problem
from schema.eval_dataset import DatasetError, EvalItem, load_dataset, read_lines, scan_lines
from schema.yaml_files import available

if TYPE_CHECKING:
    from schema.tenant import Tenant

GOLDEN_SET_FIELD = "quality.golden_set"
# The cut-off of the gate's recall figure: Recall@5 (docs/evaluation.md, What is measured).
RECALL_K = 5
# What a schedule's `every` means as an EventBridge rate expression (ledger: EventBridge schedules).
SCHEDULE_RATES = {"daily": "rate(1 day)", "weekly": "rate(7 days)"}
SCHEDULE_SECONDS = {"daily": 86_400, "weekly": 604_800}


def _relative_path(value: str) -> str:
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value:
        raise ValueError(
            f"'{value}' must be a path inside the config folder, relative to it (e.g. quality/acme.jsonl): the "
            "pipeline and the scheduled gate see only that folder"
        )
    if path.suffix != ".jsonl":
        raise ValueError(f"'{value}' must be a .jsonl file (one JSON object per line, like local/eval/sample.jsonl)")
    return value


GoldenSetPath = Annotated[str, AfterValidator(_relative_path)]
Share = Annotated[float, Field(ge=0, le=1)]


class QualityThresholds(StrictModel):
    """Absolute bounds; each figure is checked per mode, and a figure left unset is not checked against one."""

    min_recall_at_5: Share | None = Field(
        None, description="Least Recall@5 (gold evidence found in the top 5 documents, averaged). Default: unchecked."
    )
    min_mrr: Share | None = Field(
        None, description="Least MRR (1 / rank of the first relevant document, averaged). Default: unchecked."
    )
    min_complete_rate: Share | None = Field(
        None,
        description="Least share of requests that ended with stopReason `complete` (the planner judged its evidence "
        "sufficient). Default: unchecked.",
    )
    max_p95_seconds: float | None = Field(
        None, gt=0, le=900, description="Most p95 time to answer (request to end of stream, measured by the gate)."
    )
    max_cost_per_question_usd: float | None = Field(
        None, ge=0, le=10, description="Most mean estimated cost per question (the endpoint's own estimate)."
    )


class QualityTolerance(StrictModel):
    """How far a figure may move against the last promoted baseline before it counts as a regression."""

    max_drop: Share = Field(
        0.05, description="Recall@5, MRR and complete rate may fall this much (absolute, 0-1) below the baseline."
    )
    max_latency_increase_percent: float = Field(
        50, ge=0, le=1000, description="p95 time to answer may rise this many percent above the baseline."
    )
    max_cost_increase_percent: float = Field(
        10, ge=0, le=1000, description="Cost per question may rise this many percent above the baseline."
    )


class QualitySchedule(StrictModel):
    """Opt-in: the same gate on a schedule (an EventBridge rule starting a CodeBuild project in the tenant stack),
    its figures to CloudWatch, alarms on a drop. Promotes no baseline."""

    environments: Annotated[list[Name], AfterValidator(lambda v: unique(v, "environment"))] = Field(
        min_length=1, description="Environments whose tenant stack gets the schedule, e.g. [prod]."
    )
    every: Literal["daily", "weekly"] = Field("daily", description="How often the scheduled gate runs.")


def _default_modes() -> list[Mode]:
    return ["agentic"]


class Quality(StrictModel):
    """The quality gate of this tenant (docs/evaluation.md, The quality gate)."""

    golden_set: GoldenSetPath = Field(
        description="The golden set: a JSONL file relative to the config folder (e.g. quality/acme.jsonl), in the "
        "format of `akb eval` datasets; documents are `<knowledge-base alias>/<path>` of this tenant."
    )
    modes: Annotated[list[Mode], AfterValidator(lambda v: unique(v, "mode"))] = Field(
        default_factory=_default_modes, min_length=1, description="The modes the gate checks (default agentic)."
    )
    thresholds: QualityThresholds = Field(
        default_factory=QualityThresholds, description="Absolute bounds per figure (unset: unchecked)."
    )
    tolerance: QualityTolerance = Field(
        default_factory=QualityTolerance, description="How far each figure may move against the last baseline."
    )
    schedule: QualitySchedule | None = Field(None, description="Opt-in: run the gate on a schedule. Default: none.")

    def scheduled_in(self, env_name: str) -> bool:
        return self.schedule is not None and env_name in self.schedule.environments


# botocore sts AssumeRoleRequest.RoleSessionName: 2-64 of [\w+=,.@-] (ledger: the quality gate).
SESSION_NAME = re.compile(r"[\w+=,.@-]{2,64}")
# The session name of a gate that asks as nobody in particular (user_context none, or no canary user).
DEFAULT_SESSION_NAME = "akb-quality-gate"


@dataclass(frozen=True)
class GateIdentity:
    """How the gate asks as the tenant's canary user: the request's `userId` (a trusted invoker, user_context
    trusted) or the session name of the role it assumes (user_context caller: the endpoint takes the session name of
    an invoker listed with user_id_from_session_name, whose trust policy pins it)."""

    user_id: str | None
    session_name: str


def gate_identity(user_context: str, canary: Canary | None) -> GateIdentity:
    if canary is None or user_context == "none":
        return GateIdentity(None, DEFAULT_SESSION_NAME)
    if user_context == "trusted":
        return GateIdentity(canary.user_id, DEFAULT_SESSION_NAME)
    return GateIdentity(None, canary.user_id)


def check_gate_identity(quality: Quality, user_context: str, canary: Canary | None) -> None:
    """The canary user the gate asks as must be expressible; a schedule must have one where documents carry ACLs."""
    if quality.schedule is not None and user_context != "none" and canary is None:
        raise ValueError(
            f"quality.schedule needs canary.user_id with user_context {user_context}: the scheduled gate asks as that "
            "user (docs/evaluation.md, The quality gate)"
        )
    if user_context == "trusted" and canary is None:
        raise ValueError(
            "quality: with user_context trusted needs canary.user_id: the gate is a trusted caller, and a trusted "
            "caller must name the end user it asks for (docs/security.md)"
        )
    if user_context == "caller" and canary is not None and not SESSION_NAME.fullmatch(canary.user_id):
        raise ValueError(
            f"canary.user_id '{canary.user_id}' cannot be a role session name (2-64 letters, digits and _+=,.@-): with "
            "user_context caller the quality gate asks as the role session of that name"
        )


def golden_set_path(config_dir: Path, quality: Quality) -> Path:
    return Path(config_dir) / quality.golden_set


def load_golden_set(config_dir: Path, quality: Quality) -> list[EvalItem]:
    """The golden set's items; raises DatasetError (every problem with its line) as `load_dataset` does."""
    return load_dataset(golden_set_path(config_dir, quality))


def quality_file_problems(
    config_dir: Path, tenant_file: Path, tenant: Tenant, env_name: str, uses_api: bool | None
) -> list[Problem]:
    """What the tenant file's `quality:` block names outside itself: the golden set, the schedule's environments,
    and the front door the scheduled gate asks through (`uses_api`: None when the environment is invalid)."""
    quality = tenant.quality
    if quality is None:
        return []
    environments = available(Path(config_dir) / "environments")
    problems = [
        Problem(
            str(tenant_file),
            f"quality.schedule.environments[{index}]",
            f"unknown environment '{name}': no file environments/{name}.yaml "
            f"(environments: {', '.join(environments) or 'none'})",
        )
        for index, name in enumerate(quality.schedule.environments if quality.schedule else [])
        if name not in environments
    ]
    if uses_api and quality.scheduled_in(env_name):
        problems.append(
            Problem(
                str(tenant_file),
                "quality.schedule",
                f"the scheduled gate asks through the function URL, and {env_name} gives this tenant the API Gateway "
                "front door: run the gate from the pipeline (docs/pipeline.md) or leave this environment out",
            )
        )
    return [
        *problems,
        *golden_set_problems(config_dir, tenant_file, quality, [kb.alias for kb in tenant.knowledge_bases]),
    ]


def golden_set_problems(config_dir: Path, tenant_file: Path, quality: Quality, aliases: Sequence[str]) -> list[Problem]:
    """The golden set exists, parses (each problem with its line) and names only the tenant's knowledge bases."""
    path = golden_set_path(config_dir, quality)
    if not path.is_file():
        return [Problem(str(tenant_file), GOLDEN_SET_FIELD, f"no file {path}: write the golden set there")]
    try:
        items, problems = scan_lines(read_lines(path), str(path))
    except DatasetError as error:
        items, problems = [], error.problems
    problems = sorted([*problems, *alias_problems(path, items, aliases)], key=_line_order)
    return [Problem(str(tenant_file), GOLDEN_SET_FIELD, line) for line in problems]


def _line_order(problem: str) -> int:
    """`file:N: ...` sorts by N (the file's own problems, without a line, first)."""
    _, _, rest = problem.partition(".jsonl:")
    number = rest.split(":", 1)[0]
    return int(number) if number.isdigit() else 0


def alias_problems(path: Path, items: Sequence[EvalItem], aliases: Sequence[str]) -> list[str]:
    """Gold documents and `knowledge_bases` that name no knowledge base of the tenant, `file:line: field: message`."""
    known = ", ".join(aliases)
    problems = []
    for item in items:
        named = [alternative for entry in item.documents for alternative in _alternatives(entry)]
        strangers = sorted({doc.split("/", 1)[0] for doc in named if doc.split("/", 1)[0] not in aliases})
        if strangers:
            problems.append(
                f"{path}:{item.line}: documents: knowledge base {', '.join(strangers)} is not one of this tenant's "
                f"({known}); write documents as <alias>/<path>"
            )
        unknown = [alias for alias in item.knowledge_bases if alias not in aliases]
        if unknown:
            problems.append(f"{path}:{item.line}: knowledge_bases: {', '.join(unknown)} not among {known}")
    return problems


def _alternatives(entry: str | tuple[str, ...]) -> tuple[str, ...]:
    return (entry,) if isinstance(entry, str) else entry

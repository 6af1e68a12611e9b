"""What the promotion pipeline's quality gate needs of a stage (docs/pipeline.md, The quality gate stage).

A stage whose environment has tenants with `quality:` runs the gate after `akb verify`, as the environment's
`quality_gate_role_arn`; without that role the gate could not ask, so the pipeline file is refused, naming the
stage and the environment file to complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schema.config_errors import Problem
from schema.front_door_checks import tenant_front_door
from schema.loader import Project
from schema.quality_config import gate_identity


@dataclass(frozen=True)
class GatedTenant:
    """A tenant the stage's gate asks: how its endpoint is reached and the session name the gate asks as."""

    name: str
    session_name: str
    uses_api: bool


def gated_tenants(project: Project) -> list[GatedTenant]:
    """The environment's tenants with `quality:`, in the environment's order."""
    return [
        GatedTenant(
            name,
            gate_identity(tenant.user_context, tenant.canary).session_name,
            tenant_front_door(project.environment, tenant).uses_api,
        )
        for name, tenant in project.tenants.items()
        if tenant.quality is not None
    ]


def gate_stage_problems(pipeline_file: Path, index: int, project: Project) -> list[Problem]:
    gated = gated_tenants(project)
    if not gated or project.environment.quality_gate_role_arn:
        return []
    names = ", ".join(tenant.name for tenant in gated)
    return [
        Problem(
            str(pipeline_file),
            f"stages[{index}].environment",
            f"environment '{project.env_name}' gates {names} (quality:) but its file "
            f"{project.config_dir}/environments/{project.env_name}.yaml names no quality_gate_role_arn: the gate "
            "step runs as that role (docs/pipeline.md, The gate role)",
        )
    ]

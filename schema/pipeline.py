"""`config/pipeline.yaml` (opt-in): the promotion pipeline — where it runs, what it builds, and the
environments it deploys in order (docs/pipeline.md).

Without this file nothing about a pipeline is synthesized. The loader checks the file against the
environments it names: each must exist (config/environments/<name>.yaml) with an explicit account,
none may be listed twice, and a stage's `depends_on` may name only environments deployed before it.
Every problem names this file and the field (`stages[2].environment`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, StringConstraints

from schema.arn_types import IamRoleArn, arn_account
from schema.common import AccountId, Name, NonBlank, Region, StrictModel
from schema.config_errors import ConfigError, Problem
from schema.loader import Project, available, load_project, parse_file
from schema.quality_pipeline import gate_stage_problems

# botocore codeconnections ConnectionArn:
# arn:aws(-[\w]+)*:(codestar-connections|codeconnections):<region>:<account>:connection/<id>
ConnectionArn = Annotated[
    str,
    StringConstraints(
        pattern=r"^arn:aws(-[\w]+)*:(codestar-connections|codeconnections):[a-z0-9\-]+:[0-9]{12}:connection/[\w\-]+$",
        max_length=256,
    ),
]
Repository = Annotated[str, StringConstraints(pattern=r"^[\w.-]+/[\w.-]+$", max_length=200)]


class Stage(StrictModel):
    """One environment the pipeline deploys, in the order of `stages`."""

    environment: Name = Field(description="An environment of config/environments/ (it needs an explicit account).")
    approval: bool = Field(False, description="A manual approval before this environment deploys.")
    depends_on: list[Name] = Field(
        default_factory=list,
        description="Environments that must be deployed before this one; each must be an earlier stage. "
        "Default: none beyond the order of `stages`.",
    )
    smoke_role_arn: IamRoleArn = Field(
        description="A role in this environment's account that the post-deploy step assumes to run `akb doctor` "
        "and one `akb ask` per tenant: list it as an invoker of every tenant, let it read the account as "
        "`akb doctor` needs, and trust the pipeline account in it (docs/pipeline.md)."
    )


class Pipeline(StrictModel):
    """The pipeline stack (`akb-pipeline`) in a tooling account."""

    account: AccountId = Field(description="The tooling account the pipeline runs in.")
    region: Region = Field(description="The pipeline's region.")
    connection_arn: ConnectionArn = Field(
        description="CodeConnections connection to the repository host (arn:aws:codeconnections:...:connection/<id>)."
    )
    repository: Repository = Field(description="`owner/name` of the repository the connection reads.")
    branch: NonBlank = Field("main", description="The branch that is promoted.")
    smoke_question: NonBlank = Field(
        "What can you help me with?", description="The question each tenant's `akb ask` smoke test asks."
    )
    stages: list[Stage] = Field(min_length=1, description="Environments in deployment order (e.g. dev, stage, prod).")


@dataclass(frozen=True)
class PipelineProject:
    """A validated pipeline file with each stage's validated environment, in stage order."""

    pipeline: Pipeline
    file: Path
    projects: list[Project]


def load_pipeline(pipeline_file: Path | str, config_dir: Path | str = "config") -> PipelineProject:
    """Validates the pipeline file and every environment it deploys; raises ConfigError naming each problem."""
    pipeline_file, config_dir = Path(pipeline_file), Path(config_dir)
    pipeline, problems = parse_file(pipeline_file, Pipeline)
    if pipeline is None:
        raise ConfigError(problems)
    problems = stage_problems(pipeline, pipeline_file, available(config_dir / "environments"))
    projects: list[Project] = []
    if not problems:
        for stage in pipeline.stages:
            try:
                projects.append(load_project(config_dir, stage.environment))
            except ConfigError as error:
                problems.extend(error.problems)
    for index, project in enumerate(projects):
        problems.extend(gate_stage_problems(pipeline_file, index, project))
        role_account = arn_account(pipeline.stages[index].smoke_role_arn)
        if project.environment.account and role_account != project.environment.account:
            problems.append(
                Problem(
                    str(pipeline_file),
                    f"stages[{index}].smoke_role_arn",
                    f"the role is in account {role_account}, not in {project.env_name}'s account "
                    f"{project.environment.account}: the smoke test runs inside the environment it checks",
                )
            )
        if project.environment.account is None:
            problems.append(
                Problem(
                    str(pipeline_file),
                    f"stages[{index}].environment",
                    f"environment '{project.env_name}' has no account in {config_dir}/environments/"
                    f"{project.env_name}.yaml: a pipeline deploys each stage into an explicit account",
                )
            )
    if problems:
        raise ConfigError(problems)
    return PipelineProject(pipeline=pipeline, file=pipeline_file, projects=projects)


def stage_problems(pipeline: Pipeline, file: Path, environments: list[str]) -> list[Problem]:
    """Unknown environments, environments listed twice, and dependencies on later (or absent) stages."""
    problems: list[Problem] = []
    first_at: dict[str, int] = {}
    known = ", ".join(environments) or "none"
    for index, stage in enumerate(pipeline.stages):
        field = f"stages[{index}].environment"
        if stage.environment not in environments:
            problems.append(
                Problem(
                    str(file),
                    field,
                    f"unknown environment '{stage.environment}': no file environments/{stage.environment}.yaml "
                    f"(environments: {known})",
                )
            )
        if stage.environment in first_at:
            problems.append(
                Problem(
                    str(file),
                    field,
                    f"environment '{stage.environment}' is listed twice "
                    f"(first at stages[{first_at[stage.environment]}]); each environment is one stage",
                )
            )
        first_at.setdefault(stage.environment, index)
    order = [stage.environment for stage in pipeline.stages]
    for index, stage in enumerate(pipeline.stages):
        for dep_index, dependency in enumerate(stage.depends_on):
            problem = _dependency_problem(dependency, index, order)
            if problem:
                problems.append(Problem(str(file), f"stages[{index}].depends_on[{dep_index}]", problem))
    return problems


def _dependency_problem(dependency: str, index: int, order: list[str]) -> str | None:
    if dependency == order[index]:
        return f"stage '{dependency}' cannot depend on itself"
    if dependency not in order:
        return f"'{dependency}' is not a stage of this pipeline (stages: {', '.join(order)})"
    position = order.index(dependency)
    if position > index:
        return (
            f"'{dependency}' is deployed after this stage (stages[{position}]); list the stages in dependency "
            f"order: move '{dependency}' before '{order[index]}'"
        )
    return None


__all__ = ["Pipeline", "PipelineProject", "Stage", "load_pipeline"]

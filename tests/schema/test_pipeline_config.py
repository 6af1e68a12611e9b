"""config/pipeline.yaml: the example loads; each mistake is named with the file and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from schema import ConfigError
from schema.pipeline import load_pipeline
from tests.conftest import EXAMPLE_CONFIG, REPO

EXAMPLE_PIPELINE = REPO / "config" / "examples" / "pipeline.yaml"
DEV_ROLE = "arn:aws:iam::123456789012:role/akb-smoke"
PROD_ROLE = "arn:aws:iam::210987654321:role/akb-smoke"


def _write(tmp_path: Path, stages: list[dict]) -> Path:
    data = yaml.safe_load(EXAMPLE_PIPELINE.read_text())
    data["stages"] = stages
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _problems(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_pipeline(path, EXAMPLE_CONFIG)
    return [str(problem) for problem in caught.value.problems]


def test_the_example_pipeline_loads_its_environments_in_stage_order():
    loaded = load_pipeline(EXAMPLE_PIPELINE, EXAMPLE_CONFIG)
    assert [project.env_name for project in loaded.projects] == ["dev", "prod"]
    assert [stage.approval for stage in loaded.pipeline.stages] == [False, True]


def test_an_environment_listed_twice_is_rejected_naming_the_second_stage(tmp_path):
    path = _write(
        tmp_path,
        [{"environment": "dev", "smoke_role_arn": DEV_ROLE}, {"environment": "dev", "smoke_role_arn": DEV_ROLE}],
    )
    assert _problems(path) == [
        f"{path}: stages[1].environment: environment 'dev' is listed twice (first at stages[0]); each environment "
        "is one stage"
    ]


def test_an_unknown_environment_is_rejected_with_the_known_ones(tmp_path):
    path = _write(tmp_path, [{"environment": "stage", "smoke_role_arn": DEV_ROLE}])
    [problem] = _problems(path)
    assert problem.startswith(f"{path}: stages[0].environment: unknown environment 'stage'")
    assert "(environments: dev, prod)" in problem


def test_a_stage_before_its_dependency_is_rejected_naming_the_field(tmp_path):
    path = _write(
        tmp_path,
        [
            {"environment": "prod", "depends_on": ["dev"], "smoke_role_arn": PROD_ROLE},
            {"environment": "dev", "smoke_role_arn": DEV_ROLE},
        ],
    )
    [problem] = _problems(path)
    assert problem.startswith(f"{path}: stages[0].depends_on[0]: 'dev' is deployed after this stage (stages[1])")
    assert "move 'dev' before 'prod'" in problem


def test_a_dependency_outside_the_pipeline_is_named(tmp_path):
    path = _write(tmp_path, [{"environment": "dev", "depends_on": ["qa"], "smoke_role_arn": DEV_ROLE}])
    assert "stages[0].depends_on[0]: 'qa' is not a stage of this pipeline" in _problems(path)[0]


def test_a_smoke_role_of_another_account_is_rejected(tmp_path):
    path = _write(tmp_path, [{"environment": "dev", "smoke_role_arn": PROD_ROLE}])
    [problem] = _problems(path)
    assert "stages[0].smoke_role_arn: the role is in account 210987654321, not in dev's account" in problem


def test_schema_errors_name_the_field(tmp_path):
    data = yaml.safe_load(EXAMPLE_PIPELINE.read_text())
    data["connection_arn"] = "arn:aws:s3:::bucket"
    data["stages"][0]["approve"] = True
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data))
    text = "\n".join(_problems(path))
    assert f"{path}: connection_arn" in text
    assert "stages[0]" in text and "unknown field 'approve' (did you mean 'approval'?)" in text


def test_an_environment_without_account_cannot_be_a_stage(tmp_path):
    config = tmp_path / "config"
    (config / "environments").mkdir(parents=True)
    (config / "tenants").mkdir()
    for tenant in ("acme", "globex"):
        (config / "tenants" / f"{tenant}.yaml").write_text((EXAMPLE_CONFIG / "tenants" / f"{tenant}.yaml").read_text())
    shutil.copytree(EXAMPLE_CONFIG / "quality", config / "quality")  # the golden sets the tenant files name
    dev = yaml.safe_load((EXAMPLE_CONFIG / "environments" / "dev.yaml").read_text())
    dev.pop("account")
    dev["planner"] = {"type": "MANAGED"}
    (config / "environments" / "dev.yaml").write_text(yaml.safe_dump(dev))
    path = _write(tmp_path, [{"environment": "dev", "smoke_role_arn": DEV_ROLE}])
    with pytest.raises(ConfigError) as caught:
        load_pipeline(path, config)
    assert any(p.field == "stages[0].environment" and "has no account" in p.message for p in caught.value.problems), (
        caught.value
    )

"""Reads one environment and its tenants from a config directory, reporting every problem at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from schema.common import NAME_PATTERN
from schema.config_errors import ConfigError, Problem, problems_from_validation
from schema.environment import Environment
from schema.tenant import Tenant

DEFAULT_CONFIG_DIR = Path("config")
DEFAULT_ENV = "dev"


@dataclass(frozen=True)
class Project:
    """A validated environment with the tenants it deploys, in the order the environment lists them."""

    env_name: str
    environment: Environment
    tenants: dict[str, Tenant]
    config_dir: Path


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML keeps the last of two equal keys; a silently dropped setting is worse than an error."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path) -> tuple[Any, list[Problem]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        return None, [Problem(str(path), "", f"cannot be read: {error.strerror}")]
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(error, "problem", None) or str(error)
        return None, [Problem(str(path), "", f"is not valid YAML{where}: {reason}")]
    if not isinstance(data, dict):
        return None, [Problem(str(path), "", "must be a YAML mapping of fields (key: value)")]
    return data, []


def parse_file(path: Path, model: type[BaseModel]) -> tuple[Any, list[Problem]]:
    data, problems = read_yaml(path)
    if problems:
        return None, problems
    try:
        return model.model_validate(data), []
    except ValidationError as error:
        return None, problems_from_validation(path, error)


def available(directory: Path) -> list[str]:
    return sorted(path.stem for path in directory.glob("*.yaml")) if directory.is_dir() else []


def load_project(config_dir: Path | str = DEFAULT_CONFIG_DIR, env_name: str = DEFAULT_ENV) -> Project:
    """Validates the environment file and every tenant it lists; raises ConfigError naming each problem."""
    config_dir = Path(config_dir)
    env_file = config_dir / "environments" / f"{env_name}.yaml"
    if not NAME_PATTERN.match(env_name):  # `--env ../..` must not reach outside environments/
        raise ConfigError(
            [
                Problem(
                    str(config_dir / "environments"),
                    "",
                    f"environment name '{env_name}' is not a name: use "
                    "lowercase letters, digits and hyphens (the file environments/<name>.yaml)",
                )
            ]
        )
    if not env_file.is_file():
        envs = available(config_dir / "environments")
        hint = f"available: {', '.join(envs)}" if envs else f"no environments in {config_dir}/environments/"
        raise ConfigError([Problem(str(env_file), "", f"environment '{env_name}' not found; {hint}")])

    environment, problems = parse_file(env_file, Environment)
    tenants_dir = config_dir / "tenants"
    # An environment file with errors must not hide the tenant files' own: check the tenants it
    # names (or, if even that list is unreadable, every tenant file) and report everything at once.
    tenant_names = environment.tenants if environment is not None else _tenants_named_in(env_file, tenants_dir)
    tenants: dict[str, Tenant] = {}
    for index, name in enumerate(tenant_names):
        tenant_file = tenants_dir / f"{name}.yaml"
        if not tenant_file.is_file():
            known = ", ".join(available(tenants_dir)) or "none"
            problems.append(
                Problem(
                    str(env_file),
                    f"tenants[{index}]",
                    f"unknown tenant '{name}': no file {tenant_file} (tenants in {tenants_dir}/: {known})",
                )
            )
            continue
        tenant, tenant_problems = parse_file(tenant_file, Tenant)
        problems.extend(tenant_problems)
        if tenant is not None:
            tenants[name] = tenant
    problems.extend(_misnamed_tenant_files(tenants_dir))
    if problems or environment is None:
        raise ConfigError(problems)
    return Project(env_name=env_name, environment=environment, tenants=tenants, config_dir=config_dir)


def _tenants_named_in(env_file: Path, tenants_dir: Path) -> list[str]:
    """The `tenants:` list of an environment file that failed validation, if it is a list of names;
    otherwise every tenant file in the directory."""
    data, _ = read_yaml(env_file)
    named = data.get("tenants") if isinstance(data, dict) else None
    if isinstance(named, list) and all(isinstance(name, str) and NAME_PATTERN.match(name) for name in named):
        return list(dict.fromkeys(named))
    return [name for name in available(tenants_dir) if NAME_PATTERN.match(name)]


def _misnamed_tenant_files(tenants_dir: Path) -> list[Problem]:
    return [
        Problem(
            str(path),
            "",
            "the file name is the tenant name: use lowercase letters, digits and hyphens (e.g. acme-support.yaml)",
        )
        for path in sorted(tenants_dir.glob("*.y*ml"))
        if not NAME_PATTERN.match(path.stem) or path.suffix != ".yaml"
    ]

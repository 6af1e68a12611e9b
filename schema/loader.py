"""Reads one environment and its tenants from a config directory, reporting every problem at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schema.arn_partition import partition_problems
from schema.arn_types import arn_account
from schema.common import NAME_PATTERN
from schema.config_errors import ConfigError, Problem
from schema.environment import Environment
from schema.front_door_checks import front_door_file_problems, tenant_front_door
from schema.name_clashes import name_clash_problems, nested_prefix_problems
from schema.quality_config import quality_file_problems
from schema.quota_shares import share_problems
from schema.resource_ownership import ownership_problems
from schema.tenant import Tenant
from schema.yaml_files import (
    MAX_FILE_BYTES,
    available,
    environment_sketches,
    named_tenants,
    parse_file,
    read_yaml,
)

__all__ = ["MAX_FILE_BYTES", "Project", "available", "load_project", "parse_file", "read_yaml"]

DEFAULT_CONFIG_DIR = Path("config")
DEFAULT_ENV = "dev"


@dataclass(frozen=True)
class Project:
    """A validated environment with the tenants it deploys, in the order the environment lists them."""

    env_name: str
    environment: Environment
    tenants: dict[str, Tenant]
    config_dir: Path


def load_project(config_dir: Path | str = DEFAULT_CONFIG_DIR, env_name: str = DEFAULT_ENV) -> Project:
    """Validates the environment file and every tenant it lists; raises ConfigError naming each problem."""
    config_dir = Path(config_dir)
    env_file = _environment_file(config_dir, env_name)
    environment, problems = parse_file(env_file, Environment)
    tenants_dir = config_dir / "tenants"
    # An environment file with errors must not hide the tenant files' own: check the tenants it
    # names (or, if even that list is unreadable, every tenant file) and report everything at once.
    tenant_names = environment.tenants if environment is not None else _tenants_named_in(env_file, tenants_dir)
    tenants, tenant_problems = _load_tenants(env_file, tenants_dir, tenant_names, environment)
    problems.extend(tenant_problems)
    problems.extend(_misnamed_tenant_files(tenants_dir))
    # What every environment of the config deploys: secrets, buckets and names span environments.
    sketches = environment_sketches(config_dir)
    listing = {**{name: sketch.tenants for name, sketch in sketches.items()}, env_name: list(tenant_names)}
    problems.extend(ownership_problems(config_dir, env_name, listing))
    problems.extend(name_clash_problems(config_dir, env_name, listing))
    places = {name: (sketch.account, sketch.region) for name, sketch in sketches.items()}
    problems.extend(nested_prefix_problems(config_dir, env_name, places))
    if environment is not None:
        problems.extend(partition_problems(env_file, environment, environment.region, env_file))
        problems.extend(share_problems(env_file, tenants_dir, environment, tenants))
    if problems or environment is None:
        raise ConfigError(problems)
    return Project(env_name=env_name, environment=environment, tenants=tenants, config_dir=config_dir)


def _environment_file(config_dir: Path, env_name: str) -> Path:
    """`environments/<env_name>.yaml`, or ConfigError for a name that is not one or a missing file."""
    if not NAME_PATTERN.fullmatch(env_name):  # `--env ../..` must not reach outside environments/
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
    env_file = config_dir / "environments" / f"{env_name}.yaml"
    if not env_file.is_file():
        envs = available(config_dir / "environments")
        hint = f"available: {', '.join(envs)}" if envs else f"no environments in {config_dir}/environments/"
        raise ConfigError([Problem(str(env_file), "", f"environment '{env_name}' not found; {hint}")])
    return env_file


def _load_tenants(
    env_file: Path, tenants_dir: Path, tenant_names: list[str], environment: Environment | None
) -> tuple[dict[str, Tenant], list[Problem]]:
    """The environment's valid tenants and every problem of their files (checks against the
    environment only when it is valid itself)."""
    tenants: dict[str, Tenant] = {}
    problems: list[Problem] = []
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
        if tenant is None:
            continue
        tenants[name] = tenant
        uses_api = tenant_front_door(environment, tenant).uses_api if environment is not None else None
        problems.extend(quality_file_problems(tenants_dir.parent, tenant_file, tenant, env_file.stem, uses_api))
        if environment is not None:  # the account, front-door and partition rules need a valid environment
            problems.extend(_reader_account_problems(tenant_file, environment, tenant))
            problems.extend(front_door_file_problems(env_file, tenant_file, environment, tenant))
            problems.extend(partition_problems(tenant_file, tenant, environment.region, env_file))
    return tenants, problems


def _tenants_named_in(env_file: Path, tenants_dir: Path) -> list[str]:
    """The `tenants:` list of an environment file that failed validation, if it is a list of names;
    otherwise every tenant file in the directory."""
    named = named_tenants(env_file)
    return named if named is not None else [name for name in available(tenants_dir) if NAME_PATTERN.fullmatch(name)]


def _misnamed_tenant_files(tenants_dir: Path) -> list[Problem]:
    return [
        Problem(
            str(path),
            "",
            "the file name is the tenant name: use lowercase letters, digits and hyphens (e.g. acme-support.yaml)",
        )
        for path in sorted(tenants_dir.glob("*.y*ml"))
        if not NAME_PATTERN.fullmatch(path.stem) or path.suffix != ".yaml"
    ]


def _reader_account_problems(tenant_file: Path, environment: Environment, tenant: Tenant) -> list[Problem]:
    """knowledge_base_access needs the environment's account, which only the environment file knows:
    a cross-account reader in this account would get an Allow no identity policy granted, and a
    break-glass role of another account would be exempt from the Deny yet allowed by nothing."""
    if environment.account is None:
        return []
    access, account, problems = tenant.knowledge_base_access, environment.account, []
    for index, arn in enumerate(access.cross_account_readers):
        if arn_account(arn) == account:
            problems.append(
                Problem(
                    str(tenant_file),
                    f"knowledge_base_access.cross_account_readers[{index}]",
                    f"'{arn}' is in the environment's own account {account}: give it an identity policy "
                    "and list it in break_glass_roles instead",
                )
            )
    for index, arn in enumerate(access.break_glass_roles):
        if arn_account(arn) != account:
            problems.append(
                Problem(
                    str(tenant_file),
                    f"knowledge_base_access.break_glass_roles[{index}]",
                    f"'{arn}' is not in the environment's account {account}: a role of another account "
                    "reads through cross_account_readers",
                )
            )
    return problems

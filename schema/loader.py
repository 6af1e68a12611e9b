"""Reads one environment and its tenants from a config directory, reporting every problem at once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from schema.arn_types import arn_account
from schema.common import NAME_PATTERN
from schema.config_errors import ConfigError, Problem, problems_from_validation
from schema.environment import Environment
from schema.front_door_checks import front_door_file_problems
from schema.tenant import Tenant

DEFAULT_CONFIG_DIR = Path("config")
DEFAULT_ENV = "dev"
# The example files are under 3 KB; 256 KiB leaves room for any real tenant and bounds what one
# file can make the loader (and synth) do.
MAX_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class Project:
    """A validated environment with the tenants it deploys, in the order the environment lists them."""

    env_name: str
    environment: Environment
    tenants: dict[str, Tenant]
    config_dir: Path


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that refuses anchors and aliases, and duplicate keys.

    Aliases let a few hundred bytes expand into billions of nodes ("billion laughs"): the loader
    shares them, but everything after it (validation, the CDK, the template JSON) copies them. Config
    files are reviewed like code and never need them, so `&name` and `*name` (and `<<` merges, which
    need an alias) are errors at the line they appear on. PyYAML also keeps the last of two equal
    keys; a silently dropped setting is worse than an error.
    """

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            kind = "an alias (*" if isinstance(event, yaml.AliasEvent) else "an anchor (&"
            raise yaml.composer.ComposerError(
                None,
                None,
                f"{kind}{event.anchor}) is not allowed in config files: write the value out in full",
                event.start_mark,
            )
        return super().compose_node(parent, index)

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
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return None, [Problem(str(path), "", f"cannot be read: {error.strerror}")]
    if len(raw) > MAX_FILE_BYTES:
        return None, [
            Problem(
                str(path), "", f"is larger than {MAX_FILE_BYTES // 1024} KiB; a config file this big is not a config"
            )
        ]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [Problem(str(path), "", f"is not UTF-8 text (byte {error.start})")]
    try:
        data = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass
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
            if environment is not None:  # the account rules need a valid environment
                problems.extend(_reader_account_problems(tenant_file, environment, tenant))
                problems.extend(front_door_file_problems(env_file, tenant_file, environment, tenant))
    problems.extend(_misnamed_tenant_files(tenants_dir))
    problems.extend(_shared_buckets(tenants, tenants_dir))
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


def _shared_buckets(tenants: dict[str, Tenant], tenants_dir: Path) -> list[Problem]:
    """A knowledge base role reads its whole source bucket (bucket/*, as AWS's sample grants), and
    its whole certificate bucket (the sample's SharePoint grant), so a bucket named by two tenants
    would let each read the other's documents or certificates: isolation forbids it."""
    owner: dict[str, str] = {}
    problems = []
    for name, tenant in tenants.items():
        for field_path, bucket in _named_buckets(tenant):
            first = owner.setdefault(bucket, name)
            if first != name:
                problems.append(
                    Problem(
                        str(tenants_dir / f"{name}.yaml"),
                        field_path,
                        f"bucket {bucket} is already read by tenant '{first}'; a knowledge base reads its "
                        "whole source and certificate buckets, so each tenant needs its own",
                    )
                )
    return problems


def _named_buckets(tenant: Tenant) -> Iterator[tuple[str, str]]:
    """(field path, bucket name) of every bucket a tenant file names: s3 `bucket_arn`s and
    connector `certificate.bucket`s."""
    for kb_index, kb in enumerate(tenant.knowledge_bases):
        for source_index, source in enumerate(kb.sources):
            where = f"knowledge_bases[{kb_index}].sources[{source_index}]"
            bucket_arn = getattr(source, "bucket_arn", None)
            if bucket_arn is not None:
                yield f"{where}.bucket_arn", bucket_arn.split(":::", 1)[-1]
            certificate = getattr(source, "certificate", None)
            if certificate is not None:
                yield f"{where}.certificate.bucket", certificate.bucket

"""No two owners in the config produce the same stack name or resource prefix.

Names join environment and tenant with hyphens (contract/resource_names.py): tenant `x-y` of
environment `dev` and tenant `y` of environment `dev-x` both become stack `dev-x-y` and prefix
`akb-dev-x-y`, and tenant `x` of `dev` takes `akb-dev-x`, the prefix of environment `dev-x`'s own
resources. In one account their roles, log groups, parameters and alarms would mix. Changing the
naming scheme would rename (replace) every deployed resource, so the config is refused instead,
naming both files; every environment file of the config is read (leniently) for it (the loader
passes what each lists).

Two environments whose prefixes nest (`akb-dev`, `akb-dev-x`) produce no common name, but the wider
one's wildcard grants do reach the other's resources when both live in one account and region: its
alarm topic admits `alarm:akb-dev-*`, its `akb verify` role may invoke `function:akb-dev-*-endpoint`.
Such a pair is refused too unless their files put them in different accounts or regions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from contract.resource_names import (
    PIPELINE_STACK_NAME,
    platform_stack_name,
    resource_prefix,
    tenant_stack_name,
)
from schema.config_errors import Problem


@dataclass(frozen=True)
class _Owner:
    """Who produces a name: an environment (tenant None), one of its tenants, or the pipeline (env None)."""

    env: str | None
    tenant: str | None = None
    index: int | None = None  # position in the environment's `tenants` list

    def describe(self, config_dir: Path) -> str:
        if self.env is None:
            return f"the pipeline stack {PIPELINE_STACK_NAME}"
        env_file = config_dir / "environments" / f"{self.env}.yaml"
        if self.tenant is None:
            return f"environment {self.env} ({env_file})"
        return f"tenant '{self.tenant}' of environment {self.env} ({env_file}: tenants[{self.index}])"


def _owners_by_name(listing: dict[str, list[str]]) -> dict[str, list[_Owner]]:
    owners: dict[str, list[_Owner]] = defaultdict(list)
    owners[PIPELINE_STACK_NAME].append(_Owner(None))
    for env, tenants in listing.items():
        for name in (platform_stack_name(env), resource_prefix(env)):
            owners[name].append(_Owner(env))
        for index, tenant in enumerate(tenants):
            for name in (tenant_stack_name(env, tenant), resource_prefix(env, tenant)):
                owners[name].append(_Owner(env, tenant, index))
    return owners


def name_clash_problems(config_dir: Path, env_name: str, listing: dict[str, list[str]]) -> list[Problem]:
    """A Problem for each owner of `env_name` whose generated names another owner also produces;
    `listing`: every environment of the config with the tenants it deploys."""
    clashes: dict[tuple[_Owner, _Owner], str] = {}
    for name, owners in _owners_by_name(listing).items():
        for mine in (owner for owner in owners if owner.env == env_name):
            for other in owners:
                if other != mine:
                    clashes.setdefault((mine, other), name)
    env_file = config_dir / "environments" / f"{env_name}.yaml"
    return [
        Problem(
            str(env_file),
            "" if mine.tenant is None else f"tenants[{mine.index}]",
            f"{mine.describe(config_dir)} and {other.describe(config_dir)} both produce the name {name} (stack "
            "names and the akb-<env>-<tenant> resource prefix join names with hyphens), so their resources would "
            "mix; rename the tenant or environment that is not deployed yet (deployed names cannot change)",
        )
        for (mine, other), name in clashes.items()
    ]


def nested_prefix_problems(
    config_dir: Path, env_name: str, places: dict[str, tuple[str | None, str | None]]
) -> list[Problem]:
    """A Problem for each environment whose resource prefix nests with `env_name`'s (one is the other
    plus `-...`) and which may share its account and region; `places`: every environment's
    (account, region) as its file gives them (None: not given, so it may be anywhere)."""
    mine = resource_prefix(env_name)
    here = places.get(env_name, (None, None))
    env_file = config_dir / "environments" / f"{env_name}.yaml"
    problems = []
    for other, there in sorted(places.items()):
        theirs = resource_prefix(other)
        if other == env_name or not (theirs.startswith(f"{mine}-") or mine.startswith(f"{theirs}-")):
            continue
        if not all(a is None or b is None or a == b for a, b in zip(here, there, strict=True)):
            continue
        wider, narrower = (env_name, other) if theirs.startswith(f"{mine}-") else (other, env_name)
        wide = resource_prefix(wider)
        grants = f"its alarm topic's alarm:{wide}-*, the akb verify role's function:{wide}-*-endpoint"
        problems.append(
            Problem(
                str(env_file),
                "",
                f"environments {env_name} and {other} ({config_dir / 'environments' / f'{other}.yaml'}) may deploy "
                f"into the same account and region, and {resource_prefix(narrower)} begins with {wide}-: "
                f"{wider}'s wildcard grants ({grants}) would reach {narrower}'s resources; give the two files "
                "different `account` or `region` values, or rename the environment that is not deployed yet",
            )
        )
    return problems

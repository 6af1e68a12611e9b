"""Every tenant's effective share of the account's agentic quota, and the checks that span files.

A share is only known once the environment and every tenant file are read: tenants without a
`quota.guaranteed_requests_per_minute` get an equal part of what the others' guarantees leave, and
the guarantees together may not exceed the account's quota. The loader reports what is wrong naming
each file and field; the quota feature (features/quota_feature.py) renders the same shares into the
endpoints' settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from schema.config_errors import Problem
from schema.environment import Environment
from schema.tenant import Tenant

GUARANTEE_FIELD = "quota.guaranteed_requests_per_minute"
BURST_FIELD = "quota.burst_requests_per_minute"
ACCOUNT_FIELD = "quota.agentic_requests_per_minute"


@dataclass(frozen=True)
class Share:
    guaranteed: float  # requests per minute
    burst: float  # requests per minute, the guarantee included
    explicit: bool  # set in the tenant's file (else an equal part of what is left)


def tenant_shares(environment: Environment, tenants: Mapping[str, Tenant]) -> dict[str, Share]:
    """Each tenant's guaranteed share and burst limit, in requests per minute."""
    account = environment.quota.agentic_requests_per_minute
    explicit = {name: _guarantee(tenant) for name, tenant in tenants.items() if _guarantee(tenant) is not None}
    implicit = [name for name in tenants if name not in explicit]
    left = max(0.0, account - sum(value for value in explicit.values() if value is not None))
    each = left / len(implicit) if implicit else 0.0
    shares = {}
    for name, tenant in tenants.items():
        guaranteed = explicit.get(name)
        value = float(guaranteed) if guaranteed is not None else each
        burst = tenant.quota.burst_requests_per_minute if tenant.quota is not None else None
        shares[name] = Share(value, float(burst) if burst is not None else float(account), name in explicit)
    return shares


def _guarantee(tenant: Tenant) -> int | None:
    return tenant.quota.guaranteed_requests_per_minute if tenant.quota is not None else None


def share_problems(
    env_file: Path, tenants_dir: Path, environment: Environment, tenants: Mapping[str, Tenant]
) -> list[Problem]:
    """Guarantees above the account's quota (each tenant's number, file and field), burst limits above
    it, and tenants left with less than one request per minute when fair sharing is on."""
    account = environment.quota.agentic_requests_per_minute
    shares = tenant_shares(environment, tenants)
    problems = []
    guaranteed = {name: share.guaranteed for name, share in shares.items() if share.explicit}
    if sum(guaranteed.values()) > account:
        listed = ", ".join(
            f"{name} {value:g} ({tenants_dir / f'{name}.yaml'}: {GUARANTEE_FIELD})"
            for name, value in guaranteed.items()
        )
        problems.append(
            Problem(
                str(env_file),
                ACCOUNT_FIELD,
                f"the tenants' guaranteed shares sum to {sum(guaranteed.values()):g} requests per minute, above "
                f"the account's {account}: {listed}; lower them, or raise {ACCOUNT_FIELD} once Service Quotas "
                "has raised the account's quota",
            )
        )
    for name, share in shares.items():
        if share.burst > account:
            problems.append(
                Problem(
                    str(tenants_dir / f"{name}.yaml"),
                    BURST_FIELD,
                    f"{share.burst:g} is above the account's {account} requests per minute ({env_file}: "
                    f"{ACCOUNT_FIELD}), which no tenant can exceed; lower it or leave it unset",
                )
            )
    return problems + _starved(env_file, environment, shares)


def _starved(env_file: Path, environment: Environment, shares: Mapping[str, Share]) -> list[Problem]:
    starved = [name for name, share in shares.items() if not share.explicit and share.guaranteed < 1]
    if not environment.quota.fair_share or not starved:
        return []
    return [
        Problem(
            str(env_file),
            ACCOUNT_FIELD,
            f"tenants {', '.join(starved)} set no {GUARANTEE_FIELD} and the others' guarantees leave them less "
            "than one request per minute each; lower a guarantee, or give them a share of their own (0 for "
            "best effort, borrowing only)",
        )
    ]

"""Fair sharing under `akb local` and `akb emulator` (docs/quota.md): the emulator's account quota and the
SQLite file that every local endpoint of an environment shares.

`--account-rpm N` makes the emulator answer AgenticRetrieveStream with Bedrock's ThrottlingException
beyond N requests per minute (local/emulator/account_quota.py; off by default). The endpoints' own
fair sharing keeps its buckets in one SQLite file per environment, so two `akb local` endpoints (or a
benchmark's) of one environment share the account's quota as the DynamoDB table does in AWS.
"""

from __future__ import annotations

from pathlib import Path

import click

from client.cache_admin import local_cache_path
from contract.settings import QuotaSettings

account_rpm_option = click.option(
    "--account-rpm",
    type=click.IntRange(1, 1_000_000),
    default=None,
    help="The emulator enforces this account-wide AgenticRetrieveStream quota (requests per minute), answering "
    "ThrottlingException beyond it as Bedrock does. Default: off.",
)


def local_quota_path(env_name: str) -> Path:
    """Where local endpoints of `env_name` keep their fair-share buckets: beside the local caches, one file
    per environment (`<env>.quota.sqlite3`: a dot no tenant's cache file has)."""
    return local_cache_path(env_name, "-").parent / f"{env_name}.quota.sqlite3"


def account_quota_line(account_rpm: int | None) -> str:
    if account_rpm is None:
        return "Account quota     not enforced by the emulator (--account-rpm N to enforce one)"
    return f"Account quota     {account_rpm} AgenticRetrieveStream requests per minute (ThrottlingException beyond)"


def share_line(quota: QuotaSettings | None, path: Path | None) -> str:
    """The banner's line: the tenant's share and where its buckets live."""
    if quota is None:
        return "Fair share        off (quota.fair_share: false)"
    return (
        f"Fair share        guaranteed {quota.guaranteed_per_minute:g}, burst {quota.burst_per_minute:g} of "
        f"{quota.account_per_minute:g} agentic requests per minute; buckets in {path}"
    )

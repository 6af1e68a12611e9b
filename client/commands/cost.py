"""`akb cost`: estimated cost per tenant over a time window, read from CloudWatch (docs/operations.md).

`--output json` prints `{"environment", "since", "tenants": [{"tenant", "requests", ...}]}`
(docs/client.md); `--csv` one row per tenant.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client.failures import Failure
from client.options import config_option, env_option, load_or_exit, tenant_option
from client.output import OutputFormat, output_option, print_json

if TYPE_CHECKING:
    from client.cost_report import TenantCost


def _since(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A usage error for a window that is not one (the text is kept: the footer repeats it)."""
    from client.cost_report import CostError, parse_since

    try:
        parse_since(value)
        return value
    except CostError as error:
        raise click.BadParameter(str(error), ctx, param) from None


@click.command()
@env_option
@config_option
@tenant_option("Only this tenant (default: every tenant of the environment).")
@click.option(
    "--since", default="30d", show_default=True, callback=_since, help="Window ending now: a number and h, d or w."
)
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (one row per tenant) instead of a table.")
@output_option
def command(
    env_name: str, config_dir: Path, tenant: str | None, since: str, as_csv: bool, output: OutputFormat
) -> None:
    """Requests, iterations and estimated USD per tenant: agentic calls, underlying Retrieve calls,
    index storage, Lambda, and cache savings — estimates at the environment's `pricing`, not a bill."""
    from client import cost_report
    from client.aws_session import environment_region, session

    if as_csv and output == "json":
        raise click.UsageError("--csv and --output json are alternatives: pick one")
    project = load_or_exit(config_dir, env_name)
    if tenant is not None and tenant not in project.tenants:
        raise Failure(
            f"tenant '{tenant}' is not deployed in environment {env_name} (its tenants: {', '.join(project.tenants)})"
        )
    aws = session(environment_region(project))
    rows = cost_report.report(
        project,
        [tenant] if tenant else list(project.tenants),
        cloudwatch=aws.client("cloudwatch"),
        ssm=aws.client("ssm"),
        window_seconds=cost_report.parse_since(since),
    )
    if output == "json":
        print_json(
            {
                "environment": env_name,
                "since": since,
                "tenants": [_row(row) for row in rows],
            }
        )
        return
    click.echo(cost_report.as_csv(rows) if as_csv else cost_report.as_table(rows), nl=not as_csv)
    if not as_csv:
        click.echo(
            f"Estimates over the last {since} at {env_name}'s `pricing` (not a bill; what they leave out: "
            "docs/operations.md, Cost per tenant)."
        )


def _row(row: TenantCost) -> dict[str, Any]:
    """One tenant's estimates in --output json (camelCase, like every akb JSON document)."""
    return {
        "tenant": row.tenant,
        "requests": row.requests,
        "iterations": row.iterations,
        "agenticUsd": row.agentic_usd,
        "retrieveUsd": row.retrieve_usd,
        "storageUsd": row.storage_usd,
        "lambdaUsd": row.lambda_usd,
        "totalUsd": row.total_usd,
        "cacheSavingsUsd": row.cache_savings_usd,
    }

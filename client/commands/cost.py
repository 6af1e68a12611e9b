"""`akb cost`: estimated cost per tenant over a time window, read from CloudWatch (docs/operations.md)."""

from __future__ import annotations

from pathlib import Path

import click

from client.options import config_option, env_option, load_or_exit


@click.command()
@env_option
@config_option
@click.option("--tenant", default=None, help="Only this tenant (default: every tenant of the environment).")
@click.option("--since", default="30d", show_default=True, help="Window ending now: a number and h, d or w.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (one row per tenant) instead of a table.")
def command(env_name: str, config_dir: Path, tenant: str | None, since: str, as_csv: bool) -> None:
    """Requests, iterations and estimated USD per tenant: agentic calls, underlying Retrieve calls,
    index storage, Lambda, and cache savings — estimates at the environment's `pricing`, not a bill."""
    from client import cost_report

    project = load_or_exit(config_dir, env_name)
    try:
        window = cost_report.parse_since(since)
        if tenant is not None and tenant not in project.tenants:
            raise cost_report.CostError(
                f"tenant '{tenant}' is not deployed in environment {env_name} "
                f"(its tenants: {', '.join(project.tenants)})"
            )
        import boto3

        session = boto3.Session(region_name=project.environment.region)
        rows = cost_report.report(
            project,
            [tenant] if tenant else list(project.tenants),
            cloudwatch=session.client("cloudwatch"),
            ssm=session.client("ssm"),
            window_seconds=window,
        )
    except cost_report.CostError as error:
        click.echo(f"akb cost: {error}", err=True)
        raise SystemExit(2) from None
    except Exception as error:  # botocore errors: say what failed, never a stack trace
        click.echo(f"akb cost: {type(error).__name__}: {error}", err=True)
        raise SystemExit(1) from None
    click.echo(cost_report.as_csv(rows) if as_csv else cost_report.as_table(rows), nl=not as_csv)
    if not as_csv:
        click.echo(
            f"Estimates over the last {since} at {env_name}'s `pricing` (not a bill; what they leave out: "
            "docs/operations.md, Cost per tenant)."
        )

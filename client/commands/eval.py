"""`akb eval`: measure agentic against single-shot retrieval (and the `auto` router) on a dataset.

    akb eval --dataset local/eval/sample.jsonl --local
    akb eval --dataset my.jsonl --env prod --tenant acme --modes agentic,retrieve,auto --k 5,10

Writes `<out>/records.jsonl` (one line per finished question and mode: rerunning the same
command resumes), `<out>/report.json` and two PNG charts, and prints the tables. docs/evaluation.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client.exit_codes import ExitCode
from client.failures import Failure
from client.options import config_option, corpus_option, env_option
from client.output import OutputFormat, output_option, print_json
from contract.enums import MODES

if TYPE_CHECKING:
    from client.evaluation.runner import Record
    from contract.events import Event
    from schema.eval_dataset import EvalItem

# `agent`: the tenant's Bedrock agent (docs/agents.md), on request only: --modes agentic,agent
ALL_MODES = (*MODES, "agent")
PIPE_WIDTH = 200  # columns when stdout is not a terminal: wider than every table akb eval prints
LOCAL_DISCLAIMER = (
    "local emulator numbers: they measure this harness and the emulator's rule-based planner over the "
    "sample corpus, not Amazon Bedrock"
)


def _csv(
    kind: type, allowed: tuple[str, ...] | None = None
) -> Callable[[click.Context, click.Parameter, str], list[Any]]:
    def convert(ctx: click.Context, param: click.Parameter, value: str) -> list[Any]:
        try:
            items = [kind(part.strip()) for part in value.split(",") if part.strip()]
        except ValueError:
            raise click.BadParameter(f"'{value}' is not a comma-separated list of {kind.__name__}") from None
        if not items:
            raise click.BadParameter("must not be empty")
        if allowed and (unknown := [i for i in items if i not in allowed]):
            raise click.BadParameter(f"unknown {', '.join(unknown)}; choose from {', '.join(allowed)}")
        if kind is int and any(i < 1 for i in items):
            raise click.BadParameter("every k must be >= 1")
        return list(dict.fromkeys(items))

    return convert


@contextlib.contextmanager
def _target(
    url: str | None,
    env_name: str,
    tenant: str | None,
    local_run: tuple[bool, Path | None],
    config_dir: Path,
    out_dir: Path,
) -> Iterator[dict]:
    """The endpoint to evaluate: {"url", "region", "description", "local", "key"}; starts one for
    --local (`local_run`: --local and --corpus). `key` names the target and its retrieval settings:
    records of another key are not resumed."""
    local, corpus_dir = local_run
    if local:
        from client.evaluation.local_target import LocalTargetError, local_endpoint

        key = _settings_key("local", config_dir, env_name, tenant, corpus_dir)
        try:
            with local_endpoint(config_dir, out_dir / "endpoint.log", env_name, tenant, corpus_dir) as endpoint_url:
                description = f"local emulator, tenant {tenant or 'sample (every corpus folder)'} ({endpoint_url})"
                from client.agent_client import local_agent_target

                agent = local_agent_target(endpoint_url)  # registered beside it by local_endpoint
                yield {
                    "url": endpoint_url,
                    "region": None,
                    "description": description,
                    "local": True,
                    "agent": agent,
                    "key": key,
                }
        except LocalTargetError as error:
            raise click.ClickException(str(error)) from None
        return
    if url:
        from client.evaluation.target_key import target_key

        yield {"url": url, "region": None, "description": url, "local": False, "key": target_key("url", url)}
        return
    from client.endpoint_url import UrlResolutionError, resolve_url
    from schema import ConfigError

    try:
        resolved, region = resolve_url(config_dir, env_name, tenant or "")
    except (UrlResolutionError, ConfigError) as error:
        raise click.ClickException(str(error)) from None
    yield {
        "url": resolved,
        "region": region,
        "description": f"{env_name}/{tenant} ({resolved})",
        "local": False,
        "agent_of": (config_dir, env_name, tenant),  # resolved only when `agent` is among the modes
        "key": _settings_key("deployed", config_dir, env_name, tenant),
    }


def _settings_key(kind: str, config_dir: Path, env_name: str, tenant: str | None, corpus: Path | None = None) -> str:
    """The resume key of a tenant target (its retrieval settings hashed, and a local run's corpus
    folders), or of the local sample corpus."""
    from client.evaluation.target_key import corpus_hash, retrieval_settings_hash, target_key
    from local.emulator import DEFAULT_CORPUS

    if tenant is None:
        return target_key(kind, "sample", corpus_hash(corpus or DEFAULT_CORPUS))
    from schema import ConfigError, load_project

    try:
        project = load_project(config_dir, env_name)
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    name = tenant if kind == "local" else f"{env_name}/{tenant}"
    if tenant not in project.tenants:
        return target_key(kind, name)  # the target itself reports the unknown tenant
    settings = retrieval_settings_hash(project, tenant)
    return target_key(kind, name, settings + ("." + corpus_hash(corpus) if corpus else ""))


@click.command()
@click.option(
    "--dataset", "dataset_path", type=click.Path(path_type=Path), help="Dataset (JSONL); with --gate: the golden set."
)
@click.option("--url", help="Endpoint URL (function URL, or http://127.0.0.1:PORT).")
@env_option
@click.option("--tenant", help="Tenant whose deployed endpoint to evaluate (with --env; with --local: its settings).")
@click.option(
    "--local",
    is_flag=True,
    help="Start the emulator and the endpoint in this process (every corpus folder as a knowledge base, "
    "or --tenant's) and evaluate them.",
)
@config_option
@corpus_option("With --local: ")
@click.option(
    "--modes",
    default=",".join(MODES),
    show_default=True,
    callback=_csv(str, ALL_MODES),
    help="Modes to compare (also: agent).",
)
@click.option("--k", "ks", default="5,10", show_default=True, callback=_csv(int), help="Cut-offs for @k metrics.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="Output directory [eval-out/<dataset>].")
@click.option("--concurrency", default=4, show_default=True, type=click.IntRange(1, 64), help="Requests in flight.")
@click.option("--limit", type=click.IntRange(1), help="Only the first N questions (a quick run).")
@click.option(
    "--update-doc",
    "update_doc",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Also rewrite the page's generated sample-results section with this run's tables "
    "(docs/evaluation.md: `make eval-doc`).",
)
@click.option(
    "--gate",
    is_flag=True,
    help="Quality gate: the tenant's golden set and modes (its quality: block), judged against its thresholds and "
    "baseline; exit 6 on a regression (docs/evaluation.md).",
)
@click.option("--promote-baseline", is_flag=True, help="With --gate: store a passing run as the new baseline.")
@click.option(
    "--baseline-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --gate --local: the baseline file [eval-out/baselines/local-<env>-<tenant>.json].",
)
@output_option
def command(
    dataset_path: Path,
    url: str | None,
    env_name: str,
    tenant: str | None,
    local: bool,
    config_dir: Path,
    corpus_dir: Path | None,
    modes: list[str],
    ks: list[int],
    out_dir: Path | None,
    concurrency: int,
    limit: int | None,
    update_doc: Path | None,
    gate: bool,
    promote_baseline: bool,
    baseline_file: Path | None,
    output: OutputFormat,
) -> None:
    """Compare retrieval modes on a dataset: recall, precision, completeness, abstention, latency, cost."""
    gate_plan = None
    if gate or promote_baseline or baseline_file:
        from client.evaluation.gate_command import GateRequest, plan_gate

        conflicting = {"--dataset": dataset_path, "--update-doc": update_doc, "--limit": limit, "--corpus": corpus_dir}
        request = GateRequest(gate, config_dir, env_name, tenant, local, url, promote_baseline, baseline_file, out_dir)
        gate_plan = plan_gate(request, conflicting)
        dataset_path, modes, out_dir, ks = gate_plan.golden_set, gate_plan.modes, gate_plan.out_dir, gate_plan.ks(ks)
    if dataset_path is None:
        raise click.UsageError("--dataset is required (or --gate: the tenant's golden set)")
    chosen = sum(bool(x) for x in (url, tenant and not local, local))
    if chosen != 1:
        raise click.UsageError("choose one target: --url URL, --env ENV --tenant TENANT, or --local")
    _check_update_doc(update_doc)
    items = gate_plan.items if gate_plan else _dataset(dataset_path)
    items = items[:limit] if limit else items
    out_dir = out_dir or Path("eval-out") / dataset_path.stem
    _prepare_out_dir(out_dir)
    try:
        with _target(url, env_name, tenant, (local, corpus_dir), config_dir, out_dir) as target:
            target["user_id"] = gate_plan.identity.user_id if gate_plan else None
            report = _run(items, modes, ks, out_dir, concurrency, target, dataset_path, output == "json")
    except OSError as error:  # a write into --out failed mid-run (disk full, permissions changed)
        click.echo(f"cannot write {error.filename or out_dir}: {error.strerror or error}", err=True)
        raise SystemExit(1) from None
    if gate_plan is not None:
        raise SystemExit(gate_plan.finish(report))
    _conclude(report, update_doc, output)


def _dataset(dataset_path: Path) -> list[Any]:
    """The dataset's items; every problem of the file at once, as a setup failure (fix the file)."""
    from schema.eval_dataset import DatasetError, load_dataset

    try:
        return load_dataset(dataset_path)
    except DatasetError as error:
        raise Failure(f"the dataset has {len(error.problems)} problem(s):\n{error}", ExitCode.SETUP) from None


def _conclude(report: dict[str, Any], update_doc: Path | None, output: OutputFormat) -> None:
    """After a run: every request failed is a failed check; the page's table rewritten; the JSON report."""
    if report["overall"] and all(s["errors"] == s["questions"] for s in report["overall"].values()):
        raise Failure("every request failed: see the error field in records.jsonl", ExitCode.CHECKS_FAILED)
    if update_doc is not None:
        from client.evaluation.doc_table import write

        click.echo(
            f"{update_doc}: {'updated' if write(update_doc, report) else 'already up to date'}", err=output == "json"
        )
    if output == "json":
        print_json(report)  # stdout holds only the report; progress and tables went to stderr


def _check_update_doc(update_doc: Path | None) -> None:
    """--update-doc names a page with the generated section, or a usage error before any request."""
    if update_doc is None:
        return
    from client.evaluation.doc_table import generated_section

    try:
        generated_section(update_doc.read_text(encoding="utf-8"))
    except ValueError as error:
        raise click.UsageError(f"--update-doc {update_doc}: {error}") from None


def _agent_target(target: dict[str, Any]) -> Any:
    """The agent to evaluate for `--modes ...,agent`, or a ClickException saying why there is none."""
    from client.agent_client import AgentTargetError, resolve_agent

    if target.get("agent") is not None:
        return target["agent"]
    if target.get("agent_of") is None:
        raise click.ClickException("--modes agent needs --local or --env/--tenant (a URL names no agent)")
    try:
        return resolve_agent(*target["agent_of"])
    except AgentTargetError as error:
        raise click.ClickException(str(error)) from None


def _prepare_out_dir(out_dir: Path) -> None:
    """Creates --out before any request is sent, so a bad path costs nothing: one line, exit 2 (usage)."""
    problem = None
    if out_dir.exists() and not out_dir.is_dir():
        problem = "exists and is not a directory"
    else:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = error.strerror or str(error)
    if problem:
        click.echo(f"--out {out_dir}: {problem}", err=True)
        raise SystemExit(2)


def _console(as_json: bool) -> Any:
    """Where progress and tables go: stdout, or stderr with --output json (stdout is then the report's)."""
    from rich.console import Console

    console = Console(stderr=as_json)
    if not console.is_terminal:  # a pipe or a file has no width to fit: render whole tables, never "Precis…"
        console = Console(width=PIPE_WIDTH, stderr=as_json)
    return console


def _run(
    items: list[EvalItem],
    modes: list[str],
    ks: list[int],
    out_dir: Path,
    concurrency: int,
    target: dict[str, Any],
    dataset_path: Path,
    as_json: bool = False,
) -> dict[str, Any]:
    import json

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from client.endpoint_client import Client
    from client.evaluation.charts import write_charts
    from client.evaluation.report import build_report, render_tables
    from client.evaluation.runner import RECORDS_FILE, run_evaluation

    console = _console(as_json)
    client = Client(target["url"], region=target["region"])
    agent = _agent_target(target) if "agent" in modes else None

    def query(item: EvalItem, mode: str) -> Iterator[Event]:
        if mode == "agent" and agent is not None:
            from client.evaluation.agent_mode import agent_events

            return agent_events(agent, item.question)
        kbs, user_id = list(item.knowledge_bases) or None, target.get("user_id")  # user_id: the gate's canary
        return client.query(item.question, mode=mode, knowledge_bases=kbs, user_id=user_id)

    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    with client, progress:
        task = progress.add_task(f"{len(items)} questions x {len(modes)} modes", total=None)

        def on_start(total: int, done: int) -> None:
            progress.update(task, total=total, completed=done)
            if done:
                progress.console.print(f"resuming: {done} of {total} already in {out_dir / RECORDS_FILE}")

        def on_record(record: Record) -> None:
            progress.advance(task)
            if record.error:
                progress.console.print(f"[yellow]{record.id} ({record.mode}): {record.error}[/yellow]")

        records = run_evaluation(items, modes, query, out_dir, concurrency, on_start, on_record, target["key"])
    meta: dict[str, Any] = {"dataset": str(dataset_path), "target": target["description"], "targetKey": target["key"]}
    meta.update({"disclaimer": LOCAL_DISCLAIMER} if target["local"] else {})
    report = build_report(items, records, modes, ks, meta)
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    charts = write_charts(report, out_dir)
    if target["local"]:
        console.print(f"[bold]{LOCAL_DISCLAIMER}[/bold]")
    render_tables(report, console)
    console.print(f"wrote {out_dir / 'report.json'}, {out_dir / RECORDS_FILE}, " + ", ".join(map(str, charts)))
    return report

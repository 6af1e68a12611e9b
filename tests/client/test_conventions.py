"""The conventions every command shares, through the real CLI: `--version`, the AKB_* defaults, config
discovery from any folder, `--output json` with the shapes docs/client.md documents, the exit-code table
docs/client.md prints, shell completion."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from click.testing import CliRunner, Result

from client.cli import COMMANDS, main, prints_results
from client.exit_codes import MEANINGS, ExitCode
from tests.conftest import EXAMPLE_CONFIG, REPO
from tests.schema.conftest import config_copy  # noqa: F401 - fixture

CLIENT_DOC = REPO / "docs" / "client.md"
CONFIG = ["--config", str(EXAMPLE_CONFIG)]


def akb(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def test_version_names_the_package_version():
    from importlib.metadata import version

    result = akb("--version")
    assert result.exit_code == 0 and result.output == f"akb {version('agentic-retrieval-platform')}\n"


# --- defaults from the environment, config discovery ---------------------------------------------------------


def test_akb_env_and_akb_config_are_the_defaults(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    result = akb("validate", env={"AKB_ENV": "prod", "AKB_CONFIG": str(EXAMPLE_CONFIG)})
    assert result.exit_code == 0, result.output
    assert result.output == f"{EXAMPLE_CONFIG}/environments/prod.yaml: valid (1 tenants: acme)\n"


def test_akb_tenant_is_the_default_tenant():
    result = akb("policy", *CONFIG, "--output", "json", env={"AKB_TENANT": "globex"})
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["tenant"] == "globex"


def test_an_option_on_the_command_line_wins_over_the_environment():
    result = akb("policy", *CONFIG, "--tenant", "acme", env={"AKB_TENANT": "globex"})
    assert json.loads(result.output)["tenant"] == "acme"


def test_the_config_is_found_from_any_folder_below_it(monkeypatch):
    monkeypatch.chdir(REPO / "docs")
    result = akb("validate")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{EXAMPLE_CONFIG}/environments/dev.yaml: valid")


def test_no_config_found_says_where_it_looked_and_how_to_point_at_one(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AKB_CONFIG", raising=False)
    result = akb("validate")
    assert result.exit_code == ExitCode.SETUP
    assert result.output == (
        f"akb validate: no config directory found: looked for config/environments/ in {tmp_path} and every "
        "folder above it; pass --config DIR or set AKB_CONFIG (docs/client.md, Config discovery)\n"
    )


# --- --output: the documented shapes ---------------------------------------------------------------------------


def documented_shapes() -> dict[str, dict[str, list[str]]]:
    """docs/client.md's JSON table: command -> {"": top-level keys, "<field>": keys of its items}."""
    text = CLIENT_DOC.read_text(encoding="utf-8")
    table = text[text.index("| command | JSON document |") : text.index("### Exit codes")]
    shapes: dict[str, dict[str, list[str]]] = {}
    for row in table.splitlines()[2:]:
        if not row.startswith("| `akb"):
            continue
        commands_cell, document = row.split(" | ", 1)
        parts = {"": _keys(re.search(r"`\{([^}]*)\}`", document))}
        for name, inner in re.findall(r"`(\w+)`: `\[?\{([^}]*)\}\]?`", document):
            parts[name] = [key.strip() for key in inner.split(",")]
        for command in re.findall(r"`akb ([a-z -]+)`", commands_cell):
            shapes[command.strip()] = parts
    return shapes


def _keys(match: re.Match[str] | None) -> list[str]:
    assert match is not None
    return [key.strip() for key in match.group(1).split(",") if key.strip() not in ("...", "")]


def check_shape(command: str, document: dict) -> None:
    """The document's keys, and its lists' items' keys, are the documented ones in the documented order."""
    shape = documented_shapes()[command]
    assert list(document) == shape[""], (command, list(document))
    for field, keys in shape.items():
        if field and document.get(field):
            value = document[field]
            first = value[0] if isinstance(value, list) else value
            assert list(first) == keys, (command, field, list(first))


def test_the_docs_table_names_a_shape_for_every_command_that_prints_results():
    shapes = documented_shapes()
    printing = {name for name in COMMANDS if prints_results(main.get_command(None, name))}  # type: ignore[arg-type]
    assert printing == {command.split()[0] for command in shapes}


def test_validate_json_valid_and_invalid(config_copy):  # noqa: F811
    valid = akb("validate", *CONFIG, "--output", "json")
    assert valid.exit_code == 0
    check_shape("validate", json.loads(valid.output))
    config_copy.edit("tenants", "globex", lambda t: t.update(retreival={"max_agent_iteration": 99}))
    invalid = akb("validate", "--config", str(config_copy.root), "--output", "json")
    document = json.loads(invalid.output)
    assert invalid.exit_code == ExitCode.SETUP and document["valid"] is False
    check_shape("validate", document)
    assert document["problems"][0]["field"] == "" and "retreival" in document["problems"][0]["message"]


def test_policy_json():
    result = akb("--output", "json", "policy", *CONFIG, "--tenant", "acme")
    document = json.loads(result.output)
    shape = documented_shapes()["policy"][""]
    assert list(document)[: len(shape)] == shape


def test_cache_json_stats_and_flush(monkeypatch, tmp_path):
    monkeypatch.setenv("AKB_LOCAL_CACHE_DIR", str(tmp_path))
    stats = akb("cache", "stats", "--local", "--tenant", "acme", *CONFIG, "--output", "json")
    assert stats.exit_code == 0, stats.output
    document = json.loads(stats.output)
    check_shape("cache stats", document)
    assert document["entries"] == 0 and document["hitRate"] is None
    flushed = akb("--output", "json", "cache", "flush", "--local", "--tenant", "acme", "--kb", "docs", *CONFIG)
    assert json.loads(flushed.output) == {"environment": "dev", "tenant": "acme", "knowledgeBase": "docs", "removed": 0}


def test_ingest_dry_run_json():
    result = akb(
        "ingest",
        "--tenant",
        "acme",
        "--kb",
        "docs",
        "--dry-run",
        str(REPO / "local/corpus/docs"),
        *CONFIG,
        env={"AKB_OUTPUT": "json"},
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    check_shape("ingest --dry-run", document)
    assert document["uploads"] and all(upload["key"].startswith("docs/") for upload in document["uploads"])


def test_cost_json_against_a_stub_aws(moto_url, no_aws_credentials):
    """moto (server mode, a test double for CloudWatch and SSM: no AWS account here) answers empty metrics."""
    for name, value in (("AWS_ENDPOINT_URL", moto_url), ("AWS_ACCESS_KEY_ID", "x"), ("AWS_SECRET_ACCESS_KEY", "x")):
        no_aws_credentials.setenv(name, value)
    result = akb("cost", *CONFIG, "--output", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    check_shape("cost", document)
    assert [row["tenant"] for row in document["tenants"]] == ["acme", "globex"]
    assert document["tenants"][1]["cacheSavingsUsd"] is None


def test_output_given_to_akb_for_a_command_that_prints_nothing_is_a_usage_error():
    result = akb("--output", "json", "local")
    assert result.exit_code == ExitCode.USAGE and "akb local prints no results to format" in result.output


def test_a_bad_akb_output_value_is_a_usage_error():
    result = akb("validate", *CONFIG, env={"AKB_OUTPUT": "yaml"})
    assert result.exit_code == ExitCode.USAGE and "AKB_OUTPUT=yaml: use text or json" in result.output


# --- the exit-code table --------------------------------------------------------------------------------------------


def test_docs_print_the_exit_code_table_of_client_exit_codes():
    text = CLIENT_DOC.read_text(encoding="utf-8")
    table = text[text.index("| code | name | when |") : text.index("### Errors")]
    rows = [row.split(" | ") for row in table.splitlines()[2:] if row.startswith("| ")]
    documented = {int(cells[0].strip("| ")): cells[1].strip("`") for cells in rows}
    assert documented == {int(code): code.name for code in ExitCode}
    assert set(MEANINGS) == set(ExitCode)


def test_completion_is_generated_for_the_lazy_commands_and_their_options():
    result = CliRunner().invoke(
        main,
        [],
        prog_name="akb",
        env={"_AKB_COMPLETE": "bash_complete", "COMP_WORDS": "akb doctor --out", "COMP_CWORD": "2"},
    )
    assert result.output.splitlines() == ["plain,--output"]


@pytest.fixture
def moto_url() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.mark.slow  # a real `akb` process: the closed pipe is the operating system's, not CliRunner's
def test_a_reader_that_closed_stdout_ends_akb_quietly_with_141():
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "client", "policy", *CONFIG, "--tenant", "acme"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # `| head -0`: the reader is gone before the first line is written
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == ExitCode.PIPE_CLOSED, stderr
    assert stderr == b""  # no "internal error", no "Exception ignored" from the exit's flush

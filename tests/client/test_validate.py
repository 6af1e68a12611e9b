"""`akb validate` prints the same errors as synth and exits non-zero on a bad config."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from client.cli import main
from tests.schema.conftest import config_copy  # noqa: F401 - fixture


def test_validate_accepts_the_example_config():
    result = CliRunner().invoke(main, ["validate", "--env", "dev"])
    assert result.exit_code == 0, result.output
    assert "valid (2 tenants: acme, globex)" in result.output


def test_validate_names_the_file_and_field_and_exits_1(config_copy):  # noqa: F811
    config_copy.edit("tenants", "globex", lambda t: t.update(user_context="everyone"))
    result = CliRunner().invoke(main, ["validate", "--config", str(config_copy.root)])
    assert result.exit_code == 1
    assert "globex.yaml: user_context: Input should be 'none', 'caller' or 'trusted'" in result.output
    assert "Traceback" not in result.output


def _long_descriptions(tenant: dict) -> None:
    for kb in tenant["knowledge_bases"]:
        kb["description"] = "Every document about the product, in great detail. " * 40


@pytest.mark.synth
@pytest.mark.xdist_group("synth")
def test_validate_refuses_what_synth_refuses_with_the_same_numbers(config_copy, tmp_path):  # noqa: F811
    """Descriptions that fit the schema but not Lambda's 4 KB environment: synth's endpoint
    construct refuses them, so validate must too (before, validate passed and synth failed)."""
    import re

    from tests.synth import synthesize

    config_copy.edit("tenants", "acme", _long_descriptions)
    result = CliRunner().invoke(main, ["validate", "--config", str(config_copy.root)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "acme.yaml: knowledge_bases: the function's environment can reach" in result.output
    with pytest.raises(ValueError) as caught:  # the construct itself, as `cdk synth` builds it
        synthesize(config_copy.root, "dev", tmp_path / "cdk.out")
    size = re.compile(r"can reach (\d+) bytes")
    assert size.search(result.output)[1] == size.search(str(caught.value))[1]


@pytest.mark.slow  # runs app.py (a synth) in a child process
def test_synth_reports_the_same_limit_as_a_config_error_not_a_stack_trace(config_copy):  # noqa: F811
    import subprocess
    import sys

    from tests.conftest import REPO

    config_copy.edit("tenants", "acme", _long_descriptions)
    run = subprocess.run(
        [sys.executable, "app.py"],
        cwd=REPO,
        env={**__import__("os").environ, "CDK_CONTEXT_JSON": f'{{"config": "{config_copy.root}"}}'},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "acme.yaml: knowledge_bases: the function's environment can reach" in run.stderr


def test_validate_refuses_an_environment_name_that_reaches_outside_the_config(config_copy):  # noqa: F811
    result = CliRunner().invoke(main, ["validate", "--config", str(config_copy.root), "--env", "../environments/dev"])
    assert result.exit_code == 1 and "is not a name" in result.output

"""`akb validate` prints the same errors as synth and exits non-zero on a bad config."""

from __future__ import annotations

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

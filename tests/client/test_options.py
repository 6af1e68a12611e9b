"""client/options.py: the options several commands share behave the same in each."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from client.cli import main

# Every command that serves the emulator's corpus; the arguments each needs to get as far as its options.
CORPUS_COMMANDS = [
    ["emulator"],
    ["local"],
    ["eval", "--local", "--dataset", "local/eval/sample.jsonl"],
    ["playground", "--local", "--no-browser"],
]


@pytest.mark.parametrize("command", CORPUS_COMMANDS, ids=lambda c: c[0])
def test_a_missing_corpus_folder_is_a_usage_error_naming_the_option_in_every_command(command, tmp_path):
    missing = tmp_path / "no-such-corpus"
    result = CliRunner().invoke(main, [*command, "--corpus", str(missing)])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--corpus'" in result.output and "does not exist" in result.output
    assert "Traceback" not in result.output


DELAY_DEFAULTS = [(["emulator"], "20.0"), (["local"], "100.0"), (["playground"], "100.0")]


@pytest.mark.parametrize(("command", "default"), DELAY_DEFAULTS)
def test_delay_ms_takes_milliseconds_up_to_a_minute_with_the_commands_default(command, default):
    helped = CliRunner().invoke(main, [*command, "--help"])
    assert helped.exit_code == 0 and f"[default: {default}" in helped.output.replace("\n", " ")
    refused = CliRunner().invoke(main, [*command, "--delay-ms", "60001"])
    assert refused.exit_code == 2 and "Invalid value for '--delay-ms'" in refused.output

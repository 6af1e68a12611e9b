"""Every shell command README.md and docs/ show runs as written, unless it says it needs AWS.

Each document is one terminal session, as a reader would type it: in a throwaway copy of the
repository (the commands may write files: `> answer.txt`, `cp -r config broken`, cdk.out/), with the
virtualenv active (README: `akb` and `python` are the project's), no AWS credentials, and the
documented overrides that keep it off fixed ports: AKB_LOCAL_URL (where `akb local` serves and
`--local` looks), AKB_EMULATOR_PORT=0, AKB_MCP_PORT. A server (`akb local`, `akb emulator`,
`akb mcp --http`, `make local`) is started in the background and the next command waits until it
says it is ready, as a person does; a second server of the same kind replaces the first (it would
take its port); a page that asks `--local` without starting `akb local` gets the one README starts.
Every other command must exit 0 without a traceback; a curl to /v1/query must get a stream that
ends with `done`. `# needs AWS` commands are not run; `# CI runs this` ones must be in
.ci/run as written.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.shell_blocks import LOOKS_LIKE_A_COMMAND, Command, commands, documents, fenced_blocks

REPO = Path(__file__).resolve().parents[2]
READY = {
    "local": "Ctrl-C to stop.",
    "emulator": "Ctrl-C to stop.",
    "mcp": "MCP (Streamable HTTP) on",
    "playground": "Ctrl-C stops it.",
}
READY_SECONDS = 120
# A command that asks the endpoint `akb local` runs (`akb eval --local` starts one of its own).
ASKS_LOCAL = re.compile(r"akb (ask|mcp)\b[^\n|;&]*--local\b|\$\{?AKB_LOCAL_URL")
COMMAND_SECONDS = 400  # `make synth`, `make synth-pipeline` synthesize whole environments


def _shell_commands(path: Path) -> list[Command]:
    return [command for block in fenced_blocks(path, REPO) if block.language == "bash" for command in commands(block)]


def _runnable(path: Path) -> list[Command]:
    return [command for command in _shell_commands(path) if not (command.needs_aws or command.ci_runs)]


DOCUMENTS = [path for path in documents(REPO) if _runnable(path)]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_kind(command: Command) -> str | None:
    """Which server the command starts (it runs until stopped), or None."""
    words = " ".join(shlex.split(command.text.replace("\\\n", " "), comments=True)).removesuffix("&").strip()
    if re.search(r"\b(akb|make) local\b", words):
        return "local"
    if re.search(r"\b(akb|make) emulator\b", words):
        return "emulator"
    if re.search(r"\bakb mcp\b.*--http", words):
        return "mcp"
    if re.search(r"\bakb playground\b", words):
        return "playground"
    return None


class Server:
    """A background command's process group and its output, read as it comes."""

    def __init__(self, command: Command, cwd: Path, env: dict[str, str]) -> None:
        lines = command.text.rstrip().splitlines()
        lines[-1] = re.sub(r"(?<!&)&(?!&)\s*(#.*)?$", "", lines[-1])  # it runs in the background here anyway
        text = "\n".join(lines)
        self.command = command
        self.output: list[str] = []
        self.process = subprocess.Popen(
            ["bash", "-c", text],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # its own process group: bash, make, akb and their children
        )
        threading.Thread(target=lambda: self.output.extend(self.process.stdout or ()), daemon=True).start()

    def wait_ready(self, line: str) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while not any(line in out for out in self.output):
            assert self.process.poll() is None, f"{self.command} exited:\n{''.join(self.output)}"
            assert time.monotonic() < deadline, f"{self.command} not ready:\n{''.join(self.output)}"
            time.sleep(0.05)  # polls the output the reader thread collects

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGINT)  # Ctrl-C, as the docs say
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        assert "Traceback" not in "".join(self.output), f"{self.command}:\n{''.join(self.output)}"


class Session:
    """One document's commands, in order, like one terminal."""

    def __init__(self, cwd: Path, scratch: Path) -> None:
        self.cwd = cwd
        self.servers: dict[str, Server] = {}
        self.env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "AKB_"))}
        self.env.update(
            PATH=f"{REPO / '.venv' / 'bin'}:{os.environ['PATH']}",
            VIRTUAL_ENV=str(REPO / ".venv"),
            AKB_LOCAL_URL=f"http://127.0.0.1:{_free_port()}",
            AKB_EMULATOR_PORT="0",
            AKB_MCP_PORT=str(_free_port()),
            AKB_LOCAL_CACHE_DIR=str(scratch / "cache"),
            AWS_CONFIG_FILE=str(scratch / "aws-config"),
            AWS_SHARED_CREDENTIALS_FILE=str(scratch / "aws-credentials"),
            AWS_EC2_METADATA_DISABLED="true",
            BROWSER="true",  # Python's webbrowser runs `true URL`: `akb playground` opens no window here
        )

    def run(self, command: Command) -> None:
        kind = server_kind(command)
        if kind != "local" and "local" not in self.servers and ASKS_LOCAL.search(command.text):
            # A page that asks `akb local` without starting it: the reader started it (README) first.
            self._start("local", Command("README.md", 0, "akb local"))
        if kind is None:
            self._run_once(command)
        else:
            self._start(kind, command)

    def _start(self, kind: str, command: Command) -> None:
        if kind in self.servers:  # the new one takes its port
            self.servers.pop(kind).stop()
        server = Server(command, self.cwd, self.env)
        self.servers[kind] = server
        server.wait_ready(READY[kind])

    def _run_once(self, command: Command) -> None:
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail\n{command.text}"],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=COMMAND_SECONDS,
        )
        said = f"{command}\nexit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        assert done.returncode == 0, said
        assert "Traceback" not in done.stdout + done.stderr, said
        if command.text.lstrip().startswith("curl") and "/v1/query" in command.text:
            assert "event: done" in done.stdout and '"stopReason":"complete"' in done.stdout, said

    def close(self) -> None:
        for server in self.servers.values():
            server.stop()


def stale_setup(repo: Path) -> list[str]:
    """What `make setup` would reinstall for (the Makefile's prerequisites newer than .venv/bin/.installed).

    The documents run `make setup` in the copy, whose .venv is the real one: were anything stale, it would
    reinstall the project from the copy into the shared virtualenv (its editable install then pointing at
    a temporary directory)."""
    installed = repo / ".venv" / "bin" / ".installed"
    if not installed.exists():
        return [str(installed.relative_to(repo))]
    built = installed.stat().st_mtime
    return [name for name in ("requirements.lock", "pyproject.toml") if (repo / name).stat().st_mtime > built]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The repository's files (tracked and new), with the real .venv, node_modules and .build linked in."""
    stale = stale_setup(REPO)
    if stale:
        pytest.fail(f"run `make setup` first ({', '.join(stale)} newer than the .venv): see stale_setup()")
    copy = tmp_path_factory.mktemp("checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)  # keeps mtimes: `make setup` finds .venv up to date
    (REPO / ".build").mkdir(exist_ok=True)  # the Lambda dependency cache, built once (atomically) for both
    for shared in (".venv", "node_modules", ".build"):
        if (REPO / shared).exists():
            (copy / shared).symlink_to(REPO / shared)
    return copy


@pytest.fixture
def session(checkout, tmp_path) -> Iterator[Session]:
    opened = Session(checkout, tmp_path)
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_command_of_the_document_runs_as_written(session, document):
    for command in _runnable(document):
        session.run(command)


def test_a_stale_or_missing_setup_is_named_before_any_document_runs(tmp_path):
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    for name in ("requirements.lock", "pyproject.toml"):
        (tmp_path / name).write_text("")
    assert stale_setup(tmp_path) == [".venv/bin/.installed"]
    installed = tmp_path / ".venv" / "bin" / ".installed"
    installed.write_text("")
    os.utime(tmp_path / "pyproject.toml", (installed.stat().st_mtime + 5,) * 2)
    assert stale_setup(tmp_path) == ["pyproject.toml"]
    os.utime(installed, (installed.stat().st_mtime + 10,) * 2)
    assert stale_setup(tmp_path) == []


def test_commands_ci_runs_are_in_ci_run_as_written():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for path in documents(REPO):
        for command in _shell_commands(path):
            if command.ci_runs:
                typed = command.text.split("#", 1)[0].strip()
                assert typed in ci, f"{command}: not in .ci/run"


def test_shell_commands_are_only_in_bash_blocks():
    """A command in a block of another language (or none) would escape this test."""
    for path in documents(REPO):
        for block in fenced_blocks(path, REPO):
            if block.language in ("bash", "python", "json", "yaml", "text"):
                continue
            for number, line in enumerate(block.lines, start=block.line + 1):
                assert not LOOKS_LIKE_A_COMMAND.match(line), f"{block.file}:{number}: {line!r} is outside ```bash"


def test_the_documents_link_files_that_exist():
    for path in documents(REPO):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://", "mailto:")):
                assert (path.parent / target).exists(), f"{path.name}: link to {target}"


def test_the_config_files_point_at_sections_that_exist():
    """`Every field is described in docs/configuration.md, "Reference".`: the page and its heading."""
    for path in sorted((REPO / "config").rglob("*.yaml")):
        for page, section in re.findall(r"(\S+\.md), \"([^\"]+)\"", path.read_text(encoding="utf-8")):
            headings = re.findall(r"^#+ (.+)$", (REPO / page).read_text(encoding="utf-8"), re.M)
            assert section in headings, f"{path.name}: {page} has no section {section!r}"

"""The exit codes of every `akb` command: one table, so a script reads `$?` the same way everywhere.

`akb ask` defined the first codes (1 setup, 2 usage, 3 refused or unreachable, 4 incomplete, 5
deadline) and keeps them; every other command uses the same number for the same cause. aws-cli
uses one code per cause class too (252-255); these stay small because scripts already test them.
docs/client.md prints this table (tests/client/test_exit_codes.py keeps the two equal).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    # Something on this side must change before a retry can succeed: the config (invalid, unknown
    # environment or tenant, not found), AWS credentials or profile, the region, a port in use, a
    # tenant's stack not deployed (its SSM parameter missing).
    SETUP = 1
    USAGE = 2  # a bad option or argument (click's own code)
    # The other side said no or was not there, before any result: refused (HTTP 401/403, AWS
    # AccessDenied), throttled past the retries, unreachable (connection refused, DNS, TLS).
    UNAVAILABLE = 3
    # A result came, but not all of it: an error in the stream, a stream that broke off, an answer
    # the endpoint marked possibly incomplete (iteration_limit, partial).
    INCOMPLETE = 4
    DEADLINE = 5  # the endpoint's deadline or this client's first-event/idle timeout
    # The command ran and what it checked is not in order: a doctor/verify FAIL, an ingestion job
    # that failed or left documents unindexed, an evaluation whose every request failed.
    CHECKS_FAILED = 6
    INTERNAL = 70  # a bug in akb (sysexits' EX_SOFTWARE): one line, `--debug` for the traceback
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)
    # Whoever read stdout closed it (`akb ask ... | head -1`): nothing more is printed, as a process
    # ended by SIGPIPE would report it (128 + 13).
    PIPE_CLOSED = 141


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "success",
    ExitCode.SETUP: "setup: invalid config, unknown environment or tenant, no AWS credentials, profile not found, "
    "no region, a port in use, a stack not deployed",
    ExitCode.USAGE: "usage: a bad option or argument",
    ExitCode.UNAVAILABLE: "refused (401/403, AccessDenied), throttled past the retries, or unreachable: no result",
    ExitCode.INCOMPLETE: "incomplete: an error in the stream, a stream cut off, an answer marked possibly incomplete",
    ExitCode.DEADLINE: "deadline: the endpoint's, or this client's first-event/idle timeout",
    ExitCode.CHECKS_FAILED: "checks failed: a doctor/verify FAIL, a failed ingestion job or unindexed documents, "
    "an evaluation whose every request failed",
    ExitCode.INTERNAL: "a bug in akb: rerun with --debug and report the traceback",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
    ExitCode.PIPE_CLOSED: "stdout's reader closed it (`| head`): the rest is not printed",
}


class SetupError(Exception):
    """An error the user fixes on their side (config, a name, a deployed stack); its message says how.

    The client's own error classes derive from it, so the one error path (client/failures.py) prints
    them as one line and exits SETUP without knowing each."""

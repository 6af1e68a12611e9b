"""IAM policy evaluation for tests: AWS's request-evaluation logic, not a hand-written matcher.

Runs @cloud-copilot/iam-simulate (npm, pinned in package.json; `make setup` installs it) in one Node
process per batch. It evaluates identity and resource policies together (explicit deny wins, an Allow
whose condition fails is neutral) with every condition operator (ArnNotLike, BoolIfExists, ...). The
request context is what the test gives: AWS fills it per request (aws:RequestedRegion is us-east-1 for
IAM, aws:PrincipalIsAWSService is true for a service principal), so each test states it explicitly.

No maintained evaluator on PyPI evaluates a request context offline, and moto's (moto.iam.access_control)
knows only StringEquals and treats an Allow whose condition fails as an explicit deny: it serves only as
a second opinion where a policy uses StringEquals alone (tests/security/test_deployment_policy.py).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Any

from tests.conftest import REPO

SCRIPT = REPO / "tests" / "iam_simulation.mjs"
ALLOWED, IMPLICIT_DENY, EXPLICIT_DENY = "Allowed", "ImplicitlyDenied", "ExplicitlyDenied"


@dataclass(frozen=True)
class Request:
    """One API request as IAM sees it: who, which action, on what, with which request context."""

    principal: str
    action: str
    resource: str
    account: str
    context: dict[str, str | list[str]] = field(default_factory=dict)


def evaluate(
    requests: list[Request],
    identity_policies: list[dict[str, Any]] = (),  # type: ignore[assignment]
    resource_policy: dict[str, Any] | None = None,
) -> list[str]:
    """The overall decision (Allowed / ImplicitlyDenied / ExplicitlyDenied) for each request, in order."""
    simulations = [_simulation(request, identity_policies, resource_policy) for request in requests]
    completed = subprocess.run(
        ["node", str(SCRIPT)], input=json.dumps(simulations), capture_output=True, text=True, timeout=60, cwd=REPO
    )
    if completed.returncode != 0:
        raise RuntimeError(f"iam-simulate failed: {completed.stderr.strip()}")
    answers = json.loads(completed.stdout)
    problems = [answer["errors"] for answer in answers if answer["result"] is None]
    if problems:
        raise ValueError(f"iam-simulate refused the simulation: {problems[0]}")
    return [answer["result"] for answer in answers]


def _simulation(
    request: Request, identity_policies: list[dict[str, Any]], resource_policy: dict[str, Any] | None
) -> dict[str, Any]:
    simulation: dict[str, Any] = {
        "request": {
            "principal": request.principal,
            "action": request.action,
            "resource": {"resource": request.resource, "accountId": request.account},
            "contextVariables": request.context,
        },
        "identityPolicies": [{"name": f"policy{n}", "policy": p} for n, p in enumerate(identity_policies)],
        "serviceControlPolicies": [],
        "resourceControlPolicies": [],
    }
    if resource_policy is not None:
        simulation["resourcePolicy"] = resource_policy
    return simulation

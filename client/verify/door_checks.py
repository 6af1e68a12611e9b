"""The canary question through each door a tenant has: its endpoint (function URL or API front door, and
the function URL kept beside an API), its MCP gateway, its Bedrock agent — as the tenant's canary user.

Each door is called with the client its users have (client/endpoint_client.py like `akb ask`,
client/agent_client.py like `akb ask --agent`, an MCP call signed like them): a door passes when its
stream completes. What each call showed is kept, so `kb-policy` can say whether the knowledge bases'
resource policies admitted every door's role (docs/facts-and-decisions.md, Issue 25, fact 5).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from client.doctor.findings import Finding, fail, ok, warn
from client.verify.verification import DoorOutcome, Verification

ENDPOINT, FUNCTION_URL, GATEWAY, AGENT = "door:endpoint", "door:function-url", "door:gateway", "door:agent"
KB_POLICY = "kb-policy"


def canary(v: Verification, tenant: str) -> tuple[str, str | None]:
    """(question, user id) of the tenant's `canary:` block; without one, a generic question and no user."""
    from schema.canary_config import DEFAULT_CANARY_QUESTION

    block = v.project.tenants[tenant].canary
    return (block.question, block.user_id) if block else (DEFAULT_CANARY_QUESTION, None)


def endpoint_user_id(v: Verification, tenant: str) -> str | None:
    """The `userId` the endpoint accepts from the verifying caller, as the quality gate sends it: the canary's
    only with user_context trusted (a trusted invoker names its end user); with caller, the endpoint derives
    the user from the caller's own identity and refuses a body `userId` (403 user_id_not_allowed)."""
    from schema.quality_config import gate_identity

    settings = v.project.tenants[tenant]
    return gate_identity(settings.user_context, settings.canary).user_id


def check_endpoint(v: Verification, tenant: str) -> Iterator[Finding]:
    """The endpoint's URL (API or function URL), and the function URL kept while callers move."""
    from contract.resource_names import invoke_policy_name

    doors = [(ENDPOINT, "endpoint/url"), (FUNCTION_URL, "endpoint/function-url")]
    for check, key in doors:
        url = v.parameter(tenant, key)
        if url is None:
            if check == ENDPOINT:
                yield fail(check, f"no {key} parameter: deploy the stack {v.env_name}-{tenant} (cdk deploy)")
            continue
        outcome = v.record(tenant, _ask_endpoint(v, tenant, url, check))
        policy = invoke_policy_name(v.env_name, tenant)
        yield _door_finding(check, outcome, f"attach the managed policy {policy} to the verifying principal")


def _ask_endpoint(v: Verification, tenant: str, url: str, door: str) -> DoorOutcome:
    from client.endpoint_client import EndpointError, EndpointHTTPError, StreamError
    from client.sigv4 import SigningError

    question, _ = canary(v, tenant)
    user_id = endpoint_user_id(v, tenant)
    try:
        with v.endpoint_client(url, v.checkup.region) as client:
            answer = client.ask(question, user_id=user_id)
    except EndpointHTTPError as error:
        return DoorOutcome(door, False, str(error.status) if error.status == 403 else error.code, error.message)
    except StreamError as error:
        return DoorOutcome(door, False, error.code, error.message)
    except (EndpointError, SigningError) as error:
        return DoorOutcome(door, False, type(error).__name__, str(error))
    sources = len(answer.results)
    return DoorOutcome(door, True, message=f"{answer.done.iterations} iterations, {sources} sources")


def _door_finding(check: str, outcome: DoorOutcome, refused_fix: str) -> Finding:
    if outcome.answered:
        return ok(check, f"the canary question completed ({outcome.message})")
    if outcome.code == "403":
        return fail(check, f"refused the verifying principal (403): {refused_fix}")
    if outcome.access_denied:
        return fail(
            check,
            f"Bedrock refused the door's role ({outcome.message}): check the knowledge bases' resource policies "
            "and the role's policy (akb policy; docs/security.md)",
        )
    return fail(check, f"the canary question did not complete ({outcome.code}: {outcome.message})")


def check_gateway(v: Verification, tenant: str) -> Iterator[Finding]:
    """The MCP gateway's ask tool, signed for bedrock-agentcore (AWS_IAM gateways only)."""
    config = v.project.tenants[tenant].gateway
    if config is None:
        return
    if config.authorizer != "AWS_IAM":
        yield warn(
            GATEWAY,
            f"{config.authorizer} gateway: verify signs with IAM only; ask through an MCP client with a token of "
            "an allowed client instead",
        )
        return
    url = v.parameter(tenant, "gateway/url")
    if url is None:
        yield fail(GATEWAY, f"no gateway/url parameter: deploy the stack {v.env_name}-{tenant}")
        return
    outcome = v.record(tenant, _ask_gateway(v, tenant, url))
    yield _door_finding(GATEWAY, outcome, "attach the gateway's invoke policy (gateway/invoke-policy-arn)")


def _ask_gateway(v: Verification, tenant: str, url: str) -> DoorOutcome:
    from client.verify.gateway_call import GatewayCaller, GatewayCallFailed

    question, _ = canary(v, tenant)  # an IAM caller is not named to the interceptor: no user id (docs/agents.md)
    caller = (v.gateway_caller or GatewayCaller)(url, v.checkup.region)
    try:
        result = caller.ask(question)
    except GatewayCallFailed as error:
        return DoorOutcome(GATEWAY, False, error.code, error.message)
    text = " ".join(str(part.get("text", "")) for part in result.get("content") or [] if isinstance(part, dict))
    if result.get("isError"):
        code = "accessDeniedException" if "accessdenied" in text.replace(" ", "").lower() else "tool_error"
        return DoorOutcome(GATEWAY, False, code, text[:200])
    return DoorOutcome(GATEWAY, True, message=f"{len(text)} characters of answer")


def check_agent(v: Verification, tenant: str) -> Iterator[Finding]:
    """The tenant's Bedrock agent, as `akb ask --agent` calls it."""
    if v.project.tenants[tenant].agent is None:
        return
    outcome = v.record(tenant, _ask_agent(v, tenant))
    yield _door_finding(AGENT, outcome, "allow bedrock:InvokeAgent on the agent's alias (docs/agents.md)")


def _ask_agent(v: Verification, tenant: str) -> DoorOutcome:
    from botocore.exceptions import BotoCoreError, ClientError

    from client.agent_client import AgentTargetError, ask_agent, resolve_agent
    from lambdas.agent_action.search_report import parse

    question, user_id = canary(v, tenant)
    try:
        target = resolve_agent(v.project.config_dir, v.env_name, tenant, v.checkup.client("ssm"))
        steps = list(ask_agent(target, question, user_id=user_id, client=v.checkup.client("bedrock-agent-runtime")))
    except AgentTargetError as error:
        return DoorOutcome(AGENT, False, "not_deployed", str(error))
    except ClientError as error:
        code = str(error.response.get("Error", {}).get("Code", "ClientError"))
        return DoorOutcome(
            "agent", False, "403" if code in {"AccessDeniedException"} else code, v.checkup.redact(str(error))
        )
    except BotoCoreError as error:
        return DoorOutcome(AGENT, False, type(error).__name__, v.checkup.redact(str(error)))
    reports = [parse(step.text) for step in steps if step.kind == "observation"]
    partial = [r.partial_reason or r.truncated for r in reports if not r.complete]
    if partial or not reports:
        reason = partial[0] if partial else "the agent answered without searching"
        return DoorOutcome(AGENT, False, "incomplete", str(reason))
    return DoorOutcome(AGENT, True, message=f"{len(reports)} searches, all complete")


def check_kb_policy(v: Verification, tenant: str) -> Iterator[Finding]:
    """Fact 5 observed: every door that reached Bedrock was admitted by the knowledge bases' resource policies."""
    outcomes: list[Any] = v.outcomes.get(tenant, [])
    denied = [o.door for o in outcomes if o.access_denied and o.code != "403"]
    answered = [o.door for o in outcomes if o.answered]
    if denied:
        doors = ", ".join(denied)
        yield fail(
            KB_POLICY,
            f"Bedrock refused {doors}: the knowledge bases' resource policy may refuse that door's role or the "
            "principal Bedrock calls as (akb policy shows the policy)",
        )
    elif answered:
        yield ok(KB_POLICY, f"the knowledge bases admitted every door that answered ({', '.join(answered)})")
    else:
        yield warn(KB_POLICY, "no door answered, so the knowledge bases' resource policies were not observed")

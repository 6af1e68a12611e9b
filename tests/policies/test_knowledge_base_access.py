"""The knowledge-base resource policy: only the tenant's readers get past it, and only data-plane actions."""

from __future__ import annotations

import pytest

from policies.knowledge_base_access import READ_ACTIONS, KnowledgeBaseAccessInputs, knowledge_base_access_policy
from tests.iam_simulation import ALLOWED, EXPLICIT_DENY, Request, evaluate

KB = "arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KBDOCS0001"
ENDPOINT_ROLE = "arn:aws:iam::111122223333:role/akb-dev-acme-endpoint"
PARTNER = "arn:aws:iam::444455556666:role/partner-reader"
CONSOLE = "arn:aws:iam::111122223333:role/break-glass"


def _by_sid(policy: dict) -> dict[str, dict]:
    return {statement["Sid"]: statement for statement in policy["Statement"]}


def test_deny_covers_every_principal_except_the_readers_by_principal_arn():
    policy = knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE]))
    (deny,) = policy["Statement"]
    assert deny["Effect"] == "Deny" and deny["Principal"] == {"AWS": "*"}
    assert deny["Condition"] == {
        "ArnNotEquals": {"aws:PrincipalArn": [ENDPOINT_ROLE]},
        "BoolIfExists": {"aws:PrincipalIsAWSService": "false"},
    }
    assert deny["Resource"] == KB


def test_only_the_two_data_plane_actions_appear_never_a_wildcard_or_control_plane_action():
    policy = knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE], [PARTNER], [CONSOLE]))
    for statement in policy["Statement"]:
        assert sorted(statement["Action"]) == sorted(READ_ACTIONS) == ["bedrock:GetDocumentContent", "bedrock:Retrieve"]
        assert statement["Resource"] == KB and "*" not in statement["Resource"]


def test_cross_account_readers_get_an_explicit_allow_and_are_exempt_from_the_deny():
    statements = _by_sid(knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE], [PARTNER])))
    allow = statements["CrossAccountReadersListedInTheTenantFile"]
    assert allow["Effect"] == "Allow" and allow["Principal"] == {"AWS": [PARTNER]}
    exempt = statements["OnlyTheTenantsReadersMayRetrieve"]["Condition"]["ArnNotEquals"]["aws:PrincipalArn"]
    assert exempt == [ENDPOINT_ROLE, PARTNER]


def test_break_glass_roles_are_exempt_but_get_no_allow():
    policy = knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE], (), [CONSOLE]))
    (deny,) = policy["Statement"]
    assert deny["Condition"]["ArnNotEquals"]["aws:PrincipalArn"] == [ENDPOINT_ROLE, CONSOLE]


def test_a_policy_without_a_reader_role_is_refused():
    with pytest.raises(ValueError, match="at least one reader role"):
        knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, []))


# --- Evaluated as IAM does (tests/iam_simulation.py), with the request context AWS sets per reading ----------
ACCOUNT = "111122223333"
IDENTITY_ALLOW = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "bedrock:Retrieve", "Resource": "*"}],
}


def _iam_caller(arn: str, **extra: str) -> Request:
    context = {"aws:PrincipalArn": arn, "aws:PrincipalAccount": arn.split(":")[4], "aws:PrincipalIsAWSService": "false"}
    return Request(arn, "bedrock:Retrieve", KB, ACCOUNT, {**context, **extra})


SERVICE_PRINCIPAL = Request(
    "bedrock.amazonaws.com",
    "bedrock:Retrieve",
    KB,
    ACCOUNT,
    {"aws:PrincipalIsAWSService": "true", "aws:PrincipalServiceName": "bedrock.amazonaws.com"},
)


def _decide(request: Request) -> str:
    policy = knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE], [PARTNER], [CONSOLE]))
    identity = [] if request.principal.endswith(".amazonaws.com") else [IDENTITY_ALLOW]
    [decision] = evaluate([request], identity, policy)
    return decision


@pytest.mark.slow  # IAM's evaluation runs in a node child process (tests/iam_simulation.py)
@pytest.mark.parametrize(
    ("request_", "decision"),
    [
        pytest.param(_iam_caller(ENDPOINT_ROLE), ALLOWED, id="the-endpoint-role"),
        # Forward access: Bedrock calls Retrieve with the caller's credentials inside AgenticRetrieveStream.
        pytest.param(
            _iam_caller(ENDPOINT_ROLE, **{"aws:CalledVia": "bedrock.amazonaws.com"}), ALLOWED, id="forward-access"
        ),
        pytest.param(
            _iam_caller(f"arn:aws:iam::{ACCOUNT}:role/another-tenant"), EXPLICIT_DENY, id="another-role-in-the-account"
        ),
        pytest.param(
            _iam_caller("arn:aws:iam::999988887777:role/stranger"), EXPLICIT_DENY, id="a-foreign-iam-principal"
        ),
        pytest.param(
            _iam_caller(f"arn:aws:iam::{ACCOUNT}:user/admin"), EXPLICIT_DENY, id="an-iam-user-with-bedrock-star"
        ),
        pytest.param(Request("anonymous", "bedrock:Retrieve", KB, ACCOUNT, {}), EXPLICIT_DENY, id="no-context-keys"),
    ],
)
def test_the_deny_refuses_every_iam_principal_but_the_readers(request_, decision):
    assert _decide(request_) == decision


@pytest.mark.slow  # IAM's evaluation runs in a node child process (tests/iam_simulation.py)
def test_the_deny_spares_an_aws_service_principal_which_the_former_policy_refused():
    assert _decide(SERVICE_PRINCIPAL) != EXPLICIT_DENY  # IAM decides it; the Deny no longer does
    former = knowledge_base_access_policy(KnowledgeBaseAccessInputs(KB, [ENDPOINT_ROLE]))
    del former["Statement"][0]["Condition"]["BoolIfExists"]
    assert evaluate([SERVICE_PRINCIPAL], [], former) == [EXPLICIT_DENY]

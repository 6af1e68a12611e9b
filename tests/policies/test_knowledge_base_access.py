"""The knowledge-base resource policy: only the tenant's readers get past it, and only data-plane actions."""

from __future__ import annotations

import pytest

from policies.knowledge_base_access import READ_ACTIONS, KnowledgeBaseAccessInputs, knowledge_base_access_policy

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
    assert deny["Condition"] == {"ArnNotEquals": {"aws:PrincipalArn": [ENDPOINT_ROLE]}}
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

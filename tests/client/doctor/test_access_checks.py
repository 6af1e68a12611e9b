"""Models, invoker principals and the AgenticRetrieveStream quota: each check both ways."""

from __future__ import annotations

from client.doctor import access_checks as checks
from client.doctor.findings import CallFailed, Level
from schema.tenant import Invoker
from tests.client.doctor.scenario import checkup, project_with

PROFILE = "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0"  # dev planner
FOUNDATION = "arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-embed-text-v2:0"
ROLE = "arn:aws:iam::123456789012:role/acme-app"


def _profile(status: str = "ACTIVE") -> dict:
    return {
        "inferenceProfileName": "nova",
        "inferenceProfileArn": PROFILE,
        "models": [{"modelArn": "arn:aws:bedrock:us-west-2::foundation-model/amazon.nova-lite-v1:0"}],
        "inferenceProfileId": "us.amazon.nova-lite-v1:0",
        "status": status,
        "type": "SYSTEM_DEFINED",
    }


def _foundation(lifecycle: str = "ACTIVE", inference=("ON_DEMAND",)) -> dict:
    return {
        "modelDetails": {
            "modelArn": FOUNDATION,
            "modelId": "amazon.titan-embed-text-v2:0",
            "inferenceTypesSupported": list(inference),
            "modelLifecycle": {"status": lifecycle},
        }
    }


def _with_custom_embedding():
    project = project_with()
    kb = project.tenants["acme"].knowledge_bases[0]
    embedded = kb.model_copy(
        update={"embedding": kb.embedding.model_copy(update={"type": "CUSTOM", "model_arn": FOUNDATION})}
    )
    tenant = project.tenants["acme"].model_copy(
        update={"knowledge_bases": [embedded, *project.tenants["acme"].knowledge_bases[1:]]}
    )
    return project_with(acme={"knowledge_bases": tenant.knowledge_bases})


def test_an_active_inference_profile_planner_passes(stubs):
    stubs.respond("bedrock", "get_inference_profile", _profile(), {"inferenceProfileIdentifier": PROFILE})
    [finding] = checks.check_models(checkup(stubs))
    assert finding.level is Level.OK and "planner" in finding.message and "ACTIVE" in finding.message


def test_a_planner_missing_in_the_region_fails(stubs):
    stubs.error("bedrock", "get_inference_profile", "ResourceNotFoundException", status=404)
    [finding] = checks.check_models(checkup(stubs))
    assert finding.level is Level.FAIL and "not found in us-west-2" in finding.message


def test_managed_models_need_no_call(stubs):
    project = project_with(
        {"planner": project_with().environment.planner.model_copy(update={"type": "MANAGED", "model_arn": None})}
    )
    [finding] = checks.check_models(checkup(stubs, project))
    assert finding.level is Level.OK and "MANAGED" in finding.message
    assert stubs.clients == {}


def test_a_custom_embedding_model_is_looked_up_by_its_model_id(stubs):
    stubs.respond("bedrock", "get_inference_profile", _profile())
    stubs.respond("bedrock", "get_foundation_model", _foundation(), {"modelIdentifier": "amazon.titan-embed-text-v2:0"})
    findings = list(checks.check_models(checkup(stubs, _with_custom_embedding())))
    assert [f.level for f in findings] == [Level.OK, Level.OK]
    assert "acme/docs embedding" in findings[1].message
    stubs.assert_all_used()


def test_a_legacy_model_warns(stubs):
    stubs.respond("bedrock", "get_inference_profile", _profile())
    stubs.respond("bedrock", "get_foundation_model", _foundation(lifecycle="LEGACY"))
    findings = list(checks.check_models(checkup(stubs, _with_custom_embedding())))
    assert findings[1].level is Level.WARN and "LEGACY" in findings[1].message


def test_a_model_without_on_demand_inference_warns_to_use_a_profile(stubs):
    stubs.respond("bedrock", "get_inference_profile", _profile())
    stubs.respond("bedrock", "get_foundation_model", _foundation(inference=("PROVISIONED",)))
    findings = list(checks.check_models(checkup(stubs, _with_custom_embedding())))
    assert findings[1].level is Level.WARN and "inference profile" in findings[1].message


def test_model_access_denied_reaches_the_runner_with_the_action(stubs):
    stubs.error("bedrock", "get_inference_profile", "AccessDeniedException", status=403)
    try:
        list(checks.check_models(checkup(stubs)))
    except CallFailed as failure:
        assert failure.action == "bedrock:GetInferenceProfile"
    else:
        raise AssertionError("expected CallFailed")


def _role(arn: str = ROLE) -> dict:
    from datetime import UTC, datetime

    return {
        "Role": {
            "Path": "/",
            "RoleName": "acme-app",
            "RoleId": "AROAEXAMPLEEXAMPLE1",
            "Arn": arn,
            "CreateDate": datetime(2026, 1, 1, tzinfo=UTC),
        }
    }


def test_an_existing_same_account_invoker_role_passes(stubs):
    stubs.respond("iam", "get_role", _role(), {"RoleName": "acme-app"})
    [finding] = checks.check_invokers(checkup(stubs))
    assert finding.level is Level.OK and ROLE in finding.message


def test_a_missing_invoker_role_fails_naming_the_tenant_file(stubs):
    stubs.error("iam", "get_role", "NoSuchEntity", status=404)
    [finding] = checks.check_invokers(checkup(stubs))
    assert finding.level is Level.FAIL and "config/tenants/acme.yaml" in finding.message


def test_a_role_of_that_name_under_another_path_fails(stubs):
    stubs.respond("iam", "get_role", _role("arn:aws:iam::123456789012:role/other/acme-app"))
    [finding] = checks.check_invokers(checkup(stubs))
    assert finding.level is Level.FAIL and "another path" in finding.message
    assert "role/other/" not in finding.message  # only the configured ARN is printed


def test_invokers_of_other_accounts_are_not_read(stubs):
    # globex lists a same-account portal role (looked up) and another account's batch role (not read)
    stubs.respond(
        "iam", "get_role", _role("arn:aws:iam::123456789012:role/globex-portal"), {"RoleName": "globex-portal"}
    )
    portal, batch = checks.check_invokers(checkup(stubs, tenants=("globex",)))
    assert portal.level is Level.OK
    assert batch.level is Level.WARN and "another account" in batch.message
    stubs.assert_all_used()


def test_an_invoker_user_is_looked_up_as_a_user(stubs):
    from datetime import UTC, datetime

    user = "arn:aws:iam::123456789012:user/ci/deployer"
    stubs.respond(
        "iam",
        "get_user",
        {
            "User": {
                "Path": "/ci/",
                "UserName": "deployer",
                "UserId": "AIDAEXAMPLEEXAMPLE1",
                "Arn": user,
                "CreateDate": datetime(2026, 1, 1, tzinfo=UTC),
            }
        },
        {"UserName": "deployer"},
    )
    project = project_with(acme={"invokers": [Invoker(arn=user)]})
    [finding] = checks.check_invokers(checkup(stubs, project))
    assert finding.level is Level.OK


def test_no_invokers_warn_that_nobody_can_call(stubs):
    project = project_with(acme={"invokers": []})
    [finding] = checks.check_invokers(checkup(stubs, project))
    assert finding.level is Level.WARN and stubs.clients == {}


def _quota(name: str, value: float, code: str = "L-12345678") -> dict:
    return {
        "ServiceCode": "bedrock",
        "QuotaName": name,
        "QuotaCode": code,
        "Value": value,
        "Adjustable": True,
        "QuotaArn": "arn:aws:servicequotas:us-west-2:123456789012:bedrock/" + code,
    }


QUOTA_NAME = "Maximum AgenticRetrieveStream requests per minute, per account"


def test_the_agentic_quota_matching_the_config_passes(stubs):
    stubs.respond(
        "service-quotas",
        "list_service_quotas",
        {"Quotas": [_quota("On-demand InvokeModel requests per minute for X", 100, "L-1"), _quota(QUOTA_NAME, 300)]},
        {"ServiceCode": "bedrock", "MaxResults": 100},
    )
    [finding] = checks.check_quota(checkup(stubs))
    assert finding.level is Level.OK and QUOTA_NAME in finding.message and "L-12345678" in finding.message
    assert "arn:" not in finding.message
    # The shares the endpoints enforce (config/tenants/acme.yaml sets 120; globex gets the other 180).
    assert "guaranteed per minute: acme 120, globex 180 (fair sharing on)" in finding.message


def test_a_quota_other_than_the_config_warns_to_update_quota_agentic_requests_per_minute(stubs):
    stubs.respond("service-quotas", "list_service_quotas", {"Quotas": [_quota(QUOTA_NAME, 600)]})
    [finding] = checks.check_quota(checkup(stubs))
    assert finding.level is Level.WARN and "set it to 600" in finding.message
    assert "quota.agentic_requests_per_minute: 300" in finding.message


def test_quotas_are_read_across_pages_then_from_the_aws_defaults(stubs):
    stubs.respond("service-quotas", "list_service_quotas", {"Quotas": [_quota("Other", 1, "L-1")], "NextToken": "t"})
    stubs.respond(
        "service-quotas",
        "list_service_quotas",
        {"Quotas": []},
        {"ServiceCode": "bedrock", "MaxResults": 100, "NextToken": "t"},
    )
    stubs.respond("service-quotas", "list_aws_default_service_quotas", {"Quotas": [_quota(QUOTA_NAME, 300)]})
    [finding] = checks.check_quota(checkup(stubs))
    assert finding.level is Level.OK
    stubs.assert_all_used()


def test_no_quota_mentioning_agentic_retrieval_warns(stubs):
    stubs.respond("service-quotas", "list_service_quotas", {"Quotas": [_quota("Other", 1, "L-1")]})
    stubs.respond("service-quotas", "list_aws_default_service_quotas", {"Quotas": []})
    [finding] = checks.check_quota(checkup(stubs))
    assert finding.level is Level.WARN and "AgenticRetrieveStream" in finding.message

"""The streaming endpoint in the dev templates, and the construct's synth-time checks on a small stack."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import aws_logs as logs

from cdk_constructs.log_group import log_group_arn
from cdk_constructs.nag_checks import enable_nag
from cdk_constructs.streaming_endpoint import (
    ENVIRONMENT_LIMIT_BYTES,
    StreamingEndpoint,
    StreamingEndpointProps,
    worst_case_size,
)
from contract.env_vars import LOCAL_CALLER_ARN, LOCAL_MODE, PAGE_TOKEN_KEY
from contract.env_vars import TENANT_SETTINGS as ENV_VAR
from contract.resource_names import tenant_stack_name
from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import TenantSettings
from features.endpoint_plan import endpoint_plan
from features.tenant_feature import TenantScope
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG
from tests.schema.conftest import config_copy  # noqa: F401 - fixture
from tests.stacks.templates import render

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _tenant(synthesized, tenant):
    return synthesized.template(tenant_stack_name(synthesized.project.env_name, tenant))


def _one(template, resource_type) -> tuple[str, dict]:
    found = [
        (k, v["Properties"])
        for k, v in template["Resources"].items()
        # the ingestion log group (tests/cdk_constructs/test_ingestion_logs.py), CDK's auto-delete helper,
        # the MCP gateway's interceptor (tests/cdk_constructs/test_mcp_gateway.py) and the agent's function
        # and invoke policy (tests/stacks/test_agent.py)
        if v["Type"] == resource_type
        and not k.startswith(("IngestionLogs", "CustomS3AutoDeleteObjects", "McpGateway", "Agent"))
    ]
    assert len(found) == 1, f"{resource_type}: {[k for k, _ in found]}"
    return found[0]


def _settings(template) -> TenantSettings:
    """AKB_TENANT_SETTINGS with each deploy-time token replaced by a value that names its source."""
    _, function = _one(template, "AWS::Lambda::Function")
    text = render(function["Environment"]["Variables"][ENV_VAR])
    return TenantSettings.from_json(text)


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_function_is_arm64_python_3_13_or_newer_with_the_adapter_handler(synthesized, tenant):
    _, function = _one(_tenant(synthesized, tenant), "AWS::Lambda::Function")
    assert function["Architectures"] == ["arm64"]
    major, minor = function["Runtime"].removeprefix("python").split(".")
    assert function["Runtime"].startswith("python") and (int(major), int(minor)) >= (3, 13)
    assert function["Handler"] == "lambdas/run.sh"


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_web_adapter_layer_and_streaming_environment(synthesized, tenant):
    _, function = _one(_tenant(synthesized, tenant), "AWS::Lambda::Function")
    environment = synthesized.project.environment
    (layer,) = function["Layers"]
    assert render(layer, {"AWS::Partition": "aws"}) == (
        f"arn:aws:lambda:{environment.region}:753240598075:layer:LambdaAdapterLayerArm64:"
        f"{environment.endpoint.web_adapter_layer_version}"
    )
    variables = function["Environment"]["Variables"]
    assert variables["AWS_LAMBDA_EXEC_WRAPPER"] == "/opt/bootstrap"
    assert variables["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert variables["AWS_LWA_PORT"] == "8080"
    assert variables["AWS_LWA_READINESS_CHECK_PATH"] == "/healthz"


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_deployed_function_never_runs_in_local_mode(synthesized, tenant):
    """Local mode trusts requests without a verified caller; the function's environment never sets it."""
    _, function = _one(_tenant(synthesized, tenant), "AWS::Lambda::Function")
    variables = function["Environment"]["Variables"]
    assert ENV_VAR in variables  # the environment under test is the function's real one
    assert {LOCAL_MODE, LOCAL_CALLER_ARN} & set(variables) == set()


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_the_next_token_key_is_the_uuid_of_the_stacks_own_id(synthesized, tenant):
    """lambdas/endpoint/page_tokens.py: shared by every container, in no template or config, no new resource."""
    _, function = _one(_tenant(synthesized, tenant), "AWS::Lambda::Function")
    key = function["Environment"]["Variables"][PAGE_TOKEN_KEY]
    assert key == {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}
    stack_id = "arn:aws:cloudformation:us-west-2:123456789012:stack/dev-acme/8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6"
    assert stack_id.split("/")[2] == "8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6"  # what Select 2 of Split "/" yields


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_memory_timeout_reserved_concurrency_and_log_group_come_from_config(synthesized, tenant):
    template = _tenant(synthesized, tenant)
    _, function = _one(template, "AWS::Lambda::Function")
    endpoint = synthesized.project.environment.endpoint
    assert function["MemorySize"] == endpoint.memory_mb
    assert function["Timeout"] == endpoint.timeout_seconds
    assert function["ReservedConcurrentExecutions"] == synthesized.project.tenants[tenant].reserved_concurrency
    log_group_id, _ = _one(template, "AWS::Logs::LogGroup")
    assert function["LoggingConfig"]["LogGroup"] == {"Ref": log_group_id}
    assert "VpcConfig" not in function  # function URLs in a VPC do not stream


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_tenant_settings_in_the_template_parse_with_the_tenants_config(synthesized, tenant):
    template = _tenant(synthesized, tenant)
    config = synthesized.project.tenants[tenant]
    settings = _settings(template)
    assert (settings.tenant, settings.environment) == (tenant, "dev")
    assert [(r.alias, r.description) for r in settings.retrievers] == [
        (kb.alias, kb.description) for kb in config.knowledge_bases
    ]
    kb_resources = {
        k: v["Properties"]["Name"]
        for k, v in template["Resources"].items()
        if v["Type"] == "AWS::Bedrock::KnowledgeBase"
    }
    for retriever in settings.retrievers:  # each id is the GetAtt of that alias's own knowledge base
        logical_id, attribute = retriever.knowledge_base_id.strip("<>").split(".")
        assert attribute == "KnowledgeBaseId" and kb_resources[logical_id].endswith(f"-{retriever.alias}")
    assert settings.max_agent_iteration == config.retrieval.max_agent_iteration
    assert settings.max_results == config.retrieval.max_results
    assert settings.user_context == config.user_context
    # the environment's quality gate role asks a gated trusted tenant as a trusted caller (features/quality_feature.py)
    gate = environment_gate_role(synthesized) if config.quality and config.user_context == "trusted" else []
    assert settings.trusted_callers == [i.arn for i in config.invokers if i.trusted] + gate
    assert settings.guardrail_id and settings.guardrail_version and settings.guardrail_id.startswith("<")
    environment = synthesized.project.environment
    assert settings.planner_type == environment.planner.type
    assert settings.planner_model_arn == environment.planner.model_arn
    assert settings.deadline_seconds == environment.endpoint.effective_deadline_seconds
    assert settings.max_body_bytes == environment.endpoint.max_body_bytes


def environment_gate_role(synthesized) -> list[str]:
    role = synthesized.project.environment.quality_gate_role_arn
    return [role] if role else []


def test_trusted_callers_only_for_the_tenant_that_marks_them(synthesized):
    assert _settings(_tenant(synthesized, "acme")).trusted_callers == []
    assert _settings(_tenant(synthesized, "globex")).trusted_callers == [
        "arn:aws:iam::123456789012:role/globex-portal",
        "arn:aws:iam::123456789012:role/akb-quality-gate",  # the environment's quality gate role
    ]


def test_every_function_url_is_iam_authenticated_and_streams(synthesized):
    urls = [
        r["Properties"]
        for template in synthesized.templates.values()
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Url"
    ]
    assert len(urls) == len(synthesized.project.tenants)
    assert all(url["AuthType"] == "AWS_IAM" and url["InvokeMode"] == "RESPONSE_STREAM" for url in urls)


def test_no_permission_grants_a_public_principal(synthesized):
    for template in synthesized.templates.values():
        for resource in template["Resources"].values():
            if resource["Type"] == "AWS::Lambda::Permission":
                assert resource["Properties"]["Principal"] not in ("*", {"Ref": "AWS::AccountId"})
                assert resource["Properties"].get("FunctionUrlAuthType", "AWS_IAM") == "AWS_IAM"


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_each_configured_invoker_gets_both_url_permissions(synthesized, tenant):
    template = _tenant(synthesized, tenant)
    function_id, _ = _one(template, "AWS::Lambda::Function")
    permissions = [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Permission"
        and r["Properties"]["FunctionName"] == {"Fn::GetAtt": [function_id, "Arn"]}
    ]
    invokers = [invoker.arn for invoker in synthesized.project.tenants[tenant].invokers]
    assert len(permissions) == 2 * len(invokers)
    for arn in invokers:
        mine = {p["Action"]: p for p in permissions if p["Principal"] == arn}
        assert mine["lambda:InvokeFunctionUrl"]["FunctionUrlAuthType"] == "AWS_IAM"
        assert mine["lambda:InvokeFunction"]["InvokedViaFunctionUrl"] is True


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_invoke_managed_policy_and_outputs(synthesized, tenant):
    template = _tenant(synthesized, tenant)
    _, policy = _one(template, "AWS::IAM::ManagedPolicy")
    assert policy["ManagedPolicyName"] == f"akb-dev-{tenant}-invoke"
    # Issue 14 item 3: InvokeFunction only via the URL, so this grant cannot invoke the function directly
    # with a forged function-URL event naming another caller.
    assert {s["Action"]: s["Condition"] for s in policy["PolicyDocument"]["Statement"]} == {
        "lambda:InvokeFunctionUrl": {"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}},
        "lambda:InvokeFunction": {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}},
    }
    parameters = {r["Properties"]["Name"] for r in template["Resources"].values() if r["Type"] == "AWS::SSM::Parameter"}
    assert {f"/akb/dev/{tenant}/endpoint/url", f"/akb/dev/{tenant}/endpoint/function-name"} <= parameters
    assert {"EndpointUrl", "EndpointFunctionName"} <= set(template["Outputs"])


# --- the construct on a small stack (synth-time checks, no dev app) ---------------------------------


def _stack_with_endpoint(project, tenant="acme", *, descriptions=None, guardrail=True, outdir=None):
    app = cdk.App(outdir=outdir) if outdir else cdk.App()
    stack = cdk.Stack(app, "Probe", env=cdk.Environment(account="111122223333", region="us-west-2"))
    kbs = []
    for index, kb in enumerate(project.tenants[tenant].knowledge_bases):
        resource = cdk.CfnResource(stack, f"Kb{index}", type="AWS::Bedrock::KnowledgeBase")
        kbs.append(
            KnowledgeBaseRef(
                kb.alias,
                (descriptions or {}).get(kb.alias, kb.description),
                resource.ref,
                resource.get_att("KnowledgeBaseArn").to_string(),
            )
        )
    gr = cdk.CfnResource(stack, "Guardrail", type="AWS::Bedrock::Guardrail")
    endpoint = _endpoint(
        stack,
        project,
        tenant,
        kbs,
        guardrail=GuardrailRef(gr.ref, gr.get_att("GuardrailArn").to_string(), gr.get_att("Version").to_string())
        if guardrail
        else None,
        retrieval_instruction=RetrievalInstructionRef("inst0000001", "arn:aws:bedrock:us-west-2:1:ri/x", "1"),
    )
    return app, stack, endpoint


def _endpoint(stack, project, tenant, kbs, **refs) -> StreamingEndpoint:
    """The construct as the tenant stack builds it: props from the tenant's endpoint plan (no features' refs)."""
    log_group = logs.LogGroup(stack, "Logs")
    scope = TenantScope(project, tenant)
    plan = endpoint_plan(scope, knowledge_bases=kbs, log_group_arn=log_group_arn(log_group), **refs)
    props = StreamingEndpointProps.for_tenant(scope, plan)
    return StreamingEndpoint(stack, "Endpoint", props=props, log_group=log_group)


def test_environment_over_4kb_fails_synth_naming_the_tenant_and_what_to_shorten():
    project = load_project(EXAMPLE_CONFIG, "dev")
    with pytest.raises(ValueError, match=r"Probe/Endpoint \(tenant acme\).*4096.*knowledge base descriptions"):
        _stack_with_endpoint(project, descriptions={"docs": "x" * 2000, "tickets": "y" * 2000})


def test_worst_case_size_counts_tokens_at_their_longest_value():
    _app, _stack, endpoint = _stack_with_endpoint(load_project(EXAMPLE_CONFIG, "dev"), guardrail=False)
    token = cdk.Token.as_string(cdk.Fn.ref("Anything"))
    assert worst_case_size({"K": token}, {}) == 1 + 100  # unknown token: an ARN's length
    assert worst_case_size({"K": token}, {token: 10}) == 1 + 10
    assert worst_case_size({"K": "plain"}, {}) == 6
    assert endpoint.settings.guardrail_id is None
    assert worst_case_size({ENV_VAR: endpoint.settings.to_json()}, {}) < ENVIRONMENT_LIMIT_BYTES


def test_endpoint_needs_a_knowledge_base():
    project = load_project(EXAMPLE_CONFIG, "dev")
    stack = cdk.Stack(cdk.App(), "Probe")
    with pytest.raises(ValueError, match="Probe/Endpoint: pass at least one knowledge base"):
        _endpoint(stack, project, "acme", [])


def test_managed_planner_and_custom_profile_reranker_still_pass_cdk_nag(config_copy, tmp_path):  # noqa: F811
    reranker = "arn:aws:bedrock:us-west-2:111122223333:inference-profile/us.amazon.rerank-v1:0"
    config_copy.edit(
        "environments",
        "dev",
        lambda env: env.update(planner={"type": "MANAGED"}, reranking={"type": "CUSTOM", "model_arn": reranker}),
    )
    app, _stack, _ = _stack_with_endpoint(load_project(config_copy.root, "dev"), outdir=str(tmp_path))
    enable_nag(app)
    template = app.synth().get_stack_by_name("Probe").template  # raises if a finding is unacknowledged
    (role,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Role"]
    sids = {s["Sid"] for s in role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]}
    assert {
        "ManagedPlannerModelIsChosenByBedrockSoNoResourceScope",
        "RerankIsDocumentedWithoutAResourceScope",
        "InvokeTheCustomRerankingModelThroughProfile",
    } <= sids
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert {plugin["conclusion"] for plugin in report["pluginReports"]} == {"success"}


def test_the_documented_example_runs_and_synthesizes_the_endpoint(monkeypatch, capsys):
    """docs/streaming-endpoint.md's example is a whole script: run it as written, from the repo root."""
    text = (EXAMPLE_CONFIG.parent / "docs" / "streaming-endpoint.md").read_text()
    example = text.split("## Example", 1)[1].split("```python\n", 1)[1].split("```\n", 1)[0]
    monkeypatch.chdir(EXAMPLE_CONFIG.parent)
    exec(compile(example, "docs/streaming-endpoint.md", "exec"), {"__name__": "__main__"})
    printed = capsys.readouterr().out
    assert "'AWS::Lambda::Url'" in printed and "'AWS::IAM::ManagedPolicy'" in printed

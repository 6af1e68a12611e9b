"""Stateful resources keep their logical ids: a changed id makes CloudFormation replace the resource.

A knowledge base replaced on deploy loses its ingested index; a bucket or log group replaced loses
(or orphans) its contents. Refactoring constructs must not move them in the construct tree, so the
ids of the example `dev` synth are pinned here. If one must change, list it in CHANGELOG.md under
Migration notes and update this table in the same commit.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

STATEFUL_TYPES = (
    "AWS::Bedrock::KnowledgeBase",
    "AWS::Bedrock::DataSource",
    "AWS::Bedrock::Guardrail",
    "AWS::S3::Bucket",
    "AWS::Logs::LogGroup",
)

# Per tenant stack of the example dev config: the same construct paths give the same ids per stack.
_SHARED = {
    "DocumentsAccessLogsE0128BD5": "AWS::S3::Bucket",
    "DocumentsBucket089EA665": "AWS::S3::Bucket",
    "EndpointLogsC54E4891": "AWS::Logs::LogGroup",
    "Guardrail91D61981": "AWS::Bedrock::Guardrail",
}
PINNED: dict[str, dict[str, str]] = {
    "dev-acme": {
        **_SHARED,
        "KnowledgeBasedocs38D462A7": "AWS::Bedrock::KnowledgeBase",
        "KnowledgeBasedocsSource0ABEE82C2": "AWS::Bedrock::DataSource",
        "KnowledgeBasetickets2180743B": "AWS::Bedrock::KnowledgeBase",
        "KnowledgeBaseticketsSource0C2D7CA43": "AWS::Bedrock::DataSource",
        "KnowledgeBaseticketsSource1A5E0BE03": "AWS::Bedrock::DataSource",
    },
    "dev-globex": {
        **_SHARED,
        "KnowledgeBasehandbook7347BF18": "AWS::Bedrock::KnowledgeBase",
        "KnowledgeBasehandbookSource0A110FF50": "AWS::Bedrock::DataSource",
        "KnowledgeBasewiki91F6C396": "AWS::Bedrock::KnowledgeBase",
        "KnowledgeBasewikiSource0F87AAD22": "AWS::Bedrock::DataSource",
        "McpGatewayInterceptorLogs6BA5157E": "AWS::Logs::LogGroup",  # globex has `gateway:` (new in issue 17)
    },
    "dev-platform": {},
}


@pytest.mark.parametrize("stack", sorted(PINNED))
def test_knowledge_bases_data_sources_guardrails_buckets_and_log_groups_keep_their_logical_ids(synthesized, stack):
    resources = synthesized.template(stack)["Resources"]
    stateful = {key: value["Type"] for key, value in resources.items() if value["Type"] in STATEFUL_TYPES}
    assert stateful == PINNED[stack]

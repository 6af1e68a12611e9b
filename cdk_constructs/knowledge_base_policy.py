"""`AWS::Bedrock::KnowledgeBasePolicy`: the resource-based policy of one MANAGED knowledge base.

The document comes from `policies/knowledge_base_access.py` (pure, printable by `akb policy`): a
Deny of bedrock:Retrieve and bedrock:GetDocumentContent to every principal but the tenant's reader
roles, plus an explicit Allow for cross-account readers. aws-cdk-lib 2.275 has the L1
(`CfnKnowledgeBasePolicy`: KnowledgeBaseId, PolicyDocument; cfn-lint's schema has the same two
properties and a read-only RevisionId).
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-cross-account.html
"""

from __future__ import annotations

from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_bedrock as bedrock
from constructs import Construct

from policies.knowledge_base_access import KnowledgeBaseAccessInputs, knowledge_base_access_policy


class KnowledgeBasePolicy(Construct):
    """Only the tenant's readers may retrieve from one knowledge base.

    :param knowledge_base_id: the knowledge base (`attr_knowledge_base_id`).
    :param knowledge_base_arn: its ARN: the policy's only `Resource` (wildcards are not accepted there).
    :param reader_role_arns: the tenant's roles that read it: the endpoint role and the roles its
        features add (`reader_roles` in features/registry.py). At least one.
    :param cross_account_readers: the tenant file's `knowledge_base_access.cross_account_readers`
        (default none): an explicit Allow, and exempt from the Deny.
    :param break_glass_role_arns: `knowledge_base_access.break_glass_roles` (default none): exempt
        from the Deny only; their identity policies still decide.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        knowledge_base_id: str,
        knowledge_base_arn: str,
        reader_role_arns: Sequence[str],
        cross_account_readers: Sequence[str] = (),
        break_glass_role_arns: Sequence[str] = (),
    ):
        super().__init__(scope, construct_id)
        if not reader_role_arns:
            raise ValueError(
                f"{self.node.path}: a knowledge-base policy needs at least one reader role "
                "(pass reader_role_arns=[endpoint.role.role_arn])"
            )
        self.inputs = KnowledgeBaseAccessInputs(
            knowledge_base_arn=knowledge_base_arn,
            reader_role_arns=tuple(reader_role_arns),
            cross_account_readers=tuple(cross_account_readers),
            break_glass_role_arns=tuple(break_glass_role_arns),
        )
        self.resource = bedrock.CfnKnowledgeBasePolicy(
            self,
            "Resource",
            knowledge_base_id=knowledge_base_id,
            policy_document=knowledge_base_access_policy(self.inputs),
        )
        # aws-cdk-lib's bundled region spec predates this type; cfn-lint 1.58 (tests/stacks/test_app.py)
        # knows it in every region the examples use and validates it against its schema instead.
        cdk.Validations.of(self.resource).acknowledge(
            cdk.Acknowledgment(
                id="CloudFormation-Validate::F3006",
                reason="AWS::Bedrock::KnowledgeBasePolicy is newer than aws-cdk-lib's region spec; cfn-lint checks it",
            )
        )

    @property
    def policy_document(self) -> dict:
        """The document as synthesized (tokens resolved within the stack)."""
        return cdk.Stack.of(self).resolve(self.resource.policy_document)

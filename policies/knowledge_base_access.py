"""The resource-based policy of one MANAGED knowledge base: only the tenant's own readers get in.

Identity policies decide who may call `bedrock:Retrieve`; this policy is the second lock on the
knowledge base itself, so a mistake in any identity policy of the account (a `bedrock:*` on `*`, a
copied statement) still cannot read another tenant's knowledge.

What AWS allows here (Bedrock user guide, "Resource policies for managed knowledge bases",
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-cross-account.html): MANAGED
knowledge bases only; the actions `bedrock:Retrieve` and `bedrock:GetDocumentContent` only, listed
one by one; `Allow` and `Deny`; the full knowledge-base ARN as `Resource`, no wildcards in
`Resource` or `Action`; control-plane operations (GetKnowledgeBase, UpdateKnowledgeBase, data
sources, ingestion) cannot appear, so this policy never touches them nor the knowledge base's own
service role (which reads sources, it does not call Retrieve).

The Deny names who is exempt by `aws:PrincipalArn`: for a role session it is the role's ARN, not the
session's (IAM user guide, condition keys, aws:PrincipalArn), so every session of the endpoint role
matches while nothing else in the account does. The key is absent only for anonymous calls, which
the negated operator then denies too.

The Deny also spares AWS service principals (`aws:PrincipalIsAWSService`, which IAM sets to true only on
requests a service makes as its own service principal; such requests carry no aws:PrincipalArn). No source
says whether the Retrieve calls Bedrock makes inside AgenticRetrieveStream, or the AgentCore connector's,
arrive as the caller (forward access: the caller's ARN, with aws:CalledVia) or as a service principal
(docs/facts-and-decisions.md, Issue 25, fact 5); under the second reading a Deny without this exemption
would refuse every agentic request. `BoolIfExists ... false` keeps refusing every IAM principal (the key
is false for them) and, when the key is missing, still denies. `akb verify` observes which reading holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from policies.document import PolicyDocument, Statement, document

# The only actions a knowledge-base resource policy accepts (kb-managed-cross-account).
READ_ACTIONS = ("bedrock:Retrieve", "bedrock:GetDocumentContent")


@dataclass(frozen=True)
class KnowledgeBaseAccessInputs:
    """Who may read one knowledge base. ARNs may be CDK tokens (the endpoint role) or literals.

    :param knowledge_base_arn: the knowledge base (the policy's only Resource).
    :param reader_role_arns: the tenant's own roles that read it (the endpoint role; later the MCP
        gateway and agent roles). At least one.
    :param cross_account_readers: principals of other accounts: an explicit Allow, and exempt.
    :param break_glass_role_arns: roles of this account exempt from the Deny, nothing more.
    """

    knowledge_base_arn: str
    reader_role_arns: Sequence[str]
    cross_account_readers: Sequence[str] = field(default_factory=tuple)
    break_glass_role_arns: Sequence[str] = field(default_factory=tuple)

    @property
    def exempt(self) -> list[str]:
        """Everyone the Deny leaves alone, each once, in a stable order."""
        return list(dict.fromkeys([*self.reader_role_arns, *self.cross_account_readers, *self.break_glass_role_arns]))


def knowledge_base_access_policy(inputs: KnowledgeBaseAccessInputs) -> PolicyDocument:
    """Deny the read actions to all but the exempt principals; Allow the cross-account readers."""
    if not inputs.reader_role_arns:
        raise ValueError("a knowledge base needs at least one reader role (the endpoint role)")
    statements: list[Statement] = [
        {
            "Sid": "OnlyTheTenantsReadersMayRetrieve",
            "Effect": "Deny",
            "Principal": {"AWS": "*"},
            "Action": list(READ_ACTIONS),
            "Resource": inputs.knowledge_base_arn,
            "Condition": {
                "ArnNotEquals": {"aws:PrincipalArn": inputs.exempt},
                # A service acting as itself is not a foreign principal (fact 5): the Deny leaves it to IAM.
                "BoolIfExists": {"aws:PrincipalIsAWSService": "false"},
            },
        }
    ]
    if inputs.cross_account_readers:
        statements.append(
            {
                "Sid": "CrossAccountReadersListedInTheTenantFile",
                "Effect": "Allow",
                "Principal": {"AWS": list(dict.fromkeys(inputs.cross_account_readers))},
                "Action": list(READ_ACTIONS),
                "Resource": inputs.knowledge_base_arn,
            }
        )
    return document(statements)

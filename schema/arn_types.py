"""Typed ARNs: one annotated type per kind of ARN a config file may name.

Every ARN in config ends up in IAM: as a policy `Resource` (secrets, keys, buckets, models), as a
principal (invokers, knowledge-base readers) or as a key the services use. A `*` or `?` in any of
them widens what a role may reach (`arn:aws:s3:::*` is every bucket of the account), so each field
says which service, resource type, region and account rules it takes, and wildcards are refused
with a message naming the field. ARNs are ASCII: a look-alike letter (Cyrillic U+0430 for `a` in
`role/acme`) names another resource than the reviewer reads, so any non-ASCII character is refused;
so is a `.` or `..` path segment (`role/../x`), which reads as a path but names nothing IAM
resolves. The partition must be the environment's (schema/arn_partition.py, checked once the region
is known). The shapes follow the botocore service models (shape named in
each kind's `source`); the ledger in docs/facts-and-decisions.md lists them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator

# Partitions botocore's newer ARN shapes list (bedrock-agent FlowLambdaArn): aws, aws-cn,
# aws-us-gov, aws-eusc, aws-iso, aws-iso-b ... aws-iso-f.
PARTITION = re.compile(r"^aws(-cn|-us-gov|-eusc|-iso(-[b-f])?)?$")
REGION = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")
ACCOUNT = re.compile(r"^\d{12}$")
WILDCARDS = ("*", "?")

# required: must be present; empty: must be empty (global resources, IAM); the services' ARNs
# never leave the choice open, so there is no "any".
Part = Literal["required", "empty"]


@dataclass(frozen=True)
class ArnForm:
    """One resource type a kind accepts, e.g. `key/<key id>` in region and account."""

    resource: str  # regex for the part after `<account>:` (anchored when used)
    shape: str  # how the error message shows it, e.g. `key/<key id>`
    region: Part = "required"
    account: Part = "required"


@dataclass(frozen=True)
class ArnKind:
    """What one ARN field accepts. Instances sit in the field's `Annotated` metadata, so tests and
    docs can find every ARN-typed field of the schema by walking the models."""

    what: str  # "a KMS key ARN"
    service: str
    forms: tuple[ArnForm, ...]
    example: str  # a valid value: the docs and the generic schema test use it
    source: str  # the AWS model the shape follows
    # (regex on the resource part, message): common mistakes explained instead of "does not match".
    mistakes: tuple[tuple[str, str], ...] = ()

    def expected(self) -> str:
        shapes = " or ".join(
            f"arn:<partition>:{self.service}:{'<region>' if form.region == 'required' else ''}:"
            f"{'<account>' if form.account == 'required' else ''}:{form.shape}"
            for form in self.forms
        )
        return f"expected {shapes} (e.g. {self.example})"

    def check(self, value: str) -> str:
        """The value unchanged, or ValueError saying what is wrong and what is allowed."""
        if any(mark in value for mark in WILDCARDS):
            raise ValueError(
                f"'{value}' contains a wildcard (* or ?): this ARN becomes an IAM policy resource or "
                f"principal, so it must name exactly one resource; {self.expected()}"
            )
        _check_ascii_and_segments(value, self.expected())
        parts = value.split(":", 5)
        if len(parts) != 6 or parts[0] != "arn" or not PARTITION.fullmatch(parts[1]):
            raise ValueError(f"'{value}' is not {self.what}; {self.expected()}")
        _, _, service, region, account, resource = parts
        if service != self.service:
            raise ValueError(f"'{value}' is not {self.what} (its service is '{service}'); {self.expected()}")
        for pattern, message in self.mistakes:
            if re.fullmatch(pattern, resource):
                raise ValueError(f"'{value}' is not {self.what}: {message}; {self.expected()}")
        for form in self.forms:
            resource_ok = re.fullmatch(form.resource, resource)
            if resource_ok and _part_ok(region, form.region, REGION) and _part_ok(account, form.account, ACCOUNT):
                return value
        raise ValueError(f"'{value}' is not {self.what}; {self.expected()}")


def _check_ascii_and_segments(value: str, expected: str) -> None:
    """ValueError for a non-ASCII character or a `.`/`..` path segment anywhere in the ARN."""
    if not value.isascii():
        char = next(c for c in value if not c.isascii())
        raise ValueError(
            f"{value!a} contains the non-ASCII character U+{ord(char):04X}: ARNs are ASCII, so a look-alike "
            f"letter names another resource than the one you read; type it again in ASCII; {expected}"
        )
    segments = re.split(r"[/:]", value.split(":", 5)[-1])
    traversal = next((segment for segment in segments if segment in (".", "..")), None)
    if traversal is not None:
        raise ValueError(
            f"'{value}' has the path segment '{traversal}': IAM paths are literal, so it names no resource the "
            f"reader sees; write the resource's own path; {expected}"
        )


def _part_ok(value: str, rule: Part, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.fullmatch(value)) if rule == "required" else value == ""


# Bedrock model ids: `provider.model[-version][:n[:m]]` (botocore bedrock FoundationModelArn);
# inference profile ids add a geography prefix (`us.amazon.nova-lite-v1:0`) or are generated.
_MODEL_ID = r"[a-z0-9-]{1,63}\.([a-z0-9-]{1,63}\.){0,2}[a-z0-9-]{1,63}(:[a-z0-9-]{1,63}){0,2}"
_FOUNDATION_MODEL = ArnForm(f"foundation-model/{_MODEL_ID}", "foundation-model/<model id>", account="empty")
_PROFILE_ID = r"[a-zA-Z0-9.:-]{1,128}"
_INFERENCE_PROFILES = (
    ArnForm(f"inference-profile/{_PROFILE_ID}", "inference-profile/<profile id>"),
    ArnForm(f"application-inference-profile/{_PROFILE_ID}", "application-inference-profile/<profile id>"),
)

KMS_KEY = ArnKind(
    what="a KMS key ARN",
    service="kms",
    forms=(ArnForm(r"key/[a-zA-Z0-9-]{36}", "key/<key id>"),),
    example="arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    source="botocore bedrock-agent KmsKeyArn",
    mistakes=((r"alias/.*", "aliases are not accepted (IAM and the services need the key ARN)"),),
)
SECRET = ArnKind(
    what="a Secrets Manager secret ARN",
    service="secretsmanager",
    # The full ARN ends in "-" + 6 random characters Secrets Manager appends; the KB role's
    # secretsmanager:GetSecretValue is scoped to exactly this ARN, so a partial ARN would not match.
    forms=(ArnForm(r"secret:[a-zA-Z0-9/_+=.@!-]{1,512}-[a-zA-Z0-9]{6}", "secret:<name>-<6 characters>"),),
    example="arn:aws:secretsmanager:us-west-2:123456789012:secret:acme-confluence-AbCdEf",
    source="botocore bedrock-agent SecretArn; Secrets Manager user guide (ARN suffix)",
)
S3_BUCKET = ArnKind(
    what="an S3 bucket ARN",
    service="s3",
    forms=(ArnForm(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", "<bucket name>", region="empty", account="empty"),),
    example="arn:aws:s3:::acme-docs",
    source="botocore bedrock-agent S3BucketArn",
    mistakes=((r"[^/]+/.*", "it names an object; bucket_arn names a bucket, put the path in prefix"),),
)
BEDROCK_MODEL = ArnKind(
    what="a Bedrock foundation model or inference profile ARN",
    service="bedrock",
    forms=(_FOUNDATION_MODEL, *_INFERENCE_PROFILES),
    example="arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.amazon.nova-lite-v1:0",
    source="botocore bedrock FoundationModelArn and InferenceProfileArn (AgenticRetrieveStream modelArn)",
)
EMBEDDING_MODEL = ArnKind(
    what="a Bedrock foundation model ARN",
    service="bedrock",
    forms=(_FOUNDATION_MODEL,),
    example="arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-embed-text-v2:0",
    source="botocore bedrock FoundationModelArn; sample utils/managed_knowledge_base.py (profiles rejected)",
    mistakes=(
        (
            r"(application-inference-profile|inference-profile|custom-model)/.*",
            "managed knowledge bases take no inference profile or custom model for embeddings",
        ),
    ),
)
_IAM_NAME = r"(/[\w+=,.@-]+)*/[\w+=,.@-]{1,128}"  # optional path, then the name
IAM_PRINCIPAL = ArnKind(
    what="an IAM role or user ARN",
    service="iam",
    forms=(ArnForm(f"(role|user){_IAM_NAME}", "role/<name> or user/<name>", region="empty"),),
    example="arn:aws:iam::111122223333:role/partner-app",
    source="botocore bedrock RoleArn; IAM identifiers (user guide reference_identifiers)",
)
IAM_ROLE = ArnKind(
    what="an IAM role ARN",
    service="iam",
    forms=(ArnForm(f"role{_IAM_NAME}", "role/<name>", region="empty"),),
    example="arn:aws:iam::123456789012:role/platform-break-glass",
    source="botocore bedrock RoleArn",
)

ACM_CERTIFICATE = ArnKind(
    what="an ACM certificate ARN",
    service="acm",
    forms=(ArnForm(r"certificate/[0-9a-f-]{36}", "certificate/<certificate id>"),),
    example="arn:aws:acm:us-west-2:123456789012:certificate/11111111-2222-3333-4444-555555555555",
    source="botocore acm CertificateArn; cfn-lint AWS::ApiGateway::DomainName RegionalCertificateArn",
)
WAF_REGIONAL_WEB_ACL = ArnKind(
    what="a REGIONAL WAFv2 web ACL ARN",
    service="wafv2",
    forms=(ArnForm(r"regional/webacl/[A-Za-z0-9_-]{1,128}/[0-9a-f-]{36}", "regional/webacl/<name>/<id>"),),
    example="arn:aws:wafv2:us-west-2:123456789012:regional/webacl/akb/11111111-2222-3333-4444-555555555555",
    source="botocore wafv2 ResourceArn (AssociateWebACL WebACLArn); scope REGIONAL for API Gateway stages",
    mistakes=((r"global/.*", "a CLOUDFRONT (global) web ACL cannot protect a REGIONAL API: use scope REGIONAL"),),
)

# Each alias keeps its kind in the metadata (schema walkers find it) and validates with it.
KmsKeyArn = Annotated[str, KMS_KEY, AfterValidator(KMS_KEY.check)]
SecretArn = Annotated[str, SECRET, AfterValidator(SECRET.check)]
S3BucketArn = Annotated[str, S3_BUCKET, AfterValidator(S3_BUCKET.check)]
BedrockModelArn = Annotated[str, BEDROCK_MODEL, AfterValidator(BEDROCK_MODEL.check)]
EmbeddingModelArn = Annotated[str, EMBEDDING_MODEL, AfterValidator(EMBEDDING_MODEL.check)]
IamPrincipalArn = Annotated[str, IAM_PRINCIPAL, AfterValidator(IAM_PRINCIPAL.check)]
IamRoleArn = Annotated[str, IAM_ROLE, AfterValidator(IAM_ROLE.check)]
AcmCertificateArn = Annotated[str, ACM_CERTIFICATE, AfterValidator(ACM_CERTIFICATE.check)]
WafRegionalWebAclArn = Annotated[str, WAF_REGIONAL_WEB_ACL, AfterValidator(WAF_REGIONAL_WEB_ACL.check)]

ARN_KINDS = (
    KMS_KEY,
    SECRET,
    S3_BUCKET,
    BEDROCK_MODEL,
    EMBEDDING_MODEL,
    IAM_PRINCIPAL,
    IAM_ROLE,
    ACM_CERTIFICATE,
    WAF_REGIONAL_WEB_ACL,
)


def arn_account(arn: str) -> str:
    """The account field of a validated ARN (empty for S3 buckets and foundation models)."""
    return arn.split(":", 5)[4]


def arn_region(arn: str) -> str:
    return arn.split(":", 5)[3]


def arn_partition(arn: str) -> str:
    return arn.split(":", 5)[1]

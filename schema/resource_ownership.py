"""Each secret and bucket a tenant file names belongs to that tenant alone, across every environment.

A knowledge base's service role reads its whole source and certificate buckets (bucket/*, as AWS's
sample grants) and the secrets its connectors sign in with, so a resource named by two tenants lets
each read the other's documents or sign in with the other's credentials. Tenants share files
between environments (acme in dev and prod is one file), so the check spans every environment of
the config: a tenant that only prod deploys still owns what it names when dev is loaded.

Buckets the platform owns are refused whoever names them: the CDK bootstrap assets bucket
(`cdk-<qualifier>-assets-<account>-<region>`, aws-cdk-lib's DefaultStackSynthesizer; it holds every
stack's deployment assets) and any bucket CloudFormation generated for a stack of this config —
a tenant's document and access-log buckets, the pipeline's artifact and access-log buckets. A
generated bucket name is `<stack name>-<logical id>-<random suffix>`, lowercased (CloudFormation
resource naming; the suffix's length and truncation of long names are UNVERIFIED in the ledger).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.resource_names import PIPELINE_STACK_NAME, platform_stack_name, tenant_stack_name
from schema.config_errors import Problem
from schema.yaml_files import read_yaml

CDK_ASSETS_BUCKET = re.compile(r"^cdk-[a-z0-9-]+-assets-[a-z0-9.-]+$")
_WHY = {
    "bucket": "a knowledge base reads its whole source and certificate buckets, so each tenant needs its own",
    "secret": "a knowledge base signs in with its connector's secret, so each tenant needs its own credentials",
}


@dataclass(frozen=True)
class Claim:
    """One field of one tenant file naming a bucket or a secret."""

    tenant: str
    file: Path
    field: str
    kind: str  # bucket | secret
    resource: str  # bucket name or secret ARN

    def where(self) -> str:
        return f"{self.file}: {self.field}"


def _items(value: object) -> list[tuple[int, dict[str, Any]]]:
    return (
        [(index, item) for index, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []
    )


def claims(name: str, data: dict[str, Any], file: Path) -> Iterator[Claim]:
    """Every bucket (s3 `bucket_arn`, connector `certificate.bucket`) and secret a tenant file names,
    read from the file's data, so a file with an error elsewhere is still checked."""
    for kb_index, kb in _items(data.get("knowledge_bases")):
        for source_index, source in _items(kb.get("sources")):
            where = f"knowledge_bases[{kb_index}].sources[{source_index}]"
            bucket_arn, certificate, secret = (source.get(key) for key in ("bucket_arn", "certificate", "secret_arn"))
            if source.get("type") == "s3" and isinstance(bucket_arn, str):
                yield Claim(name, file, f"{where}.bucket_arn", "bucket", bucket_arn.split(":::", 1)[-1])
            if isinstance(certificate, dict) and isinstance(certificate.get("bucket"), str):
                yield Claim(name, file, f"{where}.certificate.bucket", "bucket", certificate["bucket"])
            if isinstance(secret, str):
                yield Claim(name, file, f"{where}.secret_arn", "secret", secret)


def _file_claims(tenants_dir: Path, names: Iterable[str]) -> list[Claim]:
    found: list[Claim] = []
    for name in names:
        file = tenants_dir / f"{name}.yaml"
        data, _ = read_yaml(file) if file.is_file() else (None, [])
        if isinstance(data, dict):
            found.extend(claims(name, data, file))
    return found


def ownership_problems(config_dir: Path, env_name: str, listing: dict[str, list[str]]) -> list[Problem]:
    """Problems of the environment's tenants: each field naming a resource another tenant of the
    config also names (both sides are reported: the loader cannot know which tenant is the rightful
    one), and each field naming a platform bucket. `listing`: every environment of the config with
    the tenants it deploys (yaml_files.environment_sketches). Files that are not YAML mappings are skipped
    (their own problem is reported)."""
    tenants_dir = config_dir / "tenants"
    tenant_names = listing[env_name]
    loaded = _file_claims(tenants_dir, dict.fromkeys(tenant_names))
    elsewhere = sorted({tenant for tenants in listing.values() for tenant in tenants} - set(tenant_names))
    others = _file_claims(tenants_dir, elsewhere)
    return [*_shared(loaded, [*loaded, *others], listing), *_platform(loaded, config_dir, listing)]


def _shared(loaded: list[Claim], everyone: list[Claim], listing: dict[str, list[str]]) -> list[Problem]:
    by_resource: dict[tuple[str, str], list[Claim]] = defaultdict(list)
    for claim in everyone:
        by_resource[(claim.kind, claim.resource)].append(claim)
    problems = []
    for claim in loaded:
        others = [other for other in by_resource[(claim.kind, claim.resource)] if other.tenant != claim.tenant]
        if not others:
            continue
        first = others[0]
        envs = ", ".join(env for env, tenants in listing.items() if first.tenant in tenants) or "none"
        more = f" and {len(others) - 1} more" if len(others) > 1 else ""
        problems.append(
            Problem(
                str(claim.file),
                claim.field,
                f"{claim.kind} {claim.resource} is also named by tenant '{first.tenant}' ({first.where()}; "
                f"environments: {envs}){more}; {_WHY[claim.kind]}",
            )
        )
    return problems


def _generated_by(config_dir: Path, listing: dict[str, list[str]]) -> dict[str, str]:
    """Stack name -> the file that makes it, for every stack this config deploys."""
    stacks = {PIPELINE_STACK_NAME: "the promotion pipeline (docs/pipeline.md)"}
    for env, tenants in listing.items():
        env_file = config_dir / "environments" / f"{env}.yaml"
        stacks[platform_stack_name(env)] = str(env_file)
        for tenant in tenants:
            stacks[tenant_stack_name(env, tenant)] = f"{config_dir / 'tenants' / f'{tenant}.yaml'} in {env_file}"
    return stacks


def platform_bucket(bucket: str, stacks: dict[str, str]) -> str | None:
    """What platform bucket `bucket` is, or None for a bucket the platform does not own."""
    if CDK_ASSETS_BUCKET.fullmatch(bucket):
        return "the CDK bootstrap assets bucket, which holds every stack's deployment assets"
    for stack, made_by in stacks.items():
        if re.fullmatch(rf"{re.escape(stack)}-[a-z0-9]+-[a-z0-9]{{12,13}}", bucket):
            return (
                f"a bucket CloudFormation generated for stack {stack} ({made_by}): a tenant's document or "
                "access-log bucket, or the pipeline's"
            )
    return None


def _platform(loaded: list[Claim], config_dir: Path, listing: dict[str, list[str]]) -> list[Problem]:
    stacks = _generated_by(config_dir, listing)
    problems = []
    for claim in loaded:
        what = platform_bucket(claim.resource, stacks) if claim.kind == "bucket" else None
        if what is not None:
            problems.append(
                Problem(
                    str(claim.file),
                    claim.field,
                    f"bucket {claim.resource} is {what}; a knowledge base would read all of it. Name a bucket "
                    "of the tenant's own, or leave bucket_arn out to use the tenant's document bucket",
                )
            )
    return problems

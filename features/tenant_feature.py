"""The tenant-feature protocol: what one opt-in feature of a tenant may contribute, each hook with a default.

In the spirit of pluggy's hook specifications and Powertools' middlewares: a feature is one object whose
class overrides only the hooks it uses. The hosts (the platform and tenant stacks, the endpoint plan,
`akb policy`, the knowledge-base resource policies, the tenant's observability) call the hooks of every
enabled feature in registry order (features/registry.py) and never name a feature.

Hooks, in the order a synth calls them:
- `enabled(tenant, environment)`: does this tenant have the feature? No other hook is called when not.
- `build_environment(ctx)`: CDK, once in `<env>-platform` when some tenant of the environment has the
  feature (a table every tenant shares); what it returns reaches the tenant hooks as `ctx.environment_parts`.
- `build_resources(ctx)`: CDK, in the tenant stack before the endpoint (what the endpoint reaches).
- `ref(built)` and `planned_ref(review)`: the endpoint's view of what the feature built: CDK tokens at
  synth; named placeholders (`akb policy`) or the longest values (the limits `akb validate` checks) before.
- `endpoint_settings`, `endpoint_values`, `endpoint_statements`: CDK-free; what the feature adds to the
  endpoint's TenantSettings, its environment (contract/env_vars.py names the variables) and its role.
- `build_beside_endpoint(ctx, endpoint)`: CDK, after the endpoint (a gateway, an agent, log deliveries).
- `reader_roles(built)`: roles that read the knowledge bases; their resource policies admit them.
- `observability(ctx, built)`: contributions to the tenant's dashboard and composite alarm
  (monitoring/observability_parts.py), a list of small typed objects.
- `review(review)` and `review_readers(review)`: the feature's sections of `akb policy` and the
  placeholders of its reader roles.

Build and observability hooks import the CDK (cdk_constructs/, monitoring/) inside their bodies, so
importing a feature, as `akb policy` and `akb validate` do, never imports aws_cdk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from contract.env_vars import FeatureValues
from contract.resource_names import resource_prefix
from contract.settings import TenantSettings
from policies.document import Statement
from schema import Environment, Project, Tenant

if TYPE_CHECKING:
    from aws_cdk.aws_cloudwatch import Dashboard
    from aws_cdk.aws_sns import ITopic
    from constructs import Construct

    from cdk_constructs.knowledge_base import KnowledgeBase
    from cdk_constructs.streaming_endpoint import StreamingEndpoint
    from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
    from features.review_context import ReviewContext
    from monitoring.observability_parts import Contribution

Built = TypeVar("Built")


@dataclass(frozen=True)
class TenantScope:
    """One tenant of one environment: what every hook is about."""

    project: Project
    tenant_name: str

    @property
    def tenant(self) -> Tenant:
        return self.project.tenants[self.tenant_name]

    @property
    def environment(self) -> Environment:
        return self.project.environment

    @property
    def env_name(self) -> str:
        return self.project.env_name

    @property
    def prefix(self) -> str:
        """`akb-<env>-<tenant>`: names of dashboards, alarms and resources."""
        return resource_prefix(self.env_name, self.tenant_name)


@dataclass(frozen=True)
class FeatureRef:
    """The endpoint's view of a resource a feature built before it: CDK tokens at synth, `<placeholders>`
    in `akb policy`, the emulator's ids under `akb local`."""

    id: str
    arn: str
    # The longest value `id` resolves to at deploy time; None: a literal or an ARN-sized token.
    id_max_length: int | None = None

    def worst_case(self) -> FeatureRef:
        """The same ref with `id` at its longest, for the environment-size limit."""
        return FeatureRef("x" * self.id_max_length, self.arn, self.id_max_length) if self.id_max_length else self


@dataclass(frozen=True)
class EndpointInputs:
    """What the endpoint hooks see: the tenant, its knowledge bases' ARNs and the features' refs by name."""

    scope: TenantScope
    knowledge_base_arns: tuple[str, ...]
    refs: Mapping[str, FeatureRef] = field(default_factory=dict)


@dataclass(frozen=True)
class RoleStatements:
    """Statements a feature adds to the endpoint's execution role, with the reason of each wildcard (by Sid)."""

    statements: tuple[Statement, ...] = ()
    wildcard_reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EnvironmentBuild:
    """What `build_environment` gets: the platform stack, the environment's project, and what a feature that
    watches the whole environment adds to: the environment dashboard (rows) and the alarm topic."""

    scope: Construct
    project: Project
    dashboard: Dashboard | None = None
    alarm_topic: ITopic | None = None


@dataclass(frozen=True)
class BuildContext:
    """What the tenant stack hands the CDK hooks. Features create their constructs in `scope` under ids of
    their own (a construct's id and path make its resources' logical ids)."""

    scope: Construct
    tenant: TenantScope
    knowledge_bases: Mapping[str, KnowledgeBase]
    guardrail: GuardrailRef | None = None
    retrieval_instruction: RetrievalInstructionRef | None = None
    # What each feature's build_environment built in `<env>-platform`, by feature name.
    environment_parts: Mapping[str, object] = field(default_factory=dict)

    @property
    def knowledge_base_refs(self) -> list[KnowledgeBaseRef]:
        return [kb.ref for kb in self.knowledge_bases.values()]


class TenantFeature(Generic[Built]):
    """One opt-in feature; subclasses set `name` (the tenant file's key) and override the hooks they use.

    `Built` is what the feature's build hook returns (its construct); the later hooks receive it back.
    """

    name: ClassVar[str]

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must say when a tenant has it")

    def build_environment(self, ctx: EnvironmentBuild) -> object | None:
        return None

    def build_resources(self, ctx: BuildContext) -> Built | None:
        return None

    def ref(self, built: Built) -> FeatureRef | None:
        return None

    def planned_ref(self, review: ReviewContext) -> FeatureRef | None:
        return None

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        return settings

    def endpoint_values(self, inputs: EndpointInputs, values: FeatureValues) -> FeatureValues:
        return values

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        return RoleStatements()

    def build_beside_endpoint(self, ctx: BuildContext, endpoint: StreamingEndpoint) -> Built | None:
        return None

    def reader_roles(self, built: Built) -> list[str]:
        return []

    def observability(self, ctx: BuildContext, built: Built) -> list[Contribution]:
        return []

    def review(self, review: ReviewContext) -> dict[str, Any]:
        return {}

    def review_readers(self, review: ReviewContext) -> list[str]:
        return []

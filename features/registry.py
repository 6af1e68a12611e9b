"""The tenant-feature registry: every opt-in feature, in the order the hosts call them.

Adding a feature is its own modules plus one entry in `FEATURES` (and its import): the tenant stack,
the platform stack, the endpoint plan, `akb policy`, the knowledge-base resource policies and the
tenant's observability iterate this tuple and name no feature (docs/architecture.md walks through one).

The order is visible: dashboard rows, composite-alarm members, `akb policy` sections and reader roles
follow it, so a new feature goes where its row and section should appear (usually the end).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from features.agent_feature import AgentFeature
from features.cache_feature import CacheFeature
from features.front_door_feature import FrontDoorFeature
from features.gateway_feature import GatewayFeature
from features.ingestion_logs_feature import IngestionLogsFeature
from features.memory_feature import MemoryFeature
from features.quality_feature import QualityFeature
from features.quota_feature import QuotaFeature
from features.tenant_feature import BuildContext, EnvironmentBuild, FeatureRef, TenantFeature, TenantScope
from schema import Project

if TYPE_CHECKING:
    from cdk_constructs.streaming_endpoint import StreamingEndpoint
    from monitoring.observability_parts import Contribution

Features = Sequence[TenantFeature[Any]]

FEATURES: tuple[TenantFeature[Any], ...] = (
    CacheFeature(),  # `cache:` result cache table (docs/cache.md)
    MemoryFeature(),  # `memory:` AgentCore Memory for conversations (docs/conversations.md)
    GatewayFeature(),  # `gateway:` MCP tools behind an AgentCore Gateway (docs/agents.md)
    IngestionLogsFeature(),  # `ingestion_logs` APPLICATION_LOGS delivery and alarms (docs/operations.md)
    FrontDoorFeature(),  # `endpoint.front_door` function URL or API Gateway (docs/front-door.md)
    AgentFeature(),  # `agent:` a Bedrock agent whose action group runs agentic retrieval (docs/agents.md)
    QuotaFeature(),  # `quota:` fair share of the account's agentic quota, table in <env>-platform (docs/quota.md)
    QualityFeature(),  # `quality:` the quality gate's alarms, row and optional schedule (docs/evaluation.md)
)


def enabled_features(scope: TenantScope, features: Features = FEATURES) -> list[TenantFeature[Any]]:
    """The features `scope`'s tenant has, in registry order."""
    return [feature for feature in features if feature.enabled(scope.tenant, scope.environment)]


def environment_features(project: Project, features: Features = FEATURES) -> list[TenantFeature[Any]]:
    """The features at least one tenant of the environment has (their build_environment hooks run)."""
    return [
        feature
        for feature in features
        if any(feature.enabled(tenant, project.environment) for tenant in project.tenants.values())
    ]


def build_environment_parts(ctx: EnvironmentBuild, features: Features = FEATURES) -> dict[str, object]:
    """What each feature builds once per environment (in `<env>-platform`), by feature name."""
    parts = {feature.name: feature.build_environment(ctx) for feature in environment_features(ctx.project, features)}
    return {name: part for name, part in parts.items() if part is not None}


class TenantFeatures:
    """The tenant stack's side of the registry: the tenant's enabled features and what each built."""

    def __init__(self, scope: TenantScope, features: Features = FEATURES):
        self.features = enabled_features(scope, features)
        self.built: dict[str, Any] = {}

    def build_resources(self, ctx: BuildContext) -> None:
        """Before the endpoint: what it reaches (its refs then feed the endpoint plan)."""
        self._keep({feature.name: feature.build_resources(ctx) for feature in self.features})

    def build_beside_endpoint(self, ctx: BuildContext, endpoint: StreamingEndpoint) -> None:
        self._keep({feature.name: feature.build_beside_endpoint(ctx, endpoint) for feature in self.features})

    def refs(self) -> dict[str, FeatureRef]:
        """The endpoint's view of what the features built so far, by feature name."""
        refs = {name: feature.ref(built) for name, feature, built in self._with_built()}
        return {name: ref for name, ref in refs.items() if ref is not None}

    def reader_roles(self) -> list[str]:
        """Role ARNs of the features that read the knowledge bases (the gateway's, the agent function's)."""
        return [role for _name, feature, built in self._with_built() for role in feature.reader_roles(built)]

    def observability(self, ctx: BuildContext) -> list[Contribution]:
        """The features' dashboard rows, alarms and monitors, in registry order."""
        return [part for _name, feature, built in self._with_built() for part in feature.observability(ctx, built)]

    def _keep(self, built: dict[str, Any]) -> None:
        self.built.update({name: value for name, value in built.items() if value is not None})

    def _with_built(self) -> list[tuple[str, TenantFeature[Any], Any]]:
        """(name, feature, what it built) for each feature that built something: one that built nothing
        has nothing to read or watch, so its later hooks are not called."""
        return [(f.name, f, self.built[f.name]) for f in self.features if f.name in self.built]

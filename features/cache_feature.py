"""`cache:` the tenant's result cache (docs/cache.md) as a registry feature.

Builds the DynamoDB table before the endpoint (cdk_constructs/cache_table.py), hands the endpoint its
`cache:` settings and the table's name, and the endpoint role the tenant's items of that table
(policies/cache_access.py); adds the cache row to the tenant's dashboard (monitoring/cache_row.py).
The table exists whenever the block does, even with `enabled: false` (entries survive a pause); the
endpoint then runs without a cache.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from contract.env_vars import FeatureValues
from contract.resource_names import cache_table_name
from contract.settings import CacheSettings, TenantSettings
from features.tenant_feature import BuildContext, EndpointInputs, FeatureRef, RoleStatements, TenantFeature
from policies import cache_access
from schema import Environment, Tenant

if TYPE_CHECKING:
    from cdk_constructs.cache_table import CacheTable
    from features.review_context import ReviewContext
    from monitoring.observability_parts import Contribution


def cache_settings(tenant: Tenant) -> CacheSettings | None:
    """The endpoint's view of the tenant's `cache:` block (None: off)."""
    cache = tenant.cache
    if cache is None or not cache.enabled:
        return None
    aliases = [kb.alias for kb in tenant.knowledge_bases]
    acl = cache.acl_recheck
    return CacheSettings(
        ttl_seconds=cache.ttl_seconds,
        max_entry_bytes=cache.max_entry_kb * 1000,
        modes=list(cache.modes),
        version_refresh_seconds=cache.version_refresh_seconds,
        acl_knowledge_bases=aliases if acl == "all" else [] if acl == "none" else list(acl),
    )


class CacheFeature(TenantFeature["CacheTable"]):
    name = "cache"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.cache is not None

    def build_resources(self, ctx: BuildContext) -> CacheTable:
        from cdk_constructs.cache_table import CacheTable

        scope = ctx.tenant
        return CacheTable(ctx.scope, "ResultCache", table_name=cache_table_name(scope.env_name, scope.tenant_name))

    def ref(self, built: CacheTable) -> FeatureRef:
        return FeatureRef(id=built.physical_name, arn=built.table_arn)  # the name is a literal

    def planned_ref(self, review: ReviewContext) -> FeatureRef:
        name = cache_table_name(review.scope.env_name, review.scope.tenant_name)
        return FeatureRef(id=name, arn=review.arn("dynamodb", f"table/{name}"))

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        return replace(settings, cache=cache_settings(inputs.scope.tenant))

    def endpoint_values(self, inputs: EndpointInputs, values: FeatureValues) -> FeatureValues:
        ref = inputs.refs.get(self.name)
        return replace(values, cache_table=ref.id) if ref is not None else values

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        ref, tenant = inputs.refs.get(self.name), inputs.scope.tenant
        if ref is None or tenant.cache is None:
            return RoleStatements()
        # Only with a user id does a hit re-check documents (user_context none sends no userContext).
        acl = tenant.cache.acl_recheck != "none" and tenant.user_context != "none"
        access = cache_access.CacheAccess(table_arn=ref.arn, tenant=inputs.scope.tenant_name, acl_recheck=acl)
        statements = cache_access.cache_statements(access, inputs.knowledge_base_arns)
        return RoleStatements(tuple(statements), cache_access.WILDCARD_REASONS)

    def observability(self, ctx: BuildContext, built: CacheTable) -> list[Contribution]:
        from monitoring.cache_row import cache_row

        return [cache_row(ctx.tenant.tenant_name)]

"""`quality:` the tenant's quality gate (docs/evaluation.md) as a registry feature.

`akb eval --gate` and the promotion pipeline run the gate from outside the stack; what the stack holds is the
gate's monitoring and, where `quality.schedule` names the environment, the schedule:
- `build_resources`: the scheduled gate (cdk_constructs/quality_schedule.py), before the endpoint, because the
  endpoint must vouch for its role (`ref`);
- `endpoint_settings`: the endpoint vouches for the environment's `quality_gate_role_arn` (the pipeline's gate)
  and the scheduled gate's role as trusted callers (user_context trusted: the gate names the canary's user id)
  or session-name callers (caller: each role's trust pins the session name to the canary's id);
- `observability`: alarms on a drop and on a failed run, and a dashboard row (monitoring/quality_monitoring.py),
  in every environment of a tenant with `quality:` (the pipeline's gate puts figures there too);
- `review`: the scheduled gate role's policy and trust in `akb policy` (policies/quality_gate_role.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from contract.resource_names import quality_gate_role_name
from contract.settings import TenantSettings
from features.review_context import why_wildcards
from features.tenant_feature import BuildContext, EndpointInputs, FeatureRef, TenantFeature, TenantScope
from policies.document import document
from policies.quality_gate_role import WILDCARD_REASONS, GateScope, gate_role_trust, gate_statements
from schema import Environment, Tenant
from schema.front_door_checks import tenant_front_door
from schema.quality_config import SCHEDULE_RATES, SCHEDULE_SECONDS, gate_identity
from schema.quality_pipeline import GatedTenant

if TYPE_CHECKING:
    from cdk_constructs.quality_schedule import QualitySchedule
    from features.review_context import ReviewContext
    from monitoring.observability_parts import Contribution

# The alarms' period without a schedule: the pipeline's runs are sparse, one datapoint a day decides.
DEFAULT_PERIOD_SECONDS = SCHEDULE_SECONDS["daily"]


@dataclass(frozen=True)
class QualityParts:
    """What the feature built for a tenant: the schedule, if its environment has one (monitoring always)."""

    schedule: QualitySchedule | None = None


def scheduled(scope: TenantScope) -> bool:
    quality = scope.tenant.quality
    return quality is not None and quality.scheduled_in(scope.env_name)


def vouch_for(settings: TenantSettings, user_context: str, role_arn: str) -> TenantSettings:
    """The endpoint's identity rules take the gate role's canary: as a trusted caller, or by session name."""
    if user_context == "trusted":
        return replace(settings, trusted_callers=[*settings.trusted_callers, role_arn])
    if user_context == "caller":
        return replace(settings, session_name_callers=[*settings.session_name_callers, role_arn])
    return settings


class QualityFeature(TenantFeature[QualityParts]):
    name = "quality"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.quality is not None

    def build_resources(self, ctx: BuildContext) -> QualityParts:
        scope, quality = ctx.tenant, ctx.tenant.tenant.quality
        if quality is None or quality.schedule is None or not scheduled(scope):
            return QualityParts()
        from cdk_constructs.quality_schedule import QualitySchedule, QualityScheduleProps

        props = QualityScheduleProps(
            env_name=scope.env_name,
            tenant_name=scope.tenant_name,
            environment=scope.environment,
            session_name=gate_identity(scope.tenant.user_context, scope.tenant.canary).session_name,
            rate=SCHEDULE_RATES[quality.schedule.every],
            config_dir=scope.project.config_dir,
        )
        return QualityParts(QualitySchedule(ctx.scope, "QualityGate", props=props))

    def ref(self, built: QualityParts) -> FeatureRef | None:
        if built.schedule is None:
            return None
        return FeatureRef(id=built.schedule.gate_role.role_name, arn=built.schedule.gate_role.role_arn)

    def planned_ref(self, review: ReviewContext) -> FeatureRef | None:
        if not scheduled(review.scope):
            return None
        name = quality_gate_role_name(review.scope.env_name, review.scope.tenant_name)
        return FeatureRef(id=name, arn=f"arn:{review.partition}:iam::{review.account}:role/{name}")

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        """The environment's gate role (the pipeline's) and the scheduled gate's role ask as the canary."""
        ref = inputs.refs.get(self.name)
        roles = [inputs.scope.environment.quality_gate_role_arn, ref.arn if ref is not None else None]
        for role in roles:
            settings = vouch_for(settings, inputs.scope.tenant.user_context, role) if role else settings
        return settings

    def observability(self, ctx: BuildContext, built: QualityParts) -> list[Contribution]:
        from monitoring.quality_monitoring import quality_contributions

        scope, quality = ctx.tenant, ctx.tenant.tenant.quality
        if quality is None:  # enabled() said otherwise
            return []
        period = SCHEDULE_SECONDS[quality.schedule.every] if scheduled(scope) and quality.schedule else None
        return quality_contributions(scope.env_name, scope.tenant_name, quality, period or DEFAULT_PERIOD_SECONDS)

    def review(self, review: ReviewContext) -> dict[str, Any]:
        """How the gate asks this tenant: the environment's gate role (the pipeline's) and, where this environment
        schedules the gate, the scheduled gate's role — each role's statements for this tenant, and its trust."""
        scope = review.scope
        tenant = scope.tenant
        session = gate_identity(tenant.user_context, tenant.canary).session_name
        gate_scope = GateScope(review.partition, review.region, review.account, scope.env_name)
        target = [GatedTenant(scope.tenant_name, session, tenant_front_door(scope.environment, tenant).uses_api)]
        section: dict[str, Any] = {"asks_as": _asks_as(tenant.user_context, session, tenant.canary)}
        if scope.environment.quality_gate_role_arn:
            policy = document(gate_statements(gate_scope, target, promote=True))
            section["gate_role"] = scope.environment.quality_gate_role_arn
            section["gate_role_statements_for_this_tenant"] = policy
        if scheduled(scope):
            policy = document(gate_statements(gate_scope, target, promote=False))
            section["scheduled_gate_role"] = quality_gate_role_name(scope.env_name, scope.tenant_name)
            section["scheduled_gate_role_policy"] = policy
            section["scheduled_gate_role_trust"] = gate_role_trust(review.role("quality-gate-project-role"), [session])
        section["why_wildcards"] = why_wildcards(
            document(gate_statements(gate_scope, target, promote=True)), WILDCARD_REASONS
        )
        return {"quality_gate": section}


def _asks_as(user_context: str, session: str, canary: Any) -> str:
    if user_context == "trusted":
        return f"a trusted caller naming the canary user {canary.user_id if canary else '(none)'}"
    if user_context == "caller":
        return f"the role session '{session}' (its trust policy pins the name; the endpoint takes it as the user id)"
    return "the gate role itself (user_context none: no user id)"

"""Metric names and dimensions: what the service emits and what dashboards and alarms read.

One module, imported by both sides, so a renamed metric breaks a test instead of a dashboard.
"""

from __future__ import annotations

# The endpoint's own metrics (CloudWatch embedded metric format, Powertools Metrics).
NAMESPACE = "AgenticRetrieval"
TENANT_DIMENSION = "Tenant"
ERROR_CODE_DIMENSION = "ErrorCode"

REQUESTS = "Requests"
ITERATIONS = "Iterations"
SUB_QUERIES = "SubQueries"
RESULTS = "Results"
DISTINCT_DOCUMENTS = "DistinctDocuments"
CITED_RESULTS = "CitedResults"
TIME_TO_FIRST_EVENT_MS = "TimeToFirstEventMs"
DURATION_MS = "DurationMs"
ERRORS = "Errors"
DEADLINE_STOPS = "DeadlineStops"
GUARDRAIL_INTERVENTIONS = "GuardrailInterventions"
ESTIMATED_COST_USD = "EstimatedCostUSD"

# Amazon Bedrock's own knowledge-base metrics (per account and region; docs/facts-and-decisions.md, CloudWatch).
BEDROCK_KB_NAMESPACE = "AWS/Bedrock/KnowledgeBases"
BEDROCK_OPERATION_DIMENSION = "Operation"
BEDROCK_OPERATIONS = ("AgenticRetrieveStream", "Retrieve")
BEDROCK_INVOCATIONS = "Invocations"
BEDROCK_CLIENT_ERRORS = "ClientErrors"
BEDROCK_SERVER_ERRORS = "ServerErrors"
BEDROCK_THROTTLES = "Throttles"
BEDROCK_TOTAL_ITERATION_COUNT = "TotalIterationCount"

# The dimension sets each endpoint metric is emitted with: EXACTLY these, no others (CloudWatch
# identifies a metric by namespace + name + the full set of dimensions, so an extra dimension —
# e.g. the `service` dimension Powertools Metrics adds when a service name is set — makes a
# different metric that no dashboard or alarm reads). Errors is emitted twice per failed request:
# under [Tenant] (the error-rate alarm divides it by Requests) and under [Tenant, ErrorCode] (the
# "errors by code" widget); in EMF both sets can sit in one record's `Dimensions`, or in two records.
TENANT_ONLY: tuple[tuple[str, ...], ...] = ((TENANT_DIMENSION,),)
DIMENSION_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    REQUESTS: TENANT_ONLY,
    ITERATIONS: TENANT_ONLY,
    SUB_QUERIES: TENANT_ONLY,
    RESULTS: TENANT_ONLY,
    DISTINCT_DOCUMENTS: TENANT_ONLY,
    CITED_RESULTS: TENANT_ONLY,
    TIME_TO_FIRST_EVENT_MS: TENANT_ONLY,
    DURATION_MS: TENANT_ONLY,
    ERRORS: ((TENANT_DIMENSION,), (TENANT_DIMENSION, ERROR_CODE_DIMENSION)),
    DEADLINE_STOPS: TENANT_ONLY,
    GUARDRAIL_INTERVENTIONS: TENANT_ONLY,
    ESTIMATED_COST_USD: TENANT_ONLY,
}

# Bedrock's metrics and the operations each is published for (TotalIterationCount: agentic only,
# and only for calls that succeeded).
BEDROCK_METRIC_OPERATIONS: dict[str, tuple[str, ...]] = {
    BEDROCK_INVOCATIONS: BEDROCK_OPERATIONS,
    BEDROCK_CLIENT_ERRORS: BEDROCK_OPERATIONS,
    BEDROCK_SERVER_ERRORS: BEDROCK_OPERATIONS,
    BEDROCK_THROTTLES: BEDROCK_OPERATIONS,
    BEDROCK_TOTAL_ITERATION_COUNT: ("AgenticRetrieveStream",),
}

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

# Amazon Bedrock's own knowledge-base metrics (per account and region; FACTS.md, CloudWatch).
BEDROCK_KB_NAMESPACE = "AWS/Bedrock/KnowledgeBases"
BEDROCK_OPERATION_DIMENSION = "Operation"
BEDROCK_OPERATIONS = ("AgenticRetrieveStream", "Retrieve")
BEDROCK_INVOCATIONS = "Invocations"
BEDROCK_CLIENT_ERRORS = "ClientErrors"
BEDROCK_SERVER_ERRORS = "ServerErrors"
BEDROCK_THROTTLES = "Throttles"
BEDROCK_TOTAL_ITERATION_COUNT = "TotalIterationCount"

"""Metric names and dimensions: what the service emits and what dashboards and alarms read.

One module, imported by both sides, so a renamed metric breaks a test instead of a dashboard.
"""

from __future__ import annotations

# The endpoint's own metrics (CloudWatch embedded metric format: lambdas/endpoint/request_metrics.py).
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
# The result cache (docs/cache.md), per request while the tenant's cache is on: 0 or 1 each, so a
# Sum counts requests and hits / (hits + misses) is the hit rate.
CACHE_HITS = "CacheHits"
CACHE_MISSES = "CacheMisses"
CACHE_BYPASS = "CacheBypass"
STALE_REJECTED = "StaleRejected"  # an entry was found but made for another content version
ACL_RECHECK_DENIED = "AclRecheckDenied"  # an entry was found but the access re-check did not allow it
CACHE_HIT_LATENCY_MS = "CacheHitLatencyMs"  # duration of a request served from the cache
# Emitted in a document of their own (cache/cache_metrics.py), only while the cache is on.
CACHE_METRICS = (CACHE_HITS, CACHE_MISSES, CACHE_BYPASS, STALE_REJECTED, ACL_RECHECK_DENIED, CACHE_HIT_LATENCY_MS)
# Fair share of the account's agentic quota (docs/quota.md), per request that needed an agentic call
# while fair sharing is on (quota/ wrapper): 0 or 1 each, so a Sum counts requests. Admitted: it went
# to Bedrock (on the tenant's guarantee, borrowed, or on the in-process fallback); Borrowed: admitted
# beyond the guarantee, from idle capacity; Degraded: `auto` answered with Retrieve instead; Fallback:
# decided by the in-process bucket because the table was unavailable or contended. A refusal (429) is
# Errors with ErrorCode tenant_quota_exceeded. RoundTrips: calls to the table the decision took.
QUOTA_ADMITTED = "QuotaAdmitted"
QUOTA_BORROWED = "QuotaBorrowed"
QUOTA_DEGRADED = "QuotaDegraded"
QUOTA_FALLBACK = "QuotaFallback"
QUOTA_ROUND_TRIPS = "QuotaRoundTrips"
QUOTA_CHECK_MS = "QuotaCheckMs"
QUOTA_METRICS = (QUOTA_ADMITTED, QUOTA_BORROWED, QUOTA_DEGRADED, QUOTA_FALLBACK, QUOTA_ROUND_TRIPS, QUOTA_CHECK_MS)

# Amazon Bedrock's own knowledge-base metrics (per account and region; per knowledge base for
# Retrieve). Ledger: docs/facts-and-decisions.md; sources: Bedrock user guide kb-managed-observability,
# and AWS's sample (aws-samples/amazon-bedrock-samples, rag/managed-knowledge-bases/07-IaaC/
# managed-kb-observability-cfn/templates/04-dashboards.yaml, 05-Observability/01-cloudwatch-metrics.ipynb).
BEDROCK_KB_NAMESPACE = "AWS/Bedrock/KnowledgeBases"
BEDROCK_OPERATION_DIMENSION = "Operation"
BEDROCK_KNOWLEDGE_BASE_DIMENSION = "KnowledgeBaseId"
# The KnowledgeBaseId dimension's value is `knowledge-base/<id>`, not the bare id.
BEDROCK_KNOWLEDGE_BASE_VALUE_PREFIX = "knowledge-base/"
BEDROCK_AGENTIC = "AgenticRetrieveStream"
BEDROCK_RETRIEVE = "Retrieve"
BEDROCK_OPERATIONS = (BEDROCK_AGENTIC, BEDROCK_RETRIEVE)
# The Operation values an account-level series (TotalIterationCount, Throttles) may carry: the user guide
# documents AgenticRetrieveStream; AWS's sample (rag/managed-knowledge-bases utils/kb_cost.py) saw only
# Operation=Retrieve published live while agentic retrieval ran. No source settles it (docs/facts-and-
# decisions.md, Issue 25, fact 6): alarms and graphs read every candidate together; `akb verify` observes.
BEDROCK_CANDIDATE_OPERATIONS = (BEDROCK_AGENTIC, BEDROCK_RETRIEVE)
BEDROCK_INVOCATIONS = "Invocations"
BEDROCK_CLIENT_ERRORS = "ClientErrors"
BEDROCK_SERVER_ERRORS = "ServerErrors"
BEDROCK_THROTTLES = "Throttles"
BEDROCK_TOTAL_ITERATION_COUNT = "TotalIterationCount"
BEDROCK_RAW_DATA_SIZE = "RawDataSize"  # gigabytes, published after each completed ingestion job

# The dimension sets each endpoint metric is emitted with: EXACTLY these, no others (CloudWatch
# identifies a metric by namespace + name + the full set of dimensions, so an extra dimension —
# e.g. the `service` dimension Powertools Metrics would add when a service name is set — makes a
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
    CACHE_HITS: TENANT_ONLY,
    CACHE_MISSES: TENANT_ONLY,
    CACHE_BYPASS: TENANT_ONLY,
    STALE_REJECTED: TENANT_ONLY,
    ACL_RECHECK_DENIED: TENANT_ONLY,
    CACHE_HIT_LATENCY_MS: TENANT_ONLY,
    **{name: TENANT_ONLY for name in QUOTA_METRICS},
}

# Bedrock's series as AWS's sample reads them: (metric, Operation value or None) -> EXACTLY the
# dimension names of the published series. Retrieve's counters carry Operation AND KnowledgeBaseId
# (an Operation-only Retrieve series is not what the sample reads); AgenticRetrieveStream's carry
# Operation only; TotalIterationCount exists for AgenticRetrieveStream only (successful calls);
# RawDataSize has KnowledgeBaseId only.
_RETRIEVE_SERIES = (BEDROCK_OPERATION_DIMENSION, BEDROCK_KNOWLEDGE_BASE_DIMENSION)
_AGENTIC_SERIES = (BEDROCK_OPERATION_DIMENSION,)
BEDROCK_SERIES: dict[tuple[str, str | None], tuple[str, ...]] = {
    **{
        (counter, operation): _RETRIEVE_SERIES if operation == BEDROCK_RETRIEVE else _AGENTIC_SERIES
        for counter in (BEDROCK_INVOCATIONS, BEDROCK_CLIENT_ERRORS, BEDROCK_SERVER_ERRORS, BEDROCK_THROTTLES)
        for operation in BEDROCK_OPERATIONS
    },
    (BEDROCK_TOTAL_ITERATION_COUNT, BEDROCK_AGENTIC): _AGENTIC_SERIES,
    (BEDROCK_RAW_DATA_SIZE, None): (BEDROCK_KNOWLEDGE_BASE_DIMENSION,),
}

# The quality gate's figures (client/evaluation/gate.py, docs/evaluation.md), put by each gate run with
# PutMetricData in a namespace of their own, so the gate's role may publish there and nowhere else
# (`cloudwatch:namespace` condition: ledger, the quality gate). One datum per figure and checked mode.
QUALITY_NAMESPACE = "AgenticRetrieval/QualityGate"
QUALITY_ENVIRONMENT_DIMENSION = "Environment"
QUALITY_MODE_DIMENSION = "Mode"
QUALITY_DIMENSIONS = (QUALITY_ENVIRONMENT_DIMENSION, TENANT_DIMENSION, QUALITY_MODE_DIMENSION)
QUALITY_RECALL_AT_5 = "Recall5"
QUALITY_MRR = "MRR"
QUALITY_COMPLETE_RATE = "CompleteRate"
QUALITY_ANSWER_P95_SECONDS = "AnswerP95Seconds"
QUALITY_COST_PER_QUESTION = "CostPerQuestion"
# 1 when the run failed (a threshold, a baseline regression or a failed request), else 0: one series per run.
QUALITY_GATE_FAILED = "GateFailed"

"""The metric and log-field contracts are complete and consistent, so both sides can rely on them."""

from __future__ import annotations

from contract import log_fields
from contract import metric_names as names

NOT_METRICS = {"NAMESPACE", "TENANT_DIMENSION", "ERROR_CODE_DIMENSION", "TENANT_ONLY", "DIMENSION_SETS"}


def _constants(module, prefix_excluded: str | tuple[str, ...] = "") -> dict[str, str]:
    return {
        key: value
        for key, value in vars(module).items()
        if key.isupper() and isinstance(value, str) and not (prefix_excluded and key.startswith(prefix_excluded))
    }


def test_every_endpoint_metric_constant_documents_its_dimension_sets():
    # the quality gate's figures are put by the gate, not emitted by the endpoint (tests/client/evaluation)
    metrics = {value for key, value in _constants(names, ("BEDROCK_", "QUALITY_")).items() if key not in NOT_METRICS}
    assert metrics == set(names.DIMENSION_SETS)


def test_every_dimension_set_carries_the_tenant_first():
    for metric, sets in names.DIMENSION_SETS.items():
        assert sets and all(dims[0] == names.TENANT_DIMENSION for dims in sets), metric


def test_errors_are_emitted_both_per_tenant_and_per_tenant_and_code():
    assert set(names.DIMENSION_SETS[names.ERRORS]) == {
        (names.TENANT_DIMENSION,),
        (names.TENANT_DIMENSION, names.ERROR_CODE_DIMENSION),
    }


BEDROCK_NOT_METRICS = {
    "BEDROCK_KB_NAMESPACE",
    "BEDROCK_OPERATION_DIMENSION",
    "BEDROCK_KNOWLEDGE_BASE_DIMENSION",
    "BEDROCK_KNOWLEDGE_BASE_VALUE_PREFIX",
    "BEDROCK_AGENTIC",
    "BEDROCK_RETRIEVE",
}


def test_every_bedrock_metric_constant_lists_its_published_series():
    bedrock = {
        value
        for key, value in _constants(names).items()
        if key.startswith("BEDROCK_") and key not in BEDROCK_NOT_METRICS
    }
    assert bedrock == {metric for metric, _ in names.BEDROCK_SERIES}


def test_retrieve_counters_are_per_knowledge_base_and_iterations_are_agentic_only():
    """As AWS's sample reads them (04-dashboards.yaml, 01-cloudwatch-metrics.ipynb)."""
    per_kb = (names.BEDROCK_OPERATION_DIMENSION, names.BEDROCK_KNOWLEDGE_BASE_DIMENSION)
    for counter in (names.BEDROCK_INVOCATIONS, names.BEDROCK_CLIENT_ERRORS, names.BEDROCK_SERVER_ERRORS):
        assert names.BEDROCK_SERIES[(counter, names.BEDROCK_RETRIEVE)] == per_kb
        assert names.BEDROCK_SERIES[(counter, names.BEDROCK_AGENTIC)] == (names.BEDROCK_OPERATION_DIMENSION,)
    assert names.BEDROCK_SERIES[(names.BEDROCK_THROTTLES, names.BEDROCK_RETRIEVE)] == per_kb
    assert [op for metric, op in names.BEDROCK_SERIES if metric == names.BEDROCK_TOTAL_ITERATION_COUNT] == [
        names.BEDROCK_AGENTIC
    ]
    assert names.BEDROCK_SERIES[(names.BEDROCK_RAW_DATA_SIZE, None)] == (names.BEDROCK_KNOWLEDGE_BASE_DIMENSION,)


def test_log_field_names_are_distinct():
    fields = {key: value for key, value in _constants(log_fields).items() if not key.startswith("EVENT_")}
    assert len(set(fields.values())) == len(fields)
    assert log_fields.EVENTS == (
        log_fields.EVENT_REQUEST,
        log_fields.EVENT_TRACE,
        log_fields.EVENT_ERROR,
        log_fields.EVENT_DONE,
    )

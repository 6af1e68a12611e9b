"""The metric and log-field contracts are complete and consistent, so both sides can rely on them."""

from __future__ import annotations

from lambdas.endpoint import log_fields
from lambdas.endpoint import metric_names as names

NOT_METRICS = {"NAMESPACE", "TENANT_DIMENSION", "ERROR_CODE_DIMENSION", "TENANT_ONLY", "DIMENSION_SETS"}


def _constants(module, prefix_excluded: str = "") -> dict[str, str]:
    return {
        key: value
        for key, value in vars(module).items()
        if key.isupper() and isinstance(value, str) and not (prefix_excluded and key.startswith(prefix_excluded))
    }


def test_every_endpoint_metric_constant_documents_its_dimension_sets():
    metrics = {value for key, value in _constants(names, "BEDROCK_").items() if key not in NOT_METRICS}
    assert metrics == set(names.DIMENSION_SETS)


def test_every_dimension_set_carries_the_tenant_first():
    for metric, sets in names.DIMENSION_SETS.items():
        assert sets and all(dims[0] == names.TENANT_DIMENSION for dims in sets), metric


def test_errors_are_emitted_both_per_tenant_and_per_tenant_and_code():
    assert set(names.DIMENSION_SETS[names.ERRORS]) == {
        (names.TENANT_DIMENSION,),
        (names.TENANT_DIMENSION, names.ERROR_CODE_DIMENSION),
    }


def test_every_bedrock_metric_constant_lists_its_operations():
    bedrock = {
        value
        for key, value in _constants(names).items()
        if key.startswith("BEDROCK_") and key not in {"BEDROCK_KB_NAMESPACE", "BEDROCK_OPERATION_DIMENSION"}
    }
    assert bedrock == set(names.BEDROCK_METRIC_OPERATIONS)
    assert names.BEDROCK_METRIC_OPERATIONS[names.BEDROCK_TOTAL_ITERATION_COUNT] == ("AgenticRetrieveStream",)


def test_log_field_names_are_distinct():
    fields = {key: value for key, value in _constants(log_fields).items() if not key.startswith("EVENT_")}
    assert len(set(fields.values())) == len(fields)
    assert log_fields.EVENTS == (
        log_fields.EVENT_REQUEST,
        log_fields.EVENT_TRACE,
        log_fields.EVENT_ERROR,
        log_fields.EVENT_DONE,
    )

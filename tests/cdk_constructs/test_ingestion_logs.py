"""Each knowledge base delivers its APPLICATION_LOGS to the tenant's log group; metric filters and alarms
on failed documents and jobs page through the tenant's composite alarm (synthesized example config)."""

from __future__ import annotations

import json

from contract import ingestion_events as events


def _of_type(synthesized, stack: str, kind: str) -> dict[str, dict]:
    return synthesized.resources(stack, kind)


def test_one_delivery_source_per_knowledge_base_with_its_arn_and_application_logs(synthesized):
    sources = _of_type(synthesized, "dev-acme", "AWS::Logs::DeliverySource")
    knowledge_bases = _of_type(synthesized, "dev-acme", "AWS::Bedrock::KnowledgeBase")
    assert len(sources) == len(knowledge_bases) == 2
    for source in sources.values():
        props = source["Properties"]
        assert props["LogType"] == "APPLICATION_LOGS"
        [logical_id, _] = props["ResourceArn"]["Fn::GetAtt"]
        assert logical_id in knowledge_bases
        assert len(props["Name"]) <= 60


def test_deliveries_pair_each_source_with_the_tenants_log_group_destination(synthesized):
    [destination_id] = _of_type(synthesized, "dev-acme", "AWS::Logs::DeliveryDestination")
    destination = synthesized.resources("dev-acme", "AWS::Logs::DeliveryDestination")[destination_id]
    [group_id] = destination["Properties"]["DestinationResourceArn"]["Fn::GetAtt"][:1]
    group = synthesized.resources("dev-acme", "AWS::Logs::LogGroup")[group_id]["Properties"]
    assert group["LogGroupName"] == "/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/akb-dev-acme"
    assert group["RetentionInDays"] == 30
    deliveries = _of_type(synthesized, "dev-acme", "AWS::Logs::Delivery")
    assert len(deliveries) == 2
    for delivery in deliveries.values():
        assert delivery["Properties"]["DeliveryDestinationArn"] == {"Fn::GetAtt": [destination_id, "Arn"]}
        assert delivery["DependsOn"]


def test_failed_documents_and_jobs_alarms_are_part_of_the_composite(synthesized):
    filters = _of_type(synthesized, "dev-acme", "AWS::Logs::MetricFilter").values()
    patterns = {
        f["Properties"]["MetricTransformations"][0]["MetricName"]: f["Properties"]["FilterPattern"] for f in filters
    }
    assert patterns["FailedDocuments"] == events.failed_documents_pattern()
    assert patterns["FailedJobs"] == events.failed_jobs_pattern()
    alarms = _of_type(synthesized, "dev-acme", "AWS::CloudWatch::Alarm")
    ingestion = {k: a for k, a in alarms.items() if "ingestion-failed" in json.dumps(a["Properties"].get("AlarmName"))}
    assert len(ingestion) == 2
    [composite] = _of_type(synthesized, "dev-acme", "AWS::CloudWatch::CompositeAlarm").values()
    rule = json.dumps(composite["Properties"]["AlarmRule"])
    assert all(logical_id in rule for logical_id in ingestion)


def test_saved_query_lists_failed_documents_from_the_ingestion_log_group(synthesized):
    queries = _of_type(synthesized, "dev-acme", "AWS::Logs::QueryDefinition").values()
    [query] = [q for q in queries if q["Properties"]["Name"] == "akb/dev/acme/ingestion-failed-documents"]
    assert events.RESOURCE_STATUS_CHANGED in query["Properties"]["QueryString"]


def test_dashboard_has_the_ingestion_row(synthesized):
    [dashboard] = _of_type(synthesized, "dev-acme", "AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    assert "documents added / modified / deleted / failed" in body
    assert "number_of_resources_failed" in body


def test_failed_document_patterns_name_every_failed_status():
    pattern = events.failed_documents_pattern()
    for status in events.FAILED_DOCUMENT_STATUSES:
        assert f'($.event.status = "{status}")' in pattern
        assert f'($.event.index_status.Status = "{status}")' in pattern


def test_success_and_other_events_are_not_failed_documents():
    assert events.failed_document(json.dumps({"event_type": events.JOB_STATUS_CHANGED, "event": {}})) is None
    ok = {"event_type": events.RESOURCE_STATUS_CHANGED, "event": {"status": "INDEXING_COMPLETED"}}
    assert events.failed_document(json.dumps(ok)) is None
    assert events.failed_document("[not, a, mapping]") is None

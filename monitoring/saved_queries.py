"""CloudWatch Logs Insights saved queries over the endpoint's structured logs.

The field names come from `contract/log_fields.py`, the module the service logs with.
Saved queries take no parameters: the request-trace query carries a placeholder to replace.
https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_QuerySyntax.html
"""

from __future__ import annotations

from aws_cdk import aws_logs as logs
from constructs import Construct

from contract import log_fields as f

REQUEST_ID_PLACEHOLDER = "REPLACE-WITH-REQUEST-ID"


def queries() -> dict[str, logs.QueryString]:
    """name -> query; each name becomes `<prefix>/<name>` in the Logs Insights console."""
    return {
        "request-trace": logs.QueryString(
            fields=["@timestamp", f.EVENT, f.STEP, f.STATUS, f.SUB_QUERY, f.MESSAGE, f.ERROR_CODE, f.DURATION_MS],
            filter_statements=[f'{f.CORRELATION_ID} = "{REQUEST_ID_PLACEHOLDER}"'],
            sort="@timestamp asc",
            limit=1000,
        ),
        "slowest-requests": logs.QueryString(
            fields=[
                "@timestamp",
                f.CORRELATION_ID,
                f.TENANT,
                f.CALLER,
                f.DURATION_MS,
                f.TIME_TO_FIRST_EVENT_MS,
                f.ITERATIONS,
                f.STOP_REASON,
            ],
            filter_statements=[f'{f.EVENT} = "{f.EVENT_DONE}"'],
            sort=f"{f.DURATION_MS} desc",
            limit=50,
        ),
        "errors-by-code": logs.QueryString(
            filter_statements=[f'{f.EVENT} = "{f.EVENT_ERROR}"'],
            stats_statements=[f"count(*) as errors by {f.TENANT}, {f.ERROR_CODE}"],
            sort="errors desc",
        ),
        "frequent-sub-queries": logs.QueryString(
            filter_statements=[f'{f.EVENT} = "{f.EVENT_TRACE}" and ispresent({f.SUB_QUERY})'],
            stats_statements=[f"count(*) as times by {f.SUB_QUERY}"],
            sort="times desc",
            limit=50,
        ),
    }


class EndpointLogQueries(Construct):
    """`AWS::Logs::QueryDefinition`s scoped to one endpoint log group.

    Props:
    - log_group: the endpoint's log group.
    - name_prefix: the console folder, e.g. `akb/dev/acme`.
    """

    def __init__(self, scope: Construct, construct_id: str, *, log_group: logs.ILogGroup, name_prefix: str):
        super().__init__(scope, construct_id)
        self.definitions: dict[str, logs.QueryDefinition] = {
            name: logs.QueryDefinition(
                self,
                "".join(part.capitalize() for part in name.split("-")),
                query_definition_name=f"{name_prefix}/{name}",
                query_string=query,
                log_groups=[log_group],
            )
            for name, query in queries().items()
        }

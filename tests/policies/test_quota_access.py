"""Fair sharing's statements: UpdateItem on the environment's quota table, the tenant's own item and the
shared one, each only within a TransactWriteItems (policies/quota_access.py)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from client.cli import main
from policies.quota_access import QuotaAccess, quota_statements

TABLE = "arn:aws:dynamodb:us-west-2:111122223333:table/akb-dev-quota"
IN_A_TRANSACTION = {"ForAnyValue:StringEquals": {"dynamodb:EnclosingOperation": ["TransactWriteItems"]}}


def test_each_statement_updates_one_item_of_the_quota_table_and_nothing_else():
    own, shared = quota_statements(QuotaAccess(TABLE, "acme"))
    assert (own["Sid"], shared["Sid"]) == (
        "TakeTokensFromThisTenantsQuotaBuckets",
        "TakeTokensFromTheAccountsSharedQuotaBucket",
    )
    for statement, item in ((own, "tenant#acme"), (shared, "account")):
        assert statement["Action"] == "dynamodb:UpdateItem" and statement["Resource"] == TABLE
        assert statement["Condition"] == {
            "ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [item]},
            **IN_A_TRANSACTION,
        }


def test_akb_policy_shows_the_statements_and_the_tenants_share():
    result = CliRunner().invoke(main, ["policy", "--env", "dev", "--tenant", "globex"])
    assert result.exit_code == 0, result.output
    review = json.loads(result.output)
    statements = {s["Sid"]: s for s in review["endpoint_execution_role"]["Statement"]}
    own = statements["TakeTokensFromThisTenantsQuotaBuckets"]
    assert own["Resource"] == "arn:aws:dynamodb:us-west-2:123456789012:table/akb-dev-quota"
    assert own["Condition"]["ForAllValues:StringEquals"]["dynamodb:LeadingKeys"] == ["tenant#globex"]
    assert review["fair_share"]["guaranteed_requests_per_minute"] == 180  # what acme's 120 of 300 leaves
    assert review["fair_share"]["items_the_endpoint_role_updates"] == ["tenant#globex", "account"]

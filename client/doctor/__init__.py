"""`akb doctor`: read-only checks of a target account before (and after) `cdk deploy`.

`findings` holds the result type and turns every AWS error into a finding naming the IAM action
it needs; `checkup` holds what the checks share and the runner; `account_checks` and
`tenant_checks` hold one function per check. docs/operations.md, "Before the first deploy".
"""

"""`akb verify`: what a deployed environment does, checked with the caller's credentials (docs/operations.md).

`akb doctor` checks an account before a deploy; verify checks the deploy: a canary question through
each door of each tenant (client/verify/door_checks.py), the CloudWatch series the alarms read
(metric_checks.py), ingestion log delivery (delivery_checks.py) and the alarm actions' permissions
(alarm_checks.py). It reuses doctor's findings, checkup and runner, and the clients `akb ask` uses.
"""

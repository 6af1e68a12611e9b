"""Dashboards, alarms, saved Logs Insights queries and the metric catalogue they read."""

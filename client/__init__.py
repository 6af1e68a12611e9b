"""The `akb` command line and the Python client for the streaming endpoint."""

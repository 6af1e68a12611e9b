"""The streaming endpoint: an ASGI service relaying AgenticRetrieveStream event by event."""

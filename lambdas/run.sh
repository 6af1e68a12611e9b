#!/bin/sh
# The function's handler. The Lambda Web Adapter (AWS_LAMBDA_EXEC_WRAPPER=/opt/bootstrap) starts this
# script and proxies each invocation to the ASGI app it serves on $AWS_LWA_PORT, streaming the response.
exec python -m uvicorn --host 127.0.0.1 --port "${AWS_LWA_PORT:-8080}" --no-access-log lambdas.endpoint.app:app

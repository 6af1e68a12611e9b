#!/bin/bash
# Lambda entry (handler) behind the Lambda Web Adapter: the adapter waits for GET /healthz on
# $AWS_LWA_PORT, then forwards each invocation as HTTP and streams the response back.
# AKB_PYTHON lets tests pick an interpreter; in Lambda it is the runtime's python3.
# /var/task holds both the code (lambdas/) and the bundled dependencies, so it is the one path.
export PYTHONPATH="${LAMBDA_TASK_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}${PYTHONPATH:+:$PYTHONPATH}"
# Connection limits (the same under `akb local`): a listen backlog for bursts of streams, idle
# keep-alive connections closed after 5 s, request heads bounded in time and to 16 KiB whether
# complete or not (the protocol class, http_timeouts.py: 431; h11's incomplete-event bound is the
# same number), the body's time bound is the app's (intake.py).
# uvicorn's command line, started by lambdas/endpoint/serve.py: no cycle collection until the first
# query has ended (a shorter cold start). -P: `-m` would put the working directory first on sys.path,
# so a `lambdas/` folder wherever `akb local` was started would shadow this one; only PYTHONPATH counts.
exec "${AKB_PYTHON:-python3}" -P -m lambdas.endpoint.serve --factory lambdas.endpoint.serve:app_from_environment \
  --host 127.0.0.1 --port "${AWS_LWA_PORT:-8080}" --no-access-log --log-level warning \
  --http lambdas.endpoint.http_timeouts:H11ReadTimeoutProtocol --backlog 2048 --timeout-keep-alive 5 \
  --h11-max-incomplete-event-size 16384

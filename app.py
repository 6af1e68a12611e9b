"""CDK entry point: `cdk synth -c env=NAME -c config=DIR` (defaults: dev, config/).

A config error stops synth with the file, the field and what is allowed — never a stack trace.
"""

from __future__ import annotations

import sys

import aws_cdk as cdk

from cdk_constructs.endpoint_limits import deploy_problems
from schema import ConfigError, load_project
from stacks.app_builder import build_app


def main() -> None:
    app = cdk.App()
    env_name = app.node.try_get_context("env") or "dev"
    config_dir = app.node.try_get_context("config") or "config"
    try:
        project = load_project(config_dir, env_name)
        problems = deploy_problems(project)  # the same checks as `akb validate`, before any construct
        if problems:
            raise ConfigError(problems)
    except ConfigError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
    build_app(app, project)
    try:
        app.synth()
    except RuntimeError as error:
        # cdk-nag has already printed each finding; the jsii stack trace would add nothing.
        print(f"Synth stopped: {str(error).splitlines()[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

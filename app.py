"""CDK entry point: `cdk synth -c env=NAME -c config=DIR` (defaults: dev, config/).

With `-c pipeline=FILE` (`make synth-pipeline`: config/pipeline.yaml) it builds the promotion pipeline
instead, whose stages hold every environment the file lists (docs/pipeline.md); without it no pipeline
exists. A config error stops synth with the file, the field and what is allowed — never a stack trace.
"""

from __future__ import annotations

import sys

import aws_cdk as cdk

from features.endpoint_limits import deploy_problems
from schema import ConfigError, load_project
from stacks.app_builder import build_app


def main() -> None:
    app = cdk.App()
    env_name = app.node.try_get_context("env") or "dev"
    config_dir = app.node.try_get_context("config") or "config"
    pipeline_file = app.node.try_get_context("pipeline")
    if pipeline_file:
        _build_pipeline_or_exit(app, pipeline_file, config_dir)
        _synth_or_exit(app)
        return
    try:
        project = load_project(config_dir, env_name)
        problems = deploy_problems(project)  # the same checks as `akb validate`, before any construct
        if problems:
            raise ConfigError(problems)
    except ConfigError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
    build_app(app, project)
    _synth_or_exit(app)


def _build_pipeline_or_exit(app: cdk.App, pipeline_file: str, config_dir: str) -> None:
    from schema.pipeline import load_pipeline
    from stacks.pipeline_stack import build_pipeline_app

    try:
        pipeline_project = load_pipeline(pipeline_file, config_dir)
        problems = [problem for project in pipeline_project.projects for problem in deploy_problems(project)]
        if problems:
            raise ConfigError(problems)
    except ConfigError as error:
        print(error, file=sys.stderr)
        sys.exit(1)
    build_pipeline_app(app, pipeline_project, config_dir)  # cdk-nag included, as on the environments' app


def _synth_or_exit(app: cdk.App) -> None:
    try:
        app.synth()
    except RuntimeError as error:
        # cdk-nag has already printed each finding; the jsii stack trace would add nothing.
        print(f"Synth stopped: {str(error).splitlines()[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

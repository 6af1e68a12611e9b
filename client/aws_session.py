"""Every AWS session and credential `akb` uses, made in one place with the global `--profile`/`--region`.

A command never calls `boto3.Session()` or `boto3.client()` itself: `session(region)` applies the
profile the user chose (else the standard chain), and the region rule below. Errors are botocore's
own (ProfileNotFound, NoCredentialsError, NoRegionError); client/failures.py turns each into one line.

The region rule: an environment's file names its region, and that region is where its stacks are,
so `environment_region()` refuses a `--region` that names another one (it would check or call the
wrong place); anywhere else `--region` wins, then AWS_REGION / AWS_DEFAULT_REGION / the profile's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from client.exit_codes import SetupError
from client.global_options import current

if TYPE_CHECKING:
    import boto3
    from botocore.credentials import Credentials

    from schema import Project


class RegionConflict(SetupError):
    """`--region` names another region than the environment's file."""


def session(region: str | None = None) -> boto3.Session:
    """A boto3 session with the chosen profile, in `region` (else --region, else the chain's).

    Every session shares one botocore data loader: a command that makes sessions for several regions or
    services parses botocore's models (endpoints, partitions, service definitions: megabytes of JSON)
    once per process instead of once per session."""
    import boto3
    import botocore.session

    options = current()
    core = botocore.session.get_session()
    core.register_component("data_loader", _shared_loader())
    return boto3.Session(profile_name=options.profile, region_name=region or options.region, botocore_session=core)


def _shared_loader() -> Any:
    global _LOADER
    if _LOADER is None:
        from botocore.loaders import create_loader

        _LOADER = create_loader()
    return _LOADER


_LOADER: Any = None


def client(service: str, region: str | None = None, **kwargs: Any) -> Any:
    return session(region).client(service, **kwargs)


def environment_region(project: Project) -> str:
    """The environment's region; a `--region` naming another one is refused (its stacks are not there)."""
    region = project.environment.region
    chosen = current().region
    if chosen is not None and chosen != region:
        raise RegionConflict(
            f"--region {chosen}, but environment {project.env_name} is in {region} "
            f"({project.config_dir}/environments/{project.env_name}.yaml): drop --region, or pick the environment "
            "that is in that region"
        )
    return region


def credentials() -> Credentials:
    """The credentials to sign with, from the chosen profile or the standard chain.

    Raises botocore's NoCredentialsError (ProfileNotFound for an unknown profile)."""
    from botocore.exceptions import NoCredentialsError

    found = session().get_credentials()
    if found is None:
        raise NoCredentialsError()
    return found


def default_region() -> str | None:
    """--region, else the region the chain configures (AWS_REGION, AWS_DEFAULT_REGION, the profile's)."""
    return current().region or session().region_name

"""The configuration schema: the single source of truth for environment and tenant files.

The loader, `akb validate`, the stacks and the configuration reference in the docs all read
these models, so a field exists in exactly one place.
"""

from schema.config_errors import ConfigError, Problem
from schema.environment import Environment
from schema.loader import Project, load_project
from schema.tenant import Tenant

__all__ = ["ConfigError", "Environment", "Problem", "Project", "Tenant", "load_project"]

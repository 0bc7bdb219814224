"""Orbit: background jobs for Python, on Redis or PostgreSQL."""

from orbit.app import App
from orbit.errors import OrbitError, PermanentError

__all__ = ["App", "OrbitError", "PermanentError"]
__version__ = "3.1.1"

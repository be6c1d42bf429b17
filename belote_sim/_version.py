"""The package version, in one place (imported by the package and its modules alike)."""

__all__ = ["__version__"]

__version__ = "0.1.0"

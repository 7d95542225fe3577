"""Errors a model provider raises for a configuration a person must fix."""


class ModelConfigError(RuntimeError):
    """The model spec or its settings cannot give a working chat model; the message says why."""

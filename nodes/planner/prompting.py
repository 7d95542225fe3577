"""The plan as the planner's model calls show it, and the model they go to."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from core.models import ModelResolver


def plan_listing(steps: list[str]) -> str:
    """Return the steps as a numbered list."""
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))


class PlannerModel:
    """Resolves the run's chat model (the runner's resolver, or one from the settings)."""

    def __init__(self, models: ModelResolver | None) -> None:
        self._models = models

    def resolve(self, spec: str | None) -> BaseChatModel:
        """Return the model for the run's spec."""
        if self._models is None:
            from core.settings import get_settings

            self._models = ModelResolver(get_settings())
        return self._models.resolve(spec)

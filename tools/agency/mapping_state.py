"""Whether a brand's work has a destination: the two mapping fields, set or missing."""

from __future__ import annotations

from typing import Any

from tools.agency.models import Brand

MAPPING_FIELDS = ("destination_space", "destination_list")


def is_mapped(brand: Brand) -> bool:
    """Whether the brand's work has a destination (both space and list set)."""
    return not missing_fields(brand)


def missing_fields(brand: Brand) -> list[str]:
    """Return the destination fields the brand lacks."""
    return [name for name in MAPPING_FIELDS if not getattr(brand, name)]


def mapping_state(brand: Brand) -> dict[str, Any]:
    """Return whether the brand is mapped and which destination fields it lacks."""
    return {"mapped": is_mapped(brand), "missing_mapping": missing_fields(brand)}

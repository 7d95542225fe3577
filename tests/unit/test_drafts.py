"""The grounded task draft's pure parts: ASINs, the missing-identifier hint, SOP steps."""

from __future__ import annotations

from tools.agency.drafts import (
    compose_description,
    extract_product_ids,
    extract_steps,
    product_mentions_without_ids,
)


def test_asins_are_found_in_any_case_uppercased_and_deduplicated() -> None:
    text = "Coupon for asin b0cgp12345, B0CGP12345 and B0dstor001 (again: b0cgp12345)."
    assert extract_product_ids(text) == ["B0CGP12345", "B0DSTOR001"]


def test_text_without_asins_has_none() -> None:
    assert extract_product_ids("Create a coupon code for Garlic Press") == []
    assert extract_product_ids("") == []
    # Not ASINs: wrong prefix, too short, or part of a longer token.
    assert extract_product_ids("B1CGP12345 B0CGP1234 XB0CGP12345 B0CGP123456") == []


def test_product_talk_without_ids_asks_for_them() -> None:
    hint = product_mentions_without_ids(
        "Create a coupon code for Garlic Press", ["Garlic Press"], sop_title="Coupon code setup SOP"
    )
    assert hint == "Which ASINs should the coupon cover? The Coupon code setup SOP needs them."
    generic = product_mentions_without_ids("Fix the listing title")
    assert generic is not None and "ASIN" in generic and "SOP" not in generic


def test_a_brand_name_alone_counts_as_product_talk() -> None:
    assert product_mentions_without_ids("Refresh garlic press photos", ["Garlic Press"])
    assert product_mentions_without_ids("Refresh photos", ["Garlic Press"]) is None


def test_no_hint_when_ids_are_given_or_products_are_not_discussed() -> None:
    assert product_mentions_without_ids("Coupon for B0CGP12345", ["Garlic Press"]) is None
    assert product_mentions_without_ids("Q1 PPC budget review", ["Garlic Press"]) is None
    # Word boundaries: "productive" is not "product".
    assert product_mentions_without_ids("A productive kickoff call") is None


def test_numbered_steps_are_extracted_without_their_numbers() -> None:
    body = (
        "Use this SOP for coupons.\n"
        "1. Confirm the brand.\n"
        "  2. Collect the ASINs; a coupon cannot be created without them.\n"
        "Not a step: 3 apples.\n"
        "3) Agree the discount.\n"
        "10. Log it."
    )
    assert extract_steps(body) == [
        "Confirm the brand.",
        "Collect the ASINs; a coupon cannot be created without them.",
        "Agree the discount.",
        "Log it.",
    ]
    assert extract_steps("Every Monday: export spend and review it.") == []


def test_description_puts_details_before_the_checklist() -> None:
    text = compose_description("20% off", "Coupon code setup SOP", ["Confirm.", "Collect."])
    assert text == "20% off\n\nChecklist (from Coupon code setup SOP):\n1. Confirm.\n2. Collect."
    assert compose_description("", "PPC SOP", []) == "Reference: PPC SOP"
    assert compose_description("just this", None, []) == "just this"

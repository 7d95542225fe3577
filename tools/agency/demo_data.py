"""The agency's part of the demo workspace: two clients, their brands and team, SOPs, tasks."""

from __future__ import annotations

from datetime import date
from typing import Any

CLIENTS: list[dict[str, Any]] = [
    {"name": "Distex", "notes": "Home storage and lighting brands sold on Amazon US and CA."},
    {"name": "Thorinox", "notes": "Kitchen tools and cookware; Amazon US is the main channel."},
]

# Garlic Press exists under both clients: mapped for Thorinox, unmapped for Distex.
BRANDS: list[dict[str, Any]] = [
    {
        "client": "Thorinox",
        "name": "Garlic Press",
        "marketplace": "amazon_us",
        "destination_space": "Thorinox",
        "destination_list": "Amazon US - Garlic Press",
    },
    {
        "client": "Thorinox",
        "name": "Thorinox Cutlery",
        "marketplace": "amazon_us",
        "destination_space": "Thorinox",
        "destination_list": "Amazon US - Cutlery",
    },
    {
        "client": "Thorinox",
        "name": "Thorinox Peelers",
        "marketplace": "amazon_us",
        "destination_space": None,
        "destination_list": None,
    },
    {
        "client": "Distex",
        "name": "Garlic Press",
        "marketplace": "amazon_ca",
        "destination_space": None,
        "destination_list": None,
    },
    {
        "client": "Distex",
        "name": "Distex Storage",
        "marketplace": "amazon_us",
        "destination_space": "Distex",
        "destination_list": "Amazon US - Storage",
    },
    {
        "client": "Distex",
        "name": "Distex Lighting",
        "marketplace": "amazon_us",
        "destination_space": "Distex",
        "destination_list": None,
    },
]

TEAM: list[dict[str, Any]] = [
    {
        "name": "Ada Lovelace",
        "email": "ada@agency.example",
        "slack_user_id": "U0ADA",
        "role": "admin",
        "title": "Head of Operations",
    },
    {
        "name": "Grace Hopper",
        "email": "grace@agency.example",
        "slack_user_id": "U0GRACE",
        "role": "member",
        "title": "Account Manager",
    },
    {
        "name": "Linus Park",
        "email": "linus@agency.example",
        "slack_user_id": "U0LINUS",
        "role": "member",
        "title": "PPC Specialist",
    },
    {
        "name": "Omar Haddad",
        "email": "omar@agency.example",
        "slack_user_id": "U0OMAR",
        "role": "member",
        "title": "Designer",
    },
    {
        "name": "Maya Chen",
        "email": "maya@agency.example",
        "slack_user_id": "U0MAYA",
        "role": "viewer",
        "title": "Analyst",
    },
]

ASSIGNMENTS: list[dict[str, Any]] = [
    {"client": "Thorinox", "member": "Grace Hopper", "role": "account_manager"},
    {"client": "Thorinox", "member": "Linus Park", "role": "ppc_specialist"},
    {"client": "Thorinox", "member": "Omar Haddad", "role": "designer"},
    {"client": "Distex", "member": "Ada Lovelace", "role": "account_manager"},
    {"client": "Distex", "member": "Maya Chen", "role": "analyst"},
]

TASKS: list[dict[str, Any]] = [
    {
        "client": "Thorinox",
        "brand": "Garlic Press",
        "title": "Refresh Garlic Press main images",
        "status": "open",
        "assignee": "Omar Haddad",
        "due_date": date(2026, 12, 4),
        "product_ids": ["B0CGP12345"],
    },
    {
        "client": "Thorinox",
        "brand": None,
        "title": "Q1 PPC budget review",
        "status": "in_progress",
        "assignee": "Linus Park",
        "due_date": date(2026, 12, 15),
        "product_ids": [],
    },
    {
        "client": "Distex",
        "brand": "Distex Storage",
        "title": "Storage bins listing audit",
        "status": "done",
        "assignee": "Maya Chen",
        "due_date": date(2026, 11, 10),
        "product_ids": ["B0DSTOR001", "B0DSTOR002"],
    },
    {
        "client": "Distex",
        "brand": "Distex Lighting",
        "title": "Map Distex Lighting destination",
        "status": "blocked",
        "assignee": "Ada Lovelace",
        "due_date": None,
        "product_ids": [],
    },
]

SOPS: list[dict[str, Any]] = [
    {
        "client": None,
        "kind": "sop",
        "title": "Coupon code setup SOP",
        "tags": ["coupon", "promotion", "amazon"],
        "body": (
            "Use this SOP whenever a client asks for a coupon code or a coupon promotion.\n"
            "1. Confirm the brand, the marketplace and the destination list for the task.\n"
            "2. Collect the ASINs the coupon applies to; a coupon cannot be created without them.\n"
            "3. Agree the discount (percentage or amount) and the total budget with the client.\n"
            "4. In Seller Central open Advertising > Coupons and create the coupon for the ASINs.\n"
            "5. Schedule start and end dates; coupons need 24 hours to go live.\n"
            "6. QA: check the coupon badge on the product page and log the coupon in the task."
        ),
    },
    {
        "client": None,
        "kind": "sop",
        "title": "Listing image refresh SOP",
        "tags": ["images", "listing", "creative"],
        "body": (
            "1. Pull the current images and the brand guidelines.\n"
            "2. Brief the designer with the ASINs and the main image requirements (white "
            "background, 85% fill).\n3. Review drafts with the account manager.\n"
            "4. Upload in Seller Central and confirm the images are live."
        ),
    },
    {
        "client": None,
        "kind": "sop",
        "title": "PPC weekly budget review SOP",
        "tags": ["ppc", "budget", "advertising"],
        "body": (
            "Every Monday: export campaign spend, compare with the monthly budget pacing, "
            "pause keywords with ACoS above target, and note changes in the client task."
        ),
    },
    {
        "client": None,
        "kind": "sop",
        "title": "New brand onboarding checklist",
        "tags": ["onboarding", "brand", "mapping"],
        "body": (
            "1. Create the brand in the workspace.\n2. Map its destination space and list so "
            "tasks land in the right place.\n3. Assign the account team.\n"
            "4. Create kickoff tasks: listing audit, image refresh, PPC setup."
        ),
    },
    {
        "client": None,
        "kind": "sop",
        "title": "Lightning deal submission SOP",
        "tags": ["deal", "promotion"],
        "body": (
            "Check deal eligibility per ASIN, pick the week, set the deal price at least 15% "
            "below the lowest price of the last 30 days, and submit before the cut-off."
        ),
    },
    {
        "client": "Thorinox",
        "kind": "doc",
        "title": "Thorinox brand guidelines",
        "tags": ["brand", "guidelines"],
        "body": (
            "Thorinox voice: practical, confident, no exclamation marks. Product names are "
            "always title case (Garlic Press, not garlic press). Coupons are capped at 15%."
        ),
    },
]

MEMORY_NOTES: list[dict[str, Any]] = [
    {
        "client": "Thorinox",
        "note": "Thorinox caps coupon discounts at 15%.",
        "source": "meeting",
        "confidence": 0.9,
        "tags": ["coupon", "pricing"],
    },
    {
        "client": "Distex",
        "note": "Distex prefers concise task titles.",
        "source": "chat",
        "confidence": 0.8,
        "tags": ["style"],
    },
]

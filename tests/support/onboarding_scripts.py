"""Scripted turns of an onboarding conversation: a brand lookup, a kickoff task, a plan.

The checkpoint tests share them: each is one model answer (a call, or the text after it).
"""

from __future__ import annotations

import json

TITLE = "Kickoff: Garlic Press onboarding"
LOOKUP = {"tool_calls": [{"name": "resolve_brand", "args": {"brand": "Garlic Press"}}]}
LOOKED = {"content": "Garlic Press belongs to Thorinox."}
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
CREATED = {"content": "The kickoff task is created."}
PLAN = {
    "tool_calls": [
        {
            "name": "create_plan",
            "args": {"objective": "Onboard Garlic Press: check its mapping, create the kickoff"},
        }
    ]
}
DRAFT = {"content": json.dumps({"steps": ["Check the mapping", "Create the kickoff task"]})}
ANSWER = {"content": "Garlic Press is onboarded: mapping checked, kickoff task created."}

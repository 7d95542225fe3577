"""The planner subgraph's nodes (start, draft, review, step, finish) and what they share.

Reading the model's JSON, the planner's prompts, and the resume point a proposed change
records.
"""

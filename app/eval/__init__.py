"""`agentloop eval`: scenario files run against the real graph, on a scripted or a real model."""

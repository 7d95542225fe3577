"""The agency pack (AgencyClaw's skills): clients, brands, team, tasks and the knowledge base."""

"""The Slack front end: a Bolt app that feeds mentions, DMs and thread replies to the runner."""

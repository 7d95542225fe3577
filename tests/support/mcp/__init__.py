"""MCP servers written with the `mcp` SDK, run over stdio and streamable HTTP by the tests."""

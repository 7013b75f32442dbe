//! The MCP side: lifecycle, revision negotiation, lists, tools/call, transports.

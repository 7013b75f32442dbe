"""Feeds MCP tools to OpenAI's Agents SDK (openai-agents, as installed by `cargo xtask
deps`) and reports what it does with them, as JSON in the file named by the job. The
Rust test (tests/lint_oracles.rs) decides what is right; this script only observes.

usage: python openai_agents.py JOB.json
  JOB: {out, tools: [{name, inputSchema}]}
  out: {version, tools: [{converted, error, mcpStrict, mcpSchema}], nameMax, nameCharsOk: [bool]}

`ensure_strict_json_schema(schema)` is the SDK's conversion of a JSON schema to what
OpenAI's strict mode takes (adapted from openai-python's own): `converted` is its
result, `error` what it raised (a schema strict mode cannot take).

`MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)` is what an
agent with `mcp_config={"convert_schemas_to_strict": True}` does to every MCP tool: it
runs `ensure_strict_json_schema` on the inputSchema and keeps the tool non-strict when
that raises (it also refuses open objects and any `$ref` it leaves). `mcpStrict` is
the FunctionTool's `strict_json_schema`, `mcpSchema` the `params_json_schema` it sends.
"""

import copy
import json
import sys
from importlib.metadata import version

from agents.exceptions import UserError
from agents.mcp import MCPServerStdio
from agents.mcp import util
from agents.mcp.util import MCPUtil
from agents.strict_schema import ensure_strict_json_schema
from mcp.types import Tool

job = json.load(open(sys.argv[1], encoding="utf-8"))
# Never connected: to_function_tool only reads the server's name and policies.
server = MCPServerStdio(params={"command": "true"}, name="oracle")
tools = []
for t in job["tools"]:
    ft = MCPUtil.to_function_tool(
        Tool(name=t["name"], input_schema=t["inputSchema"]), server, True
    )
    try:
        converted = ensure_strict_json_schema(copy.deepcopy(t["inputSchema"]))
        error = None
    except (UserError, ValueError, TypeError, KeyError, AssertionError) as e:
        converted, error = None, f"{type(e).__name__}: {e}"
    tools.append(
        {
            "converted": converted,
            "error": error,
            "mcpStrict": ft.strict_json_schema,
            "mcpSchema": ft.params_json_schema,
        }
    )


def chars_ok(name):
    # The SDK's own replacement of what OpenAI function names may not contain (it
    # also strips `_`/`-` at both ends, hence the guards).
    guarded = f"a{name}a"
    return MCPUtil._safe_tool_name_part(guarded, "x") == guarded


out = {
    "version": version("openai-agents"),
    "tools": tools,
    "nameMax": util._MCP_FUNCTION_TOOL_NAME_MAX_LENGTH,
    "nameCharsOk": [chars_ok(t["name"]) for t in job["tools"]],
}
with open(job["out"], "w", encoding="utf-8") as f:
    json.dump(out, f)

// Feeds MCP tools to Gemini CLI's own code (@google/gemini-cli-core, as installed by
// `cargo xtask deps`) and reports what it does with them, as JSON in the file named by
// the job. The Rust test (tests/lint_oracles.rs) decides what is right; this script
// only observes. Results go to a file, not stdout: Gemini CLI logs its truncation
// warnings to the console.
//
// usage: node gemini_cli.mjs JOB.json
//   JOB: {nodeModules, out, names: [[server, tool]], schemas: [inputSchema], toolNames: [name]}
//   out: {version, sdkVersion, names: [generateValidName(`${server}_${tool}`)],
//         cycles: [hasCycleInSchema(schema)], toolNameValid: [validateToolName(name)]}
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const pkg = (p) => JSON.parse(fs.readFileSync(path.join(job.nodeModules, p, 'package.json'), 'utf8'));
const load = (p) => import(pathToFileURL(path.join(job.nodeModules, p)).href);

const core = '@google/gemini-cli-core';
// The functions Gemini CLI applies to every MCP tool it discovers: the name it
// registers (`DiscoveredMCPTool` calls generateValidName(`${server}_${tool}`)), and
// the cycle check it runs on `parametersJsonSchema` when the API rejects a request.
const { generateValidName, MCP_QUALIFIED_NAME_SEPARATOR } = await load(`${core}/dist/src/tools/mcp-tool.js`);
const { hasCycleInSchema } = await load(`${core}/dist/src/tools/tools.js`);
// SEP-986 tool-name check of the MCP TypeScript SDK (a server-side warning, not a host).
const { validateToolName } = await load('@modelcontextprotocol/sdk/dist/esm/shared/toolNameValidation.js');

const out = {
  version: pkg(core).version,
  sdkVersion: pkg('@modelcontextprotocol/sdk').version,
  names: job.names.map(([server, tool]) => generateValidName(`${server}${MCP_QUALIFIED_NAME_SEPARATOR}${tool}`)),
  cycles: job.schemas.map((s) => hasCycleInSchema(s)),
  toolNameValid: job.toolNames.map((n) => validateToolName(n).isValid),
};
fs.writeFileSync(job.out, JSON.stringify(out));

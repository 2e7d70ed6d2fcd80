// Local single-user mode with MCP roots: the client's root is the job's /workspace when it is
// inside an allowed prefix, and ignored otherwise. Usage:
// node roots-check.mjs <base-url> <allowed-root-dir> <outside-root-dir>
// McpRootsIT checks the host side (what the job wrote, and where it could not).
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [baseUrl, allowed, outside] = process.argv.slice(2);
let roots = [];
const client = new Client({ name: 'nix-exec-roots-check', version: '1.0.0' }, { capabilities: { roots: {} } });
client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl)));

const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

roots = [{ uri: pathToFileURL(allowed).href, name: 'project' }];
let result = await client.callTool({ name: 'run_code', arguments: { language: 'bash',
  code: 'cat /workspace/input.txt && echo written-by-job > /workspace/output.txt' } });
assert.equal(result.isError, false, text(result));
assert.equal(result.structuredContent.stdout, 'from the host\n');
console.log('ok allowed root is /workspace');

roots = [{ uri: pathToFileURL(outside).href, name: 'elsewhere' }];
result = await client.callTool({ name: 'run_code', arguments: { language: 'bash',
  code: 'ls -A /workspace | wc -l; echo x > /workspace/pwned' } });
assert.equal(result.isError, false, text(result));
assert.equal(result.structuredContent.stdout.trim(), '0');
console.log('ok root outside the prefixes is ignored');

await client.close();
console.log('all roots checks passed');

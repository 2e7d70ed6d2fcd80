// Starts `nix-exec` as an MCP client configured with {"command": "nix-exec", "args": [...]} does, with the
// official TypeScript SDK's StdioClientTransport, and drives it: initialize, tools/list, run_code.
// Usage: node stdio-check.mjs <label> <environment as JSON> <command> [args...]
// Every check is an assertion; the exit code is 0 only when all held. StdioServerIT runs it.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [label, environment, command, ...args] = process.argv.slice(2);

const transport = new StdioClientTransport({ command, args, env: JSON.parse(environment), stderr: 'inherit' });
const client = new Client({ name: 'nix-exec-stdio-check', version: '1.0.0' });

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function check(name, fn) {
  await fn();
  console.log(`ok ${label} ${name}`);
}

await check('initialize', async () => {
  await client.connect(transport);
  assert.ok(client.getServerCapabilities().tools, 'the server offers tools');
  console.log(`server ${label} ${client.getServerVersion().name}`);
});

await check('tools/list', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('run_code'), names.join(','));
  assert.ok(names.includes('get_job'), names.join(','));
});

await check('run_code', async () => {
  const result = await client.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo stdio-$((6*7))' } });
  assert.equal(result.isError, false, text(result));
  assert.match(text(result), /stdio-42/);
  assert.equal(result.structuredContent.status, 'succeeded');
});

await client.close();
console.log(`all ${label} checks passed`);

// Workspaces and artifacts through the official MCP TypeScript SDK client, as an agent uses them.
// Usage: node workspace-check.mjs <base-url> <key-of-tenant-A> <key-of-tenant-B>
// Every check is an assertion; the exit code is 0 only when all held. McpWorkspaceTest runs it.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [baseUrl, keyA, keyB] = process.argv.slice(2);

async function connect(key) {
  const client = new Client({ name: 'nix-exec-workspace-check', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl),
    { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function check(name, fn) {
  await fn();
  console.log(`ok ${name}`);
}

const a = await connect(keyA);

await check('job tools advertise an output schema, which every later call is validated against', async () => {
  // listTools makes the SDK check each later result's structuredContent against its tool's outputSchema
  const { tools } = await a.listTools();
  for (const name of ['run_code', 'submit_job', 'get_job', 'cancel_job', 'exec_in_session']) {
    const schema = tools.find((t) => t.name === name).outputSchema;
    assert.equal(schema.type, 'object', name);
    assert.ok(schema.required.includes('exit_code') && schema.required.includes('artifacts'), name);
  }
});

await check('consecutive run_code calls of one session share /workspace', async () => {
  const first = await a.callTool({ name: 'run_code', arguments: { language: 'python',
    code: "open('data.csv', 'w').write('x,y\\n1,2\\n3,4\\n')\nprint('written')" } });
  assert.equal(first.isError, false, text(first));
  const second = await a.callTool({ name: 'run_code', arguments: { language: 'python',
    code: "rows = open('data.csv').read().splitlines()[1:]\nprint(sum(int(r.split(',')[1]) for r in rows))" } });
  assert.equal(second.isError, false, text(second));
  assert.equal(second.structuredContent.stdout, '6\n');
});

await check('a plot written to /workspace/out comes back as image content', async () => {
  const result = await a.callTool({ name: 'run_code', arguments: { language: 'python',
    packages: ['python3Packages.tinypng'],
    code: [
      'import os, tinypng',
      "os.makedirs('out', exist_ok=True)",
      "tinypng.write('out/plot.png', 32, 16, lambda x, y: (255, x * 8, y * 16))",
      "open('out/summary.txt', 'w').write('32x16 gradient')",
    ].join('\n') } });
  assert.equal(result.isError, false, text(result));
  const images = result.content.filter((c) => c.type === 'image');
  assert.equal(images.length, 1, JSON.stringify(result.content.map((c) => c.type)));
  assert.equal(images[0].mimeType, 'image/png');
  const png = Buffer.from(images[0].data, 'base64');
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(png.readUInt32BE(16), 32); // IHDR width
  assert.equal(png.readUInt32BE(20), 16); // IHDR height
  const resources = result.content.filter((c) => c.type === 'resource');
  assert.equal(resources.length, 1);
  assert.equal(resources[0].resource.text, '32x16 gradient');
  assert.match(resources[0].resource.uri, /\/artifacts\/out\/summary\.txt$/);
  assert.match(text(result), /out\/plot\.png \(image\/png, \d+ bytes\)/);
  const artifacts = result.structuredContent.artifacts;
  assert.deepEqual(artifacts.map((x) => x.name), ['out/plot.png', 'out/summary.txt']);
  // the next call returns only what it wrote itself, not the plot again
  const next = await a.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo done > out/next.txt' } });
  assert.deepEqual(next.structuredContent.artifacts.map((x) => x.name), ['out/next.txt']);
  assert.deepEqual(next.content.map((c) => c.type), ['text', 'resource']);
});

let sessionWorkspace;
await check('workspace tools write, list and read the session workspace', async () => {
  const wrote = await a.callTool({ name: 'write_workspace_file',
    arguments: { path: 'notes/todo.md', content: '- plot more\n' } });
  assert.equal(wrote.isError, false, text(wrote));
  const listed = await a.callTool({ name: 'list_workspace_files', arguments: {} });
  assert.equal(listed.isError, false, text(listed));
  const paths = listed.structuredContent.files.map((f) => f.path);
  assert.deepEqual(paths, ['data.csv', 'notes/todo.md', 'out/next.txt', 'out/plot.png', 'out/summary.txt']);
  sessionWorkspace = listed.structuredContent.workspace.name;
  const read = await a.callTool({ name: 'read_workspace_file', arguments: { path: 'notes/todo.md' } });
  assert.equal(read.isError, false, text(read));
  assert.equal(read.content[0].resource.text, '- plot more\n');
  const image = await a.callTool({ name: 'read_workspace_file', arguments: { path: 'out/plot.png' } });
  assert.equal(image.content[0].type, 'image');
  const used = await a.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'cat notes/todo.md' } });
  assert.equal(used.structuredContent.stdout, '- plot more\n');
  const escape = await a.callTool({ name: 'write_workspace_file', arguments: { path: '../escape', content: 'x' } });
  assert.equal(escape.isError, true);
  assert.match(text(escape), /'\.\.'/);
});

await check('another session starts with an empty workspace of its own', async () => {
  const other = await connect(keyA);
  const result = await other.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'ls -A | wc -l' } });
  assert.equal(result.structuredContent.stdout.trim(), '0');
  // it may still name the first session's workspace, which belongs to the same tenant
  const named = await other.callTool({ name: 'run_code',
    arguments: { language: 'bash', code: 'cat data.csv | wc -l', workspace: sessionWorkspace } });
  assert.equal(named.structuredContent.stdout.trim(), '3');
  await other.close();
});

await check("another tenant cannot reach the session's workspace", async () => {
  const b = await connect(keyB);
  for (const [name, args] of [
    ['read_workspace_file', { path: 'data.csv', workspace: sessionWorkspace }],
    ['list_workspace_files', { workspace: sessionWorkspace }],
    ['run_code', { language: 'bash', code: 'cat data.csv', workspace: sessionWorkspace }],
  ]) {
    const result = await b.callTool({ name, arguments: args });
    assert.equal(result.isError, true, name);
    assert.match(text(result), /^no workspace /, name);
  }
  await b.close();
});

await a.close();
console.log('all workspace checks passed');

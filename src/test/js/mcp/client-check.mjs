// Drives a running nix-exec with the official MCP TypeScript SDK client, the way an agent does.
// Usage: node client-check.mjs <base-url> <transport: streamable|sse> <key-of-tenant-A> <key-of-tenant-B>
// Every check is an assertion; the exit code is 0 only when all held. McpSdkClientIT runs it.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [baseUrl, transportName, keyA, keyB] = process.argv.slice(2);

function transport(key) {
  const requestInit = key ? { headers: { Authorization: `Bearer ${key}` } } : undefined;
  return transportName === 'sse'
    ? new SSEClientTransport(new URL('/mcp/sse', baseUrl), { requestInit })
    : new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit });
}

async function connect(key) {
  const client = new Client({ name: 'nix-exec-sdk-check', version: '1.0.0' });
  await client.connect(transport(key));
  return client;
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

function check(name, fn) {
  return fn().then(() => console.log(`ok ${transportName} ${name}`));
}

const a = await connect(keyA);
const logs = [];
a.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await a.setLoggingLevel('info');

await check('tools are listed with a language enum, hints and output schemas', async () => {
  const { tools } = await a.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ['cancel_job', 'create_session', 'destroy_session', 'exec_in_session', 'get_job', 'list_jobs', 'list_languages',
      'list_profiles', 'list_sessions', 'list_workspace_files', 'read_workspace_file', 'run_code', 'search_packages',
      'submit_job', 'write_workspace_file']);
  const runCode = tools.find((t) => t.name === 'run_code');
  assert.deepEqual(runCode.inputSchema.properties.language.enum,
    ['python', 'bash', 'node', 'haskell', 'lua', 'ruby', 'perl', 'octave']);
  assert.match(runCode.inputSchema.properties.packages.description, /python3Packages\.numpy/);
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = runCode.annotations;
  assert.deepEqual([readOnlyHint, destructiveHint, idempotentHint, openWorldHint], [false, true, false, true]);
  assert.equal(tools.find((t) => t.name === 'get_job').annotations.readOnlyHint, true);
  // from here on the SDK checks every structured result against its tool's outputSchema
  assert.deepEqual(runCode.outputSchema.properties.exit_code.type, ['integer', 'null']);
});

await check('python with a package, with progress and log notifications', async () => {
  const progress = [];
  const result = await a.callTool({
    name: 'run_code',
    arguments: { language: 'python', code: 'import tinypkg\nprint(tinypkg.hello())',
      packages: ['python3Packages.tinypkg'] },
  }, undefined, { onprogress: (p) => progress.push(p) });
  assert.equal(result.isError, false, text(result));
  assert.match(text(result), /^Exit code: 0\n--- stdout ---\ntinypkg ok\n--- stderr ---\n/);
  assert.equal(result.structuredContent.status, 'succeeded');
  assert.equal(result.structuredContent.stdout, 'tinypkg ok\n');
  assert.ok(progress.some((p) => /running$/.test(p.message)), JSON.stringify(progress));
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress);
  const jobId = result.structuredContent.id;
  assert.ok(logs.some((l) => l.data.job_id === jobId && l.data.stream === 'stdout'
    && l.data.text.includes('tinypkg ok')), JSON.stringify(logs));
});

await check('bash', async () => {
  const result = await a.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo "$((6 * 7))"' } });
  assert.equal(result.isError, false, text(result));
  assert.match(text(result), /^Exit code: 0\n--- stdout ---\n42\n/);
});

await check('a failing job is an error result with its output', async () => {
  const result = await a.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo oops >&2; exit 3' } });
  assert.equal(result.isError, true);
  assert.match(text(result), /Exit code: 3\n/);
  assert.match(text(result), /--- stderr ---\noops\n---\nJob \S+: failed$/);
  assert.equal(result.structuredContent.status, 'failed');
});

await check('a refused request is a one-line error result', async () => {
  const result = await a.callTool({ name: 'run_code', arguments: { language: 'python', code: 'print(1)',
    packages: ['python3Packages.tinypkg; rm -rf /'] } });
  assert.equal(result.isError, true);
  assert.match(text(result), /^packages/);
  assert.ok(!text(result).includes('\n'), text(result));
});

let sleeperId;
await check('cancelling the call cancels the job', async () => {
  const abort = new AbortController();
  const call = a.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo started; sleep 60' } },
    undefined, {
      signal: abort.signal,
      onprogress: (p) => {
        const m = /^job (\S+) running$/.exec(p.message);
        if (m) {
          sleeperId = m[1];
          abort.abort('the agent gave up');
        }
      },
    });
  await assert.rejects(call);
  assert.ok(sleeperId, 'the job reported running');
  const result = await a.callTool({ name: 'get_job', arguments: { job_id: sleeperId, wait: 10 } });
  assert.equal(result.structuredContent.status, 'cancelled', text(result));
});

await check('a client that goes away does not take the job with it', async () => {
  const leaver = await connect(keyA);
  let jobId;
  let running;
  const started = new Promise((resolve) => { running = resolve; });
  const call = leaver.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'sleep 2; echo survived' } },
    undefined, {
      onprogress: (p) => {
        const m = /^job (\S+) running$/.exec(p.message);
        if (m) {
          jobId = m[1];
          running();
        }
      },
    });
  call.catch(() => {});
  await started;
  await leaver.close();
  const result = await a.callTool({ name: 'get_job', arguments: { job_id: jobId, wait: 30 } });
  assert.equal(result.structuredContent.status, 'succeeded', text(result));
  assert.equal(result.structuredContent.stdout, 'survived\n');
});

const b = await connect(keyB);
await check('another tenant cannot read or cancel the job', async () => {
  for (const name of ['get_job', 'cancel_job']) {
    const result = await b.callTool({ name, arguments: { job_id: sleeperId } });
    assert.equal(result.isError, true);
    assert.equal(text(result), `no job ${sleeperId}`);
  }
  const list = await b.callTool({ name: 'list_jobs', arguments: {} });
  assert.ok(!text(list).includes(sleeperId));
});

await check('no key is refused', async () => {
  await assert.rejects(connect(undefined));
});

await a.close();
await b.close();
console.log(`all ${transportName} checks passed`);

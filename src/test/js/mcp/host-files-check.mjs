// Local single-user mode: nix-exec's run_code `files` (read-only) and `writable_files`
// (read-write), host paths mounted at their own paths, within the allowed prefixes; everything
// else refused in one line with no job made. Usage:
// node host-files-check.mjs <base-url> <allowed-dir> <outside-dir>
// McpRootsIT prepares the directories and checks the host side (what the job wrote, and where not).
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [baseUrl, allowed, outside] = process.argv.slice(2);
const client = new Client({ name: 'nix-exec-host-files-check', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl)));
const text = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const jobCount = async () => {
  const listed = text(await client.callTool({ name: 'list_jobs', arguments: { limit: 100 } }));
  return listed === 'No jobs.' ? 0 : listed.split('\n').length;
};

const input = `${allowed}/data/input.txt`;
const dir = `${allowed}/data/dir`;
const out = `${allowed}/out.txt`;
let result = await client.callTool({ name: 'run_code', arguments: { language: 'bash',
  code: `cat ${input}; ls ${dir}; echo new > ${out}; cat ${out}; `
    + `echo x 2>/dev/null > ${input} || echo read-only; touch ${dir}/y 2>/dev/null || echo read-only dir`,
  files: [input, dir], writable_files: [out] } });
assert.equal(result.isError, false, text(result));
assert.equal(result.structuredContent.stdout, 'from the host\na.txt\nnew\nread-only\nread-only dir\n', text(result));
console.log('ok files are read-only and writable_files read-write, at their own paths');

const before = await jobCount();
const refused = async (args, mentions) => {
  const r = await client.callTool({ name: 'run_code', arguments: { language: 'bash', code: `echo x > ${out}`, ...args } });
  assert.equal(r.isError, true, text(r));
  assert.equal(text(r).split('\n').length, 1, text(r));
  assert.ok(text(r).includes(mentions), `${text(r)} should mention ${mentions}`);
  return text(r);
};
console.log(await refused({ files: [`${outside}/secret.txt`] }, 'is outside nixexec.mcp.roots.allowed-prefixes'));
console.log(await refused({ files: [`${allowed}/link`] }, 'is a symlink or lies under one'));
console.log(await refused({ files: [`${allowed}/data/../data/input.txt`] }, "has a '..' part"));
console.log(await refused({ files: [`${allowed}/missing.txt`] }, 'does not exist'));
console.log(await refused({ files: ['data/input.txt'] }, 'is not an absolute path'));
console.log(await refused({ files: [input], writable_files: [input] }, 'is named twice'));
// a good path beside a bad one: the whole call is refused, the good one not mounted
console.log(await refused({ writable_files: [out, `${outside}/secret.txt`] }, 'writable_files: '));
assert.equal(await jobCount(), before, 'a refused call makes no job');
console.log('ok every bad path is refused in one line, with no job');

await client.close();
console.log('all host files checks passed');

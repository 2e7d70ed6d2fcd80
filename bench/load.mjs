// Load run against a running nix-exec cluster (bench/load.sh starts one and calls this).
// Four tenants: "big" submits its whole share at once over REST (the backlog); three small tenants
// submit at a steady pace over MCP (submit_job, run_code, cancel_job) and REST while that backlog
// is queued. Then it waits for every accepted job, checks each one's event stream holds exactly one
// terminal status and one result, and writes the report.
// Usage: node load.mjs <base-url> <admin-key> <jobs> <report.md>
// Env: LOAD_PIDS="api:123,worker1:456" (RSS sampled once a second), LOAD_SMALL_INTERVAL_MS (250),
//      LOAD_DEADLINE_S (1800).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [baseUrl, adminKey, jobsArg, reportPath] = process.argv.slice(2);
const TOTAL = Number(jobsArg ?? 2000);
const SMALL_INTERVAL_MS = Number(process.env.LOAD_SMALL_INTERVAL_MS ?? 250);
const DEADLINE_MS = Number(process.env.LOAD_DEADLINE_S ?? 1800) * 1000;
const TERMINAL = new Set(['succeeded', 'failed', 'timed_out', 'cancelled', 'error']);
const LANGS = ['python', 'bash', 'node', 'perl', 'lua', 'ruby'];
const SLEEPERS = ['python', 'bash', 'node', 'perl', 'ruby']; // lua has no sleep without busy-waiting
const CODE = {
  ok: { python: 'print(6*7)', bash: 'echo 42', node: 'console.log(6*7)', perl: 'print 6*7, "\\n";',
    lua: 'print(6*7)', ruby: 'puts 6*7' },
  fail: { python: 'import sys\nprint("failing")\nsys.exit(3)', bash: 'echo failing; exit 3',
    node: 'console.log("failing"); process.exit(3)', perl: 'print "failing\\n"; exit 3;',
    lua: 'print("failing") os.exit(3)', ruby: 'puts "failing"; exit 3' },
  sleep: (lang, s) => ({ python: `import time\nprint("sleeping", flush=True)\ntime.sleep(${s})`,
    bash: `echo sleeping; sleep ${s}`, node: `console.log("sleeping"); setTimeout(() => {}, ${s * 1000})`,
    perl: `$| = 1; print "sleeping\\n"; sleep ${s};`, ruby: `$stdout.sync = true; puts "sleeping"; sleep ${s}` })[lang],
};
// What each kind must end as.
const EXPECT = { ok: 'succeeded', pkg: 'succeeded', fail: 'failed', timeout: 'timed_out', cancel: 'cancelled' };

// Deterministic mix (same run, same jobs): 67% ok, 10% with a package, 8% exit 3, 5% time out, 10% cancelled.
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
function jobSpec(i) {
  const r = rand();
  const kind = r < 0.67 ? 'ok' : r < 0.77 ? 'pkg' : r < 0.85 ? 'fail' : r < 0.90 ? 'timeout' : 'cancel';
  const lang = kind === 'pkg' ? 'python' : (kind === 'timeout' || kind === 'cancel')
    ? SLEEPERS[i % SLEEPERS.length] : LANGS[i % LANGS.length];
  const body = { language: lang, metadata: { load_kind: kind, load_index: String(i) } };
  if (kind === 'ok') body.code = CODE.ok[lang];
  if (kind === 'pkg') { body.code = 'import tinypkg\nprint(tinypkg.hello())'; body.packages = ['python3Packages.tinypkg']; }
  if (kind === 'fail') body.code = CODE.fail[lang];
  if (kind === 'timeout') { body.code = CODE.sleep(lang, 5); body.timeout = 1; }
  if (kind === 'cancel') body.code = CODE.sleep(lang, 4);
  return { kind, body };
}

async function http(method, path, key, body, extraHeaders = {}) {
  const res = await fetch(new URL(path, baseUrl), {
    method, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...extraHeaders },
    body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let json; try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, json };
}

// --- memory sampling -------------------------------------------------------------------------
const pids = (process.env.LOAD_PIDS ?? '').split(',').filter(Boolean).map((p) => p.split(':'));
const rss = Object.fromEntries(pids.map(([name]) => [name, []]));
function sampleRss() {
  for (const [name, pid] of pids) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) rss[name].push(Number(m[1]) / 1024);
    } catch { /* process gone */ }
  }
}
sampleRss();
const rssTimer = setInterval(sampleRss, 1000);

// --- tenants -----------------------------------------------------------------------------------
const runTag = Date.now().toString(36);
async function tenant(name) {
  const t = await http('POST', '/v1/admin/tenants', adminKey, { name: `load-${name}-${runTag}` });
  if (t.status !== 201 && t.status !== 200) throw new Error(`tenant ${name}: ${t.status} ${JSON.stringify(t.json)}`);
  const k = await http('POST', `/v1/admin/tenants/${t.json.id}/keys`, adminKey, { role: 'member' });
  if (k.status !== 201 && k.status !== 200) throw new Error(`key ${name}: ${k.status} ${JSON.stringify(k.json)}`);
  return { name, id: t.json.id, key: k.json.key, accepted: new Map(), refused: [] };
}
const big = await tenant('big');
const smalls = [await tenant('small1'), await tenant('small2'), await tenant('small3')];
const tenants = [big, ...smalls];

async function mcpClient(key) {
  const client = new Client({ name: 'nix-exec-load', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl),
    { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}
const mcp = { small1: await mcpClient(smalls[0].key), small3: await mcpClient(smalls[2].key) };
const toolText = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// --- submission --------------------------------------------------------------------------------
const via = { rest: 0, mcp_submit_job: 0, mcp_run_code: 0 };
const submitMs = [];
async function submitRest(t, spec) {
  const started = Date.now();
  const r = await http('POST', '/v1/jobs', t.key, spec.body);
  submitMs.push(Date.now() - started);
  if (r.status !== 201) { t.refused.push(`${r.status} ${JSON.stringify(r.json).slice(0, 200)}`); return; }
  via.rest++;
  t.accepted.set(r.json.id, spec.kind);
  if (spec.kind === 'cancel') {
    const c = await http('POST', `/v1/jobs/${r.json.id}/cancel`, t.key);
    if (c.status !== 202) t.refused.push(`cancel ${r.json.id}: ${c.status}`);
  }
}
function mcpArgs(body) {
  const { metadata, ...args } = body; // MCP tools take no metadata: the kind is kept client-side
  return args;
}
async function submitMcp(t, client, spec) {
  const r = await client.callTool({ name: 'submit_job', arguments: mcpArgs(spec.body) });
  const m = /^Job ([0-9a-f-]{36}):/.exec(toolText(r));
  if (r.isError || !m) { t.refused.push(`mcp ${toolText(r).slice(0, 200)}`); return; }
  via.mcp_submit_job++;
  t.accepted.set(m[1], spec.kind);
  if (spec.kind === 'cancel') {
    const c = await client.callTool({ name: 'cancel_job', arguments: { job_id: m[1] } });
    if (c.isError) t.refused.push(`mcp cancel ${m[1]}: ${toolText(c)}`);
  }
}
async function runCodeMcp(t, client, spec) {
  const r = await client.callTool({ name: 'run_code', arguments: mcpArgs(spec.body) }, undefined,
    { timeout: 120_000 });
  const id = r.structuredContent?.id;
  if (!id) { t.refused.push(`mcp run_code ${toolText(r).slice(0, 200)}`); return; }
  via.mcp_run_code++;
  t.accepted.set(id, spec.kind);
}

const bigCount = Math.round(TOTAL * 0.7);
const smallCount = TOTAL - bigCount;
const specs = Array.from({ length: TOTAL }, (_, i) => jobSpec(i));
const bigSpecs = specs.slice(0, bigCount);
const smallSpecs = [[], [], []];
specs.slice(bigCount).forEach((s, i) => smallSpecs[i % 3].push(s));

const t0 = Date.now();
console.log(`submitting ${TOTAL} jobs: big ${bigCount} at once over REST, small tenants ${smallSpecs.map((s) => s.length).join('/')} every ${SMALL_INTERVAL_MS} ms`);

async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const item = items[next++];
      try { await fn(item); } catch (e) { console.error(`submit: ${e.message}`); }
    }
  }));
}
// The small tenants start once the big backlog is in the queue: their wait is the fairness figure.
await pool(bigSpecs, 6, (s) => submitRest(big, s));
const bigSubmitSeconds = (Date.now() - t0) / 1000;
console.log(`big backlog submitted in ${bigSubmitSeconds.toFixed(1)} s`);
const pending = [];
async function paced(t, list, fn) {
  for (const spec of list) {
    pending.push(fn(spec).catch((e) => t.refused.push(`error ${e.message}`)));
    await new Promise((r) => setTimeout(r, SMALL_INTERVAL_MS));
  }
}
await Promise.all([
  paced(smalls[0], smallSpecs[0], (s) => submitMcp(smalls[0], mcp.small1, s)),
  paced(smalls[1], smallSpecs[1], (s) => submitRest(smalls[1], s)),
  // small3: every 5th job goes through run_code (waits for the result), the rest over REST
  paced(smalls[2], smallSpecs[2], (() => { let n = 0; return (s) => (n++ % 5 === 0 && s.kind !== 'cancel')
    ? runCodeMcp(smalls[2], mcp.small3, s) : submitRest(smalls[2], s); })()),
]);
await Promise.all(pending);
const submitSeconds = (Date.now() - t0) / 1000;
console.log(`all submitted in ${submitSeconds.toFixed(1)} s; waiting for the jobs to end`);

// --- waiting ----------------------------------------------------------------------------------
async function listAll(t) {
  const all = new Map();
  let cursor;
  do {
    const r = await http('GET', `/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, t.key);
    if (r.status !== 200) throw new Error(`list ${t.name}: ${r.status}`);
    for (const j of r.json.items) all.set(j.id, j);
    cursor = r.json.next_cursor;
  } while (cursor);
  return all;
}
let listed;
let lastProgress = 0;
for (;;) {
  listed = new Map();
  for (const t of tenants) for (const [id, j] of await listAll(t)) listed.set(id, { ...j, tenant: t.name });
  const open = [...listed.values()].filter((j) => !TERMINAL.has(j.status)).length;
  if (open === 0 || Date.now() - t0 > DEADLINE_MS) break;
  if (Date.now() - lastProgress > 15_000) {
    console.log(`${((Date.now() - t0) / 1000).toFixed(0)} s: ${open} of ${listed.size} not finished`);
    lastProgress = Date.now();
  }
  await new Promise((r) => setTimeout(r, 3000));
}
const wallSeconds = (Date.now() - t0) / 1000;
clearInterval(rssTimer);
for (const c of Object.values(mcp)) await c.close();

// --- exactly one terminal state, from each job's own event stream -----------------------------
async function terminalEvents(t, id) {
  const res = await fetch(new URL(`/v1/jobs/${id}/events`, baseUrl),
    { headers: { Authorization: `Bearer ${t.key}`, Accept: 'text/event-stream' }, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let terminal = []; let results = 0;
  for (const block of text.split('\n\n')) {
    const event = /^event:\s*(.*)$/m.exec(block)?.[1];
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    if (event === 'status' && TERMINAL.has(data.replace(/"/g, ''))) terminal.push(data.replace(/"/g, ''));
    if (event === 'status' && data.startsWith('{')) {
      try { const s = JSON.parse(data).status; if (TERMINAL.has(s)) terminal.push(s); } catch { /* not JSON */ }
    }
    if (event === 'result') results++;
  }
  return { terminal, results };
}
const problems = [];
const accepted = [];
for (const t of tenants) for (const [id, kind] of t.accepted) accepted.push({ t, id, kind });
await pool(accepted, 4, async ({ t, id, kind }) => {
  const j = listed.get(id);
  if (!j) { problems.push(`${t.name} ${id}: accepted but not listed`); return; }
  j.kind = kind;
  if (!TERMINAL.has(j.status)) { problems.push(`${t.name} ${id}: still ${j.status}`); return; }
  const ev = await terminalEvents(t, id);
  if (ev.terminal.length !== 1 || ev.results !== 1 || ev.terminal[0] !== j.status) {
    problems.push(`${t.name} ${id}: events show terminal statuses [${ev.terminal}] and ${ev.results} results; job says ${j.status}`);
  }
});
const acceptedIds = new Set(accepted.map((a) => a.id));
for (const [id, j] of listed) if (!acceptedIds.has(id)) problems.push(`${j.tenant} ${id}: listed but never accepted`);

// --- figures ----------------------------------------------------------------------------------
const jobs = accepted.map((a) => listed.get(a.id)).filter((j) => j && TERMINAL.has(j.status));
const ms = (a, b) => new Date(b) - new Date(a);
const pct = (xs, p) => { if (!xs.length) return NaN; const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const sec = (x) => (Number.isNaN(x) ? '—' : (x / 1000).toFixed(2));
const byStatus = {};
for (const j of jobs) byStatus[j.status] = (byStatus[j.status] ?? 0) + 1;
const errorCodes = {};
for (const j of jobs.filter((j) => j.status === 'error')) errorCodes[j.error?.code] = (errorCodes[j.error?.code] ?? 0) + 1;
const unexpected = jobs.filter((j) => EXPECT[j.kind] !== j.status);
const unexpectedByKind = {};
for (const j of unexpected) { const k = `${j.kind}→${j.status}${j.error ? `(${j.error.code})` : ''}`; unexpectedByKind[k] = (unexpectedByKind[k] ?? 0) + 1; }

const firstCreated = Math.min(...jobs.map((j) => new Date(j.created_at)));
const lastFinished = Math.max(...jobs.map((j) => new Date(j.finished_at)));
const spanSeconds = (lastFinished - firstCreated) / 1000;
const turnaround = jobs.map((j) => ms(j.created_at, j.finished_at));
const ran = jobs.filter((j) => j.started_at);
const runTurnaround = ran.map((j) => ms(j.created_at, j.finished_at));
const bigJobs = ran.filter((j) => j.tenant === 'big');
const backlogEnd = Math.max(...bigJobs.map((j) => new Date(j.started_at)));
const smallDuringBacklog = ran.filter((j) => j.tenant !== 'big' && new Date(j.created_at) < backlogEnd);
const smallWait = smallDuringBacklog.map((j) => ms(j.created_at, j.started_at));
const bigWait = bigJobs.map((j) => ms(j.created_at, j.started_at));

const lines = [];
const out = (s = '') => lines.push(s);
out(`# Load run ${new Date().toISOString()}`);
out();
out(`Cluster: 1 API process, 2 worker processes (concurrency 2 each), PostgreSQL 15, offline fixture nixpkgs.`);
out(`Submitted ${TOTAL}: big ${bigCount} at once (REST), small1 ${smallSpecs[0].length} (MCP submit_job/cancel_job), small2 ${smallSpecs[1].length} (REST), small3 ${smallSpecs[2].length} (REST + MCP run_code), after the big backlog was in, one small job every ${SMALL_INTERVAL_MS} ms per small tenant.`);
out(`Accepted ${accepted.length} (REST ${via.rest}, MCP submit_job ${via.mcp_submit_job}, MCP run_code ${via.mcp_run_code}); refused ${tenants.reduce((n, t) => n + t.refused.length, 0)}.`);
out();
out(`| figure | value |`);
out(`|---|---|`);
out(`| accepted jobs that reached exactly one terminal state | ${jobs.length - problems.filter((p) => p.includes('events show')).length} of ${accepted.length} |`);
out(`| terminal states | ${Object.entries(byStatus).map(([k, v]) => `${k} ${v}`).join(', ')} |`);
out(`| error codes | ${Object.entries(errorCodes).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} |`);
out(`| ended other than their kind expects | ${Object.entries(unexpectedByKind).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'} |`);
out(`| REST submit request (POST /v1/jobs): p50 / p95 / p99 | ${pct(submitMs, 50)} / ${pct(submitMs, 95)} / ${pct(submitMs, 99)} ms (big backlog of ${bigCount} submitted in ${bigSubmitSeconds.toFixed(1)} s, 6 at a time) |`);
out(`| wall time (first submit → last job finished) | ${spanSeconds.toFixed(1)} s (submission took ${submitSeconds.toFixed(1)} s) |`);
out(`| throughput | ${(jobs.length / spanSeconds).toFixed(2)} jobs/s |`);
out(`| submit→finish, all jobs: p50 / p95 / p99 | ${sec(pct(turnaround, 50))} / ${sec(pct(turnaround, 95))} / ${sec(pct(turnaround, 99))} s |`);
out(`| submit→finish, jobs that ran: p50 / p95 / p99 | ${sec(pct(runTurnaround, 50))} / ${sec(pct(runTurnaround, 95))} / ${sec(pct(runTurnaround, 99))} s |`);
out(`| big tenant's wait (created→started): p50 / p95 / max | ${sec(pct(bigWait, 50))} / ${sec(pct(bigWait, 95))} / ${sec(pct(bigWait, 100))} s (${bigJobs.length} jobs) |`);
out(`| small tenants' wait while big backlog queued: p50 / p95 / max | ${sec(pct(smallWait, 50))} / ${sec(pct(smallWait, 95))} / ${sec(pct(smallWait, 100))} s (${smallDuringBacklog.length} jobs) |`);
for (const [name, xs] of Object.entries(rss)) {
  out(`| RSS ${name}: start / p50 / max / end | ${xs.length ? `${xs[0].toFixed(0)} / ${pct(xs, 50).toFixed(0)} / ${Math.max(...xs).toFixed(0)} / ${xs.at(-1).toFixed(0)} MiB (${xs.length} samples)` : 'no samples'} |`);
}
out();
out(problems.length ? `## Problems (${problems.length})` : `No problems: every accepted job is listed once, terminal, with one terminal status event and one result event; nothing unaccepted appears.`);
for (const p of problems.slice(0, 50)) out(`- ${p}`);
const refusals = tenants.flatMap((t) => t.refused.map((r) => `${t.name}: ${r}`));
if (refusals.length) { out(); out(`## Refused or failed requests (${refusals.length})`); for (const r of refusals.slice(0, 20)) out(`- ${r}`); }
if (unexpected.length) {
  out(); out(`## Jobs that ended other than expected (first 10)`);
  for (const j of unexpected.slice(0, 10)) out(`- ${j.tenant} ${j.id} ${j.kind} ${j.language}: ${j.status} ${j.error ? JSON.stringify(j.error) : ''} exit=${j.exit_code}`);
}
const report = lines.join('\n') + '\n';
console.log('\n' + report);
mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(reportPath, report);
process.exit(problems.length ? 1 : 0);

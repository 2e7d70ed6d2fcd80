// Small REST client for the fault scripts. Commands (all print JSON lines):
//   submit <url> <key> <count> <body-json>     submit count jobs; one line per attempt {ok, id|status}
//   wait <url> <key> <ids-file> <seconds>      wait until every job is terminal; one line per job
//   follow <url> <key> <ids-file> <out-file>   follow each job's events to its result, reconnecting
//                                              with Last-Event-ID whenever the connection breaks;
//                                              then compare the followed output with the stored one
//   events <url> <key> <ids-file>              read each (ended) job's event stream once; one line per job
//                                              {id, terminal: [statuses of terminal status events], results}
import { readFileSync, writeFileSync } from 'node:fs';

const [cmd, baseUrl, key, ...rest] = process.argv.slice(2);
const TERMINAL = new Set(['succeeded', 'failed', 'timed_out', 'cancelled', 'error']);
const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ids = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

async function getJob(id) {
  for (;;) {
    try {
      const res = await fetch(new URL(`/v1/jobs/${id}?wait=20`, baseUrl), { headers, signal: AbortSignal.timeout(30_000) });
      if (res.status === 200) return await res.json();
    } catch { /* API or database away: try again */ }
    await sleep(1000);
  }
}

if (cmd === 'submit') {
  const [count, body] = rest;
  await Promise.all(Array.from({ length: Number(count) }, async () => {
    try {
      const res = await fetch(new URL('/v1/jobs', baseUrl), { method: 'POST', headers, body, signal: AbortSignal.timeout(30_000) });
      const json = await res.json().catch(() => ({}));
      console.log(JSON.stringify(res.status === 201 ? { ok: true, id: json.id } : { ok: false, status: res.status, title: json.title, detail: json.detail }));
    } catch (e) {
      console.log(JSON.stringify({ ok: false, status: 0, detail: e.message }));
    }
  }));
} else if (cmd === 'wait') {
  const [file, seconds] = rest;
  const deadline = Date.now() + Number(seconds) * 1000;
  await Promise.all(ids(file).map(async (id) => {
    let job;
    do { job = await getJob(id); } while (!TERMINAL.has(job.status) && Date.now() < deadline);
    console.log(JSON.stringify({ id, status: job.status, error: job.error?.code ?? null, exit_code: job.exit_code,
      attempt: job.attempt, node_id: job.node_id, created_at: job.created_at, started_at: job.started_at,
      finished_at: job.finished_at, stdout_bytes: job.stdout_bytes, stderr: job.stderr?.slice(0, 300) }));
  }));
} else if (cmd === 'follow') {
  const [file, outFile] = rest;
  const results = await Promise.all(ids(file).map(async (id) => {
    let last = 0; let reconnects = 0; let stdout = ''; const seqs = []; let result;
    while (!result) {
      try {
        const res = await fetch(new URL(`/v1/jobs/${id}/events`, baseUrl), {
          headers: { ...headers, Accept: 'text/event-stream', ...(last ? { 'Last-Event-ID': String(last) } : {}) },
        });
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        const decoder = new TextDecoder();
        let buf = '';
        for await (const chunk of res.body) {
          buf += decoder.decode(chunk, { stream: true });
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, cut); buf = buf.slice(cut + 2);
            const seq = Number(/^id:\s*(\d+)/m.exec(block)?.[1]);
            const event = /^event:\s*(.*)$/m.exec(block)?.[1];
            const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
            if (!seq) continue;
            seqs.push(seq); last = seq;
            if (event === 'stdout') stdout += data;
            if (event === 'result') result = JSON.parse(data);
          }
        }
        if (!result) throw new Error('stream ended before the result');
      } catch {
        reconnects++;
        await sleep(500);
      }
    }
    const gaps = seqs.filter((s, i) => i > 0 && s !== seqs[i - 1] + 1).length;
    const duplicates = seqs.length - new Set(seqs).size;
    return { id, status: result.status, reconnects, events: seqs.length, gaps, duplicates,
      followed_stdout_bytes: Buffer.byteLength(stdout), stored_stdout_bytes: Buffer.byteLength(result.stdout ?? ''),
      same_output: stdout.replace(/\n/g, '') === (result.stdout ?? '').replace(/\n/g, '') };
  }));
  writeFileSync(outFile, results.map((r) => JSON.stringify(r)).join('\n') + '\n');
  for (const r of results) console.log(JSON.stringify(r));
} else if (cmd === 'events') {
  // as bench/load.mjs counts them: a status event's data is the status (or an object holding it)
  const [file] = rest;
  const list = ids(file);
  for (let i = 0; i < list.length; i += 8) {
    await Promise.all(list.slice(i, i + 8).map(async (id) => {
      try {
        const res = await fetch(new URL(`/v1/jobs/${id}/events`, baseUrl),
          { headers: { ...headers, Accept: 'text/event-stream' }, signal: AbortSignal.timeout(30_000) });
        const text = await res.text();
        const terminal = []; let results = 0;
        for (const block of text.split('\n\n')) {
          const event = /^event:\s*(.*)$/m.exec(block)?.[1];
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (event === 'status' && TERMINAL.has(data.replace(/"/g, ''))) terminal.push(data.replace(/"/g, ''));
          if (event === 'status' && data.startsWith('{')) {
            try { const st = JSON.parse(data).status; if (TERMINAL.has(st)) terminal.push(st); } catch { /* not JSON */ }
          }
          if (event === 'result') results++;
        }
        console.log(JSON.stringify({ id, http: res.status, terminal, results }));
      } catch (e) {
        console.log(JSON.stringify({ id, http: 0, terminal: [], results: 0, detail: e.message }));
      }
    }));
  }
} else {
  console.error('usage: jobs.mjs submit|wait|follow|events <url> <key> ...');
  process.exit(2);
}

// The audit UI's only script: follows a running job's events. It never sees the API key: the
// browser sends the HttpOnly session cookie with the EventSource request. Output is added as text
// nodes, never as HTML, because the job's output is written by whoever submitted the code.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const live = document.getElementById('live');
  if (!live) {
    return;
  }
  const status = document.getElementById('live-status');
  const jobStatus = document.getElementById('job-status');
  const source = new EventSource(live.dataset.events);
  const append = (text, stream) => {
    const span = document.createElement('span');
    span.className = stream;
    span.textContent = text;
    live.appendChild(span);
    live.scrollTop = live.scrollHeight;
  };
  source.onopen = () => { status.textContent = 'following'; };
  source.addEventListener('stdout', e => append(e.data, 'stdout'));
  source.addEventListener('stderr', e => append(e.data, 'stderr'));
  source.addEventListener('status', e => {
    jobStatus.textContent = e.data;
    jobStatus.className = 'status s-' + e.data;
  });
  source.addEventListener('result', () => {
    source.close();
    status.textContent = 'finished; loading the result…';
    window.setTimeout(() => window.location.reload(), 300);
  });
  source.onerror = () => { status.textContent = 'reconnecting…'; };
});

// The shell player: replays an asciicast v2 recording (fetched from this site with the session
// cookie) into a <pre> as text, never as HTML: a recording is what a shell printed and what
// someone typed. It draws what a plain terminal would: lines, carriage returns, backspaces, and
// the cursor moves and erases shells use most; other escape sequences are dropped. Pauses longer
// than two seconds are shortened to two, as asciinema's idle limit does.
const IDLE_LIMIT = 2;

const parseCast = text => {
  const lines = text.split('\n').filter(l => l.trim() !== '');
  const header = JSON.parse(lines[0]);
  const events = lines.slice(1).map(l => JSON.parse(l));
  return { header, events };
};

class Screen {
  constructor() { this.rows = ['']; this.row = 0; this.col = 0; }
  put(ch) {
    const line = this.rows[this.row];
    const padded = line.length < this.col ? line + ' '.repeat(this.col - line.length) : line;
    this.rows[this.row] = padded.slice(0, this.col) + ch + padded.slice(this.col + 1);
    this.col++;
  }
  newline() { this.row++; if (this.row >= this.rows.length) { this.rows.push(''); } }
  csi(params, final) {
    const n = parseInt(params || '1', 10) || 1;
    const line = this.rows[this.row];
    if (final === 'K') { this.rows[this.row] = params === '2' ? '' : params === '1' ? ' '.repeat(this.col) + line.slice(this.col) : line.slice(0, this.col); }
    else if (final === 'D') { this.col = Math.max(0, this.col - n); }
    else if (final === 'C') { this.col += n; }
    else if (final === 'G') { this.col = n - 1; }
    else if (final === 'J' && params === '2') { this.rows = ['']; this.row = 0; this.col = 0; }
    else if (final === 'P') { this.rows[this.row] = line.slice(0, this.col) + line.slice(this.col + n); }
  }
  write(text) {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch === '\x1b') {
        const csi = /^\x1b\[([0-9;?]*)([@-~])/.exec(text.slice(i));
        const osc = /^\x1b\][^\x07\x1b]*(\x07|\x1b\\)/.exec(text.slice(i));
        if (csi) { this.csi(csi[1], csi[2]); i += csi[0].length - 1; }
        else if (osc) { i += osc[0].length - 1; }
        else { i += 1; }
      } else if (ch === '\n') { this.newline(); this.col = 0; }
      else if (ch === '\r') { this.col = 0; }
      else if (ch === '\b') { this.col = Math.max(0, this.col - 1); }
      else if (ch === '\x07' || ch < ' ') { /* bell and other controls: nothing to draw */ }
      else { this.put(ch); }
    }
  }
  text() { return this.rows.join('\n'); }
}

// What was typed, readable: control keys by name rather than invisible.
const typed = data => data.replace(/\r/g, '⏎\n').replace(/\x7f/g, '⌫').replace(/\t/g, '⇥')
  .replace(/\x1b\[[A-D]/g, m => ({ A: '↑', B: '↓', C: '→', D: '←' })[m[2]])
  .replace(/[\x00-\x08\x0b-\x1f]/g, c => '^' + String.fromCharCode(c.charCodeAt(0) + 64));

document.addEventListener('DOMContentLoaded', async () => {
  const player = document.getElementById('player');
  if (!player) {
    return;
  }
  const screen = document.getElementById('player-screen');
  const input = document.getElementById('player-input');
  const clock = document.getElementById('player-clock');
  const play = document.getElementById('player-play');
  const speed = document.getElementById('player-speed');
  const response = await fetch(player.dataset.cast, { credentials: 'same-origin' });
  const { events } = parseCast(await response.text());
  let at = 0; let shown = new Screen(); let typedText = ''; let timer = null; let clockAt = 0;
  const draw = () => {
    screen.textContent = shown.text();
    input.textContent = typedText;
    clock.textContent = clockAt.toFixed(1) + ' s · event ' + at + ' of ' + events.length;
    screen.scrollTop = screen.scrollHeight;
  };
  const step = () => {
    const [time, type, data] = events[at];
    if (type === 'o') { shown.write(data); } else if (type === 'i') { typedText += typed(data); }
    clockAt = time; at++;
  };
  const pause = () => { window.clearTimeout(timer); timer = null; play.textContent = at < events.length ? 'Play' : 'Replay'; player.dataset.state = at < events.length ? 'paused' : 'ended'; };
  const next = () => {
    if (at >= events.length) { pause(); draw(); return; }
    step(); draw();
    const wait = at < events.length ? Math.min(events[at][0] - clockAt, IDLE_LIMIT) : 0;
    timer = window.setTimeout(next, Math.max(0, wait) * 1000 / Number(speed.value));
  };
  play.addEventListener('click', () => {
    if (timer) { pause(); return; }
    if (at >= events.length) { at = 0; shown = new Screen(); typedText = ''; clockAt = 0; }
    play.textContent = 'Pause'; player.dataset.state = 'playing'; next();
  });
  document.getElementById('player-end').addEventListener('click', () => {
    window.clearTimeout(timer); timer = null;
    while (at < events.length) { step(); }
    draw(); pause();
  });
  player.dataset.state = 'ready';
  draw();
});

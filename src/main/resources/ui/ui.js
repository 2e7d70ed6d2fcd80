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

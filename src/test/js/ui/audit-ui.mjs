// Drives the audit UI in headless Chromium, as AuditUiBrowserIT asks:
//   node audit-ui.mjs <baseUrl> <key> <finishedJobId> <memberKey> <screenshotDir>
// Signs in, submits a 12-second job with the member key (through the REST API, not the browser) and
// follows its live output to its end, filters the list, opens the finished
// job (which printed a <script> tag) and checks it shows as text, draws the fleet page, and saves
// screenshots. Exit code 0 and a last line "OK" mean every check passed.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const [baseUrl, key, finishedId, memberKey, shots] = process.argv.slice(2);
if (!shots) {
  console.error('usage: audit-ui.mjs <baseUrl> <key> <finishedJobId> <memberKey> <screenshotDir>');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

function check(condition, message) {
  if (!condition) {
    throw new Error('check failed: ' + message);
  }
  console.log('ok - ' + message);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
});
let page;
try {
  const context = await browser.newContext();
  page = await context.newPage();
  const dialogs = [];
  page.on('dialog', async d => { dialogs.push(d.message()); await d.dismiss(); });
  const consoleErrors = [];
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(m.text()); });

  // sign in
  await page.goto(baseUrl + '/ui/jobs');
  check(page.url().endsWith('/ui/login'), 'an anonymous visit goes to the sign-in page');
  await page.fill('input[name=key]', key);
  await Promise.all([page.waitForURL('**/ui/jobs'), page.click('button[type=submit]')]);
  check(await page.isVisible('#job-list'), 'signed in, the job list shows');
  check(!page.url().includes(key), 'the key is not in the URL');
  const scriptCookies = await page.evaluate(() => document.cookie);
  check(!scriptCookies.includes('nx_ui_session'), 'the session cookie is not readable by scripts');
  const stored = await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
  check(!stored.includes(key), 'the key is not in local or session storage');
  const cookies = await context.cookies();
  const session = cookies.find(c => c.name === 'nx_ui_session');
  check(session && session.httpOnly && session.sameSite === 'Strict' && session.value !== key,
    'the session cookie is HttpOnly, SameSite=Strict and not the key');

  // follow a running job, submitted only now that the browser is up (its start can take longer than the job)
  const submitted = await fetch(baseUrl + '/v1/jobs', {
    method: 'POST',
    headers: { 'Authorization': 'Bearer ' + memberKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ language: 'bash', code: 'for i in $(seq 1 12); do echo tick $i; sleep 1; done; echo done' }),
  });
  check(submitted.status === 201, 'a 12-second job is submitted');
  const runningId = (await submitted.json()).id;
  await page.goto(baseUrl + '/ui/jobs/' + runningId);
  check(await page.isVisible('#live'), 'a running job has a live output view');
  await page.waitForFunction(() => document.getElementById('live')?.textContent.includes('tick 2'), null, { timeout: 30000 });
  check(true, 'live output arrives while the job runs');
  await page.screenshot({ path: shots + '/job-live.png', fullPage: true });
  await page.waitForFunction(() => document.getElementById('job-status')?.textContent === 'succeeded'
      && !document.getElementById('live') && document.getElementById('stdout')?.textContent.includes('done'),
    null, { timeout: 60000 });
  check(true, 'when the job ends the page shows its result');

  // filter the list
  await page.goto(baseUrl + '/ui/jobs');
  await page.selectOption('select[name=status]', 'failed');
  await page.selectOption('select[name=language]', 'bash');
  await Promise.all([page.waitForURL(/status=failed/), page.click('#filters button[type=submit]')]);
  const listed = await page.textContent('#job-list');
  check(listed.includes(finishedId), 'the status and language filter finds the failed job');
  check(!listed.includes(runningId), 'and leaves the succeeded one out');
  check(page.url().includes('language=bash'), 'the filter is in the URL (bookmarkable)');

  // open the finished job: its output is attacker-controlled
  await Promise.all([page.waitForURL('**/ui/jobs/' + finishedId), page.click(`a[href="/ui/jobs/${finishedId}"]`)]);
  const stdout = await page.textContent('#stdout');
  check(stdout.includes('<script>alert("pwned")</script>'), 'a printed <script> tag shows as text');
  check(await page.locator('#stdout script, #code script').count() === 0, 'and is not an element');
  check((await page.textContent('#code')).includes('<script>'), 'the code shows as text too');
  check(await page.isVisible('#audit-trail'), 'the audit trail shows');
  check((await page.textContent('#audit-trail')).includes('finished'), 'with the job\'s end');
  await page.screenshot({ path: shots + '/job.png', fullPage: true });

  // fleet
  await page.goto(baseUrl + '/ui/fleet');
  check(await page.locator('figure.chart svg').count() === 3, 'the fleet page draws three charts');
  check(await page.locator('svg rect.c-succeeded').count() > 0, 'finished jobs appear as bars');
  await page.screenshot({ path: shots + '/fleet.png', fullPage: true });

  check(dialogs.length === 0, 'no script from job output ran (no dialogs: ' + dialogs.join(', ') + ')');
  check(consoleErrors.length === 0, 'no console errors (' + consoleErrors.join(' | ') + ')');
  console.log('OK');
} catch (e) {
  console.error(e.stack || String(e));
  if (page) {
    await page.screenshot({ path: shots + '/failure.png', fullPage: true }).catch(() => {});
  }
  process.exitCode = 1;
} finally {
  await browser.close();
}

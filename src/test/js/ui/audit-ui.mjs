// Drives the audit UI in headless Chromium, as AuditUiBrowserTest asks:
//   node audit-ui.mjs <baseUrl> <key> <finishedJobId> <memberKey> <screenshotDir> <operatorKey> <artifactJobId> <word>
//     <deliveredJobId> <memoryKilledJobId> <sessionId> <otherTenantsRunningJobId>
// Signs in, submits a 12-second job with the member key (through the REST API, not the browser) and
// follows its live output to its end, filters the list, opens the finished
// job (which printed a <script> tag) and checks it shows as text, draws the fleet page, and saves
// screenshots. Then: searches by a word and by metadata (a <script> search term stays text), reads a
// job's artifacts (the PNG drawn, the text named .png not), opens the audit log page (a webhook
// delivery listed, filtered to by kind, its job a link that opens it), downloads the
// CSV and JSON exports, and as the operator sees both tenants' jobs and narrows to one. Then the
// audit review: keys by name and role, a memory kill's limits beside its usage, a session's page
// (its build marked, its commands linked), a shell's recording replayed by the UI's own player, the
// audit log worded for people, and the operator's fleet page across tenants with its tenant filter.
// Exit code 0 and a last line "OK" mean every check passed.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const [baseUrl, key, finishedId, memberKey, shots, operatorKey, artifactId, word, deliveredId, killedId, sessionId,
  runningId2] = process.argv.slice(2);
if (!runningId2) {
  console.error('usage: audit-ui.mjs <baseUrl> <key> <finishedJobId> <memberKey> <screenshotDir> <operatorKey> <artifactJobId> <word> <deliveredJobId> <memoryKilledJobId> <sessionId> <otherTenantsRunningJobId>');
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

  // search: a word of the code, then metadata; a hostile search term stays text
  await page.goto(baseUrl + '/ui/jobs');
  await page.fill('input[name=q]', word);
  await Promise.all([page.waitForURL(/q=/), page.click('#filters button[type=submit]')]);
  let found = await page.textContent('#job-list');
  check(found.includes(artifactId) && !found.includes(finishedId)
    && (await page.locator('#job-list tbody tr').count()) === 1,
    'full-text search finds the job by a word of its code, not the other tenant\'s with the same word');
  await page.fill('input[name=q]', '');
  await page.fill('input[name=meta]', 'case=' + word);
  await Promise.all([page.waitForURL(/meta=/), page.click('#filters button[type=submit]')]);
  found = await page.textContent('#job-list');
  check(found.includes(artifactId) && !found.includes(finishedId), 'the metadata filter finds it too');
  check(/[0-9.]+ (ms|s)|min/.test(await page.textContent('#job-list tbody td:nth-child(7)')),
    'run times read as durations (ms, s, min)');
  await page.goto(baseUrl + '/ui/jobs?q=' + encodeURIComponent('"><script>alert("q")</script>'));
  check(await page.inputValue('input[name=q]') === '"><script>alert("q")</script>', 'a <script> search term is shown as typed');
  check(await page.locator('main script').count() === 0, 'and is not an element');

  // export: the same filter, as CSV
  await page.goto(baseUrl + '/ui/jobs?q=' + word);
  const csvHref = await page.getAttribute('#export-csv', 'href');
  check(csvHref.includes('q=' + word), 'the export link carries the filter');
  const csv = await page.evaluate(async href => (await fetch(href)).text(), csvHref);
  check(csv.startsWith('id,tenant,key_id,key_name,key_role,status') && csv.includes(artifactId) && !csv.includes(finishedId),
    'the CSV export holds the filtered jobs');
  const jsonHref = await page.getAttribute('#export-json', 'href');
  const exported = await page.evaluate(async href => (await fetch(href)).json(), jsonHref);
  check(exported.items.length === 1 && exported.items[0].id === artifactId && exported.truncated === false,
    'the JSON export holds them too');

  // artifacts: a PNG by its bytes is drawn, a text file named .png is only a link
  await page.goto(baseUrl + '/ui/jobs/' + artifactId);
  const dot = page.locator(`img[src$="/artifacts/out/dot.png"]`);
  await dot.waitFor();
  // the <img> is there before its picture: await the fetch (it is lazy and need not hold up the page's load)
  await dot.scrollIntoViewIfNeeded();
  await page.waitForFunction(img => img.complete, await dot.elementHandle(), { timeout: 15000 });
  check(await dot.evaluate(img => img.naturalWidth === 1), 'the PNG artifact is drawn on the job page');
  check(await page.locator(`img[src$="/artifacts/out/fake.png"]`).count() === 0, 'a text file named fake.png is not');
  check(await page.locator(`a[href$="/artifacts/out/fake.png"]`).count() === 1, 'but is there to download');
  await page.screenshot({ path: shots + '/artifacts.png', fullPage: true });

  // the audit log page
  await page.goto(baseUrl + '/ui/audit');
  const auditText = await page.textContent('#audit-events');
  check(auditText.includes('ui_signed_in'), 'the audit log page lists sign-ins');
  check(auditText.includes('key_created') && auditText.includes('key_revoked') && auditText.includes('policy_changed'),
    'and key and policy changes');
  await page.selectOption('#audit-filters select[name=kind]', 'ui_signed_in');
  await Promise.all([page.waitForURL(/kind=ui_signed_in/), page.click('#audit-filters button[type=submit]')]);
  const kinds = await page.locator('#audit-events tbody summary').allTextContents();
  check(kinds.length > 0 && kinds.every(k => k === 'ui_signed_in'), 'filtered by kind');
  check(await page.locator('#audit-filters select[name=tenant]').count() === 0, 'no tenant filter for an auditor');
  await page.selectOption('#audit-filters select[name=kind]', 'webhook_delivery');
  await Promise.all([page.waitForURL(/kind=webhook_delivery/), page.click('#audit-filters button[type=submit]')]);
  const deliveryKinds = await page.locator('#audit-events tbody summary').allTextContents();
  check(deliveryKinds.length > 0 && deliveryKinds.every(k => k === 'webhook_delivery'), 'the webhook deliveries, by kind');
  const deliveryLink = page.locator(`#audit-events a[href="/ui/jobs/${deliveredId}"]`);
  check(await deliveryLink.count() > 0, 'a delivery links its job');
  await Promise.all([page.waitForURL(`**/ui/jobs/${deliveredId}`), deliveryLink.first().click()]);
  check((await page.textContent('#audit-trail')).includes('webhook_delivery'), 'the delivered job\'s page, its delivery in its trail');

  // keys by name and role: the header, the list, a job's page
  check((await page.textContent('#who')).includes('alice-review (auditor)'), 'the header names the signed-in key and its role');
  await page.goto(baseUrl + '/ui/jobs');
  check((await page.locator('#job-list tbody td:nth-child(2)').allTextContents()).includes('ci-bot (member)'),
    'the job list names each job\'s key and role');
  await page.screenshot({ path: shots + '/jobs.png', fullPage: true });

  // a memory kill: the memory asked for beside the peak used
  await page.goto(baseUrl + '/ui/jobs/' + killedId);
  const memoryRow = await page.textContent('#limits tr.hit');
  check(memoryRow.includes('Memory') && memoryRow.includes('64.0 MiB') && memoryRow.includes('reached'),
    'a memory kill shows the 64 MiB asked for, marked as reached: ' + memoryRow.replace(/\s+/g, ' '));
  check((await page.textContent('#stdout')).includes('allocating'), 'and what it printed before the kill');
  await page.screenshot({ path: shots + '/job-limits.png', fullPage: true });

  // the session's page: its build marked as a build, its command linked to it, its shell
  await page.goto(baseUrl + '/ui/sessions/' + sessionId);
  const commands = page.locator('#session-commands tbody tr');
  check(await commands.count() === 2, 'the session lists its build and its command');
  check((await page.textContent('#session-commands')).includes('environment build'), 'the build is marked as a build');
  const command = commands.filter({ hasNotText: 'environment build' }).locator('a').first();
  const shellLink = page.locator('#session-shells a', { hasText: 'Replay' });
  check(await shellLink.count() === 1, 'the session lists its shell');
  await page.screenshot({ path: shots + '/session.png', fullPage: true });
  await Promise.all([page.waitForURL(/\/ui\/jobs\//), command.click()]);
  check(await page.locator(`#session-link a[href="/ui/sessions/${sessionId}"]`).count() === 1, 'a command links its session');
  await page.goto(baseUrl + '/ui/sessions/' + sessionId);
  await Promise.all([page.waitForURL(/\/ui\/shells\//), shellLink.click()]);
  await page.waitForFunction(() => document.getElementById('player')?.dataset.state === 'ready');
  await page.click('#player-play');
  await page.waitForFunction(() => document.getElementById('player')?.dataset.state === 'ended', null, { timeout: 60000 });
  const screenText = await page.textContent('#player-screen');
  check(screenText.includes('answer-42') && screenText.includes('Hello, world!'), 'the replay shows what the shell showed');
  check((await page.textContent('#player-input')).includes("printf 'typed in a shell"), 'and what was typed');
  check(await page.locator('#player-screen *').count() === 0, 'as text, never as elements');
  await page.screenshot({ path: shots + '/shell.png', fullPage: true });

  // the audit log, worded: who, what, which object
  await page.goto(baseUrl + '/ui/audit');
  const shellEnded = page.locator('#audit-events tr.k-shell_ended').first();
  check((await shellEnded.textContent()).includes('ci-bot (member)') && (await shellEnded.textContent()).includes('closed a shell'),
    'the audit log says who closed a shell');
  check(await shellEnded.locator('a[href^="/ui/shells/"]').count() === 1, 'and links its recording');
  const keyMade = page.locator('#audit-events tr.k-key_created').first();
  check((await keyMade.locator('td.what').textContent()).includes('created a key')
    && await keyMade.locator('a[href^="/ui/jobs?key="]').count() === 1, 'a key made links to that key\'s jobs');
  await page.screenshot({ path: shots + '/audit.png', fullPage: true });

  // the operator, in a fresh browser context: every tenant, then one
  const opContext = await browser.newContext();
  const op = await opContext.newPage();
  op.on('dialog', async d => { dialogs.push(d.message()); await d.dismiss(); });
  await op.goto(baseUrl + '/ui/login');
  await op.fill('input[name=key]', operatorKey);
  await Promise.all([op.waitForURL('**/ui/jobs'), op.click('button[type=submit]')]);
  await op.goto(baseUrl + '/ui/jobs?q=' + word);
  const everyTenant = await op.textContent('#job-list');
  check(everyTenant.includes(artifactId) && (await op.locator('#job-list tbody tr').count()) === 2,
    'the operator sees the matching jobs of both tenants');
  const tenantOptions = await op.locator('#filters select[name=tenant] option').count();
  check(tenantOptions > 2, 'and has a tenant filter');
  const ownTenant = await op.locator('#job-list tbody tr', { hasText: artifactId }).locator('td:nth-child(2)').textContent();
  await op.selectOption('#filters select[name=tenant]', { label: ownTenant.trim() });
  await Promise.all([op.waitForURL(/tenant=/), op.click('#filters button[type=submit]')]);
  check((await op.locator('#job-list tbody tr').count()) === 1
    && (await op.textContent('#job-list')).includes(artifactId), 'narrowed to one tenant');
  await op.click(`a[href*="/ui/jobs/${artifactId}?tenant="]`);
  await op.waitForURL(`**/ui/jobs/${artifactId}?tenant=*`);
  check((await op.textContent('#code')).includes(word), 'the operator opens another tenant\'s job');
  await op.screenshot({ path: shots + '/operator.png', fullPage: true });

  // the operator's fleet page: every tenant's running work, then narrowed to one tenant
  await op.goto(baseUrl + '/ui/fleet');
  check((await op.textContent('#running')).includes(runningId2), 'the operator\'s fleet page shows another tenant\'s running job');
  check((await op.textContent('#fleet-scope')).includes('Every tenant'), 'for every tenant');
  await op.screenshot({ path: shots + '/fleet-operator.png', fullPage: true });
  await op.selectOption('#fleet-filter select[name=tenant]', { label: ownTenant.trim() });
  await Promise.all([op.waitForURL(/fleet\?tenant=/), op.click('#fleet-filter button[type=submit]')]);
  check(!(await op.textContent('#running')).includes(runningId2), 'narrowed to the auditor\'s tenant, the other tenant\'s job is gone');
  await opContext.close();

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

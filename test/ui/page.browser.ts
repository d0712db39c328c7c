/**
 * The page of `handoff ui` in a real headless Chromium: Debian's `chromium` (/usr/bin/chromium) driven by
 * playwright-core, against the real `handoff ui` process (run `npm run build` first; `npm run test:browser` does).
 * Without the browser the suite fails and names what to install. HANDOFF_UI_SCREENSHOT=FILE also writes the chain
 * page's picture there (docs/ui-chain.png is made so).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, tempHome } from '../helpers/cli.js';
import {
  CONTENT,
  GOAL,
  HOSTILE_GOAL,
  RISK,
  WORKSPACE,
  seed,
  startUi,
  type Seeded,
  type UiProcess,
} from '../helpers/ui.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let seeded: Seeded;
let ui: UiProcess;
let context: BrowserContext;
/** Every dialog (alert, confirm, prompt) any page opened: a script an agent wrote that ran would open one. */
const dialogs: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get update && apt-get install -y chromium) to run the page's tests`,
    );
  }
  seeded = seed(tempHome());
  ui = await startUi(seeded.home);
  // A fresh profile for every run (the persistent context is how playwright takes --user-data-dir).
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'handoff-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1200, height: 900 },
  });
  context.on('page', (p) => p.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message()))));
});

afterAll(async () => {
  await context?.close();
  if (ui !== undefined) {
    ui.child.kill('SIGTERM');
    expect((await ui.ended).code).toBe(0);
  }
});

/** A fresh tab at `hash` of the page, once the page says it has drawn it. */
async function open(hash: string): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (d) => void d.dismiss().then(() => dialogs.push(d.message())));
  await page.goto(`${ui.url}#${hash}`);
  await page.waitForSelector(`body[data-ready="${hash}"]`);
  return page;
}

describe('handoff ui in Chromium', () => {
  it("lists the workspace's chains newest first with their marks", async () => {
    const page = await open('/');
    expect(await page.textContent('#workspace')).toBe(WORKSPACE);
    const rows = page.locator('#chains tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-contract')))).toEqual([
      seeded.requester,
      seeded.hostile,
      seeded.next,
    ]);
    const continued = page.locator(`tr[data-contract="${seeded.next}"]`);
    expect(await continued.locator('a.goal').textContent()).toBe(GOAL);
    expect(await continued.locator('td').nth(2).textContent()).toBe('2');
    expect(await page.locator(`tr[data-contract="${seeded.hostile}"] .badge`).allTextContents()).toEqual([
      'DISPATCHED',
      'running',
      'cut: never_finalized',
    ]);
    await page.close();
  });

  it("shows a chain as a timeline with each link's merge patch and its receipt", async () => {
    const page = await open('/');
    await page.click(`tr[data-contract="${seeded.next}"] a.goal`);
    await page.waitForSelector(`body[data-ready="/chain/${seeded.next}"]`);
    expect(await page.textContent('#chain-goal')).toBe(GOAL);
    const links = page.locator('#timeline > li');
    expect(await links.count()).toBe(2);
    const cli = run(seeded.home, ['contract', 'chain', '--contract-id', seeded.next, '--diff', '--json']).json;
    for (const i of [0, 1]) {
      const shown = await links.nth(i).locator('details.diff pre').textContent();
      expect(JSON.parse(shown!)).toEqual(cli.steps[i].patch);
    }
    expect(cli.steps[1].patch).toMatchObject({ report_prose: 'second turn' });
    const receipt = page.locator('#receipts .receipt');
    expect(await receipt.count()).toBe(1);
    expect(await receipt.locator('.badge').allTextContents()).toEqual(['pass', 'freshness unknown']);
    expect(await receipt.locator('pre.tail').textContent()).toBe('3 tests passed\n');
    if (process.env.HANDOFF_UI_SCREENSHOT)
      await page.screenshot({ path: process.env.HANDOFF_UI_SCREENSHOT, fullPage: true });
    await page.close();
  });

  it('shows a hostile goal and prose as the characters they are: no element made, no script run', async () => {
    const page = await open(`/chain/${seeded.hostile}`);
    expect(await page.textContent('#chain-goal')).toBe(HOSTILE_GOAL);
    expect(await page.locator('#timeline p.goal').textContent()).toBe(HOSTILE_GOAL);
    expect(await page.locator('#timeline details.diff pre').textContent()).toContain(JSON.stringify(HOSTILE_GOAL));
    const list = await open('/');
    expect(await list.locator(`tr[data-contract="${seeded.hostile}"] a.goal`).textContent()).toBe(HOSTILE_GOAL);
    for (const p of [page, list]) expect(await p.locator('img').count()).toBe(0);
    // The CSP holds too: an inline script put into the page does not run.
    // An inline script runs as it is inserted, if it runs at all. (Browser code as text: no DOM types here.)
    const ran = await page.evaluate(
      "(() => { const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.body.append(s); return window.inlineRan === true; })()",
    );
    expect(ran).toBe(false);
    expect(dialogs).toEqual([]);
    await page.close();
    await list.close();
  });

  it('refuses a request without the token (403), from the address bar and from the page', async () => {
    const page = await context.newPage();
    const origin = new URL(ui.url).origin;
    const bare = await page.goto(`${origin}/`);
    expect(bare?.status()).toBe(403);
    const api = await page.goto(`${origin}/api/approvals`);
    expect(api?.status()).toBe(403);
    const fromPage = await open('/');
    const status = await fromPage.evaluate(
      async (o) =>
        (await fetch(`${o}/api/approvals/P-00000000000000000000000000000000/decide`, { method: 'POST' })).status,
      origin,
    );
    expect(status).toBe(403);
    await page.close();
    await fromPage.close();
  });

  it('approves from the page, asking the name once, and `approval list` shows the decision', async () => {
    const page = await open('/approvals');
    const card = page.locator(`[data-approval="${seeded.approvalId}"]`);
    expect(await card.locator('pre.content').textContent()).toBe(CONTENT);
    expect(await card.locator('dd.risk').textContent()).toBe(RISK);
    expect(await card.locator(`a[href="#/chain/${seeded.requester}"]`).count()).toBe(1);
    const pending = () =>
      run(seeded.home, ['approval', 'list', '--status', 'pending', '--json'], {
        env: { HANDOFF_WORKSPACE: WORKSPACE },
      }).json.approvals.map((a: any) => a.id);
    expect(pending()).toEqual([seeded.approvalId]);
    await card.locator('input.note').fill('ok to ship');
    await card.locator('button.approve').click();
    await page.fill('#decider-name', 'alice');
    await page.click('#decider button[type="submit"]');
    await card.locator('.result .badge').waitFor();
    expect(await card.locator('.result').textContent()).toBe('approved by alice');
    expect(pending()).toEqual([]);
    const approved = run(seeded.home, ['approval', 'list', '--status', 'approved', '--json']).json.approvals;
    expect(approved).toEqual([
      expect.objectContaining({ id: seeded.approvalId, decided_by: 'alice', decision_note: 'ok to ship' }),
    ]);
    // Asked once: a second decision in this session goes out without asking again (and is refused by the service).
    await card.locator('button.reject').evaluate((b) => {
      (b as unknown as { disabled: boolean }).disabled = false;
    });
    await card.locator('button.reject').click();
    await card.locator('.result .error').waitFor();
    expect(await page.isHidden('#decider')).toBe(true);
    expect(await card.locator('.result').textContent()).toContain('APPROVAL_TRANSITION_REFUSED');
    await page.close();
  });

  it('shows control and invisible format characters in approval content as <U+XXXX>, as approval show does', async () => {
    const content = 'rm -rf build/ \u202e# harmless\u200b';
    const r = run(seeded.home, ['approval', 'request', '--content', content, '--json'], {
      env: { HANDOFF_WORKSPACE: WORKSPACE },
    });
    const page = await open('/approvals');
    const shown = page.locator(`[data-approval="${r.json.approval_id}"] pre.content`);
    expect(await shown.textContent()).toBe('rm -rf build/ <U+202E># harmless<U+200B>');
    expect(await shown.locator('.cp').count()).toBe(2);
    await page.close();
  });
});

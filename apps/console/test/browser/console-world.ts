import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startOccUp } from '../../../../test-support/occ-up.ts';

/**
 * What the console's browser tests share: a real `occ up` (embedded PGlite, the local
 * ComputeDriver, a port from the OS, its own temporary directories), the administrator's API for
 * arranging things behind the page's back, screenshots at the three widths, and the axe scan.
 */

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
/** Screenshots, one per page and width: test artifacts (gitignored), kept after the run. */
const SCREENSHOT_DIR = join(REPO, 'test-results', 'console');
const WIDTHS = [1440, 768, 390] as const;
const AXE_SOURCE = readFileSync(join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface OccUp {
  server: string;
  adminKey: string;
  dir: string;
  /** The administrator's API over HTTP with the Bearer key (never through the page). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startConsoleOccUp(extraEnv: NodeJS.ProcessEnv = {}): Promise<OccUp> {
  const dir = mkdtempSync(join(tmpdir(), 'occ-console-e2e-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    OCC_CONFIG: join(dir, 'config', 'config.json'),
    NO_COLOR: '1',
    OCC_LOG_LEVEL: 'warn',
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    ...extraEnv,
  };
  const { server, adminKey, stop } = await startOccUp(dir, env);
  return {
    server,
    adminKey,
    dir,
    async api(method, path, body) {
      const response = await fetch(`${server}${path}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in with the keyboard only: Tab to the key field, type it, Enter. */
export async function signInWithKeyboard(page: Page, apiKey: string): Promise<void> {
  await page.getByRole('heading', { name: 'OCC console' }).waitFor();
  await tabTo(page, /^api-key$/, { max: 10 });
  await page.keyboard.type(apiKey);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** What the focused element says: its aria-label, else its text, else its id (for keyboard steps). */
function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return '';
    return (element.getAttribute('aria-label') ?? element.textContent ?? '').trim() || element.id;
  });
}

/** Presses Tab (Shift+Tab with `back`) until the focused element's name matches; fails after `max` presses. */
export async function tabTo(page: Page, name: RegExp, { max = 40, back = false } = {}): Promise<void> {
  const seen: string[] = [];
  for (let presses = 0; presses <= max; presses++) {
    const focused = await focusedName(page);
    if (name.test(focused)) return;
    seen.push(focused);
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${name} in ${max} presses; focus went through:\n  ${seen.join('\n  ')}`);
}

/** One full-page screenshot per width (test-results/console/<name>-<width>.png), then back to 1440. */
export async function screenshotAtWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Two frames: layout and paint at the new width before the capture.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

export interface A11yViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core on the current page. Injected with evaluate (a CDP call the page's CSP does not
 * apply to; an injected <script> tag would be refused, as it should be). Returns the violations
 * of impact serious or critical.
 */
export async function seriousA11yViolations(page: Page): Promise<A11yViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(context: Document, options: object): Promise<any> } }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
  return (violations as A11yViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Rule ids and targets, for a failure message a person can act on. */
export function describeViolations(page: string, violations: readonly A11yViolation[]): string {
  return violations.map((v) => `${page}: ${v.id} (${v.impact}) ${v.help}\n  ${v.targets.join('\n  ')}`).join('\n');
}

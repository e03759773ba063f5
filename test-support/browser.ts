import { accessSync, constants } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { beforeEach } from 'vitest';

/**
 * The browser the console's tests drive: Debian's `chromium` package (`/usr/bin/chromium`, or
 * the file OCC_CHROMIUM names), launched by playwright-core. Never a browser Playwright downloads:
 * the tests run what a machine's package manager installed, offline.
 */
const CHROMIUM_PATH = process.env.OCC_CHROMIUM || '/usr/bin/chromium';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function launchChromium(): Promise<Browser> {
  if (!isExecutable(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}. The console's browser tests drive Debian's chromium: ` +
        '`apt-get install chromium` (or set OCC_CHROMIUM to a Chromium executable). .ci/run installs it when missing.',
    );
  }
  // Chromium refuses to start its sandbox as root (CI containers run as root); only then is it turned off.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: asRoot ? ['--no-sandbox'] : [] });
}

/**
 * A browser flow whose steps build on each other: after one fails, the later ones are skipped
 * (but for the `every page` checks) rather than each timing out, and the page the failure left is
 * printed as its accessibility tree.
 */
export function skipAfterFirstFailure(page: () => Page): void {
  let broken = false;
  beforeEach(({ skip, task, onTestFailed }) => {
    if (broken && !task.name.startsWith('every page')) skip();
    onTestFailed(async () => {
      broken = true;
      console.log(
        `the page at ${page().url()}:\n${await page()
          .locator('body')
          .ariaSnapshot()
          .catch((error: Error) => error.message)}`,
      );
    });
  });
}

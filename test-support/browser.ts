import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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

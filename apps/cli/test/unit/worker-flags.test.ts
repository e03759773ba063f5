import { describe, expect, it } from 'vitest';
import { worker } from '../../src/commands/server/worker.ts';

describe('occ worker --ensure-active-ms', () => {
  it('takes 0 (no periodic check) or a positive number of milliseconds, and names the flag otherwise', async () => {
    for (const bad of ['-1', '1.5', 'often']) {
      await expect(worker(['--ensure-active-ms', bad], {})).rejects.toThrow('--ensure-active-ms must be 0 (never) or a positive integer (milliseconds)');
    }
    // Accepted: the next thing it needs is the database.
    for (const good of ['0', '60000']) await expect(worker(['--ensure-active-ms', good], {})).rejects.toThrow('DATABASE_URL is required');
  });
});

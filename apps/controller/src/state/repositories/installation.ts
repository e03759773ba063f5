import type { InstallationRecord, InstallationRepository } from '../../core/ports/installation-repository.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { iso } from './rows.ts';

interface Row {
  id: string;
  name: string;
  created_at: Date;
}

const toRecord = (r: Row): InstallationRecord => ({ id: r.id, name: r.name, createdAt: iso(r.created_at) });

export function installationRepository(q: Queryable): InstallationRepository {
  const run = runner(q);
  return {
    async get() {
      const { rows } = await run<Row>('SELECT id, name, created_at FROM installation');
      return rows[0] ? toRecord(rows[0]) : null;
    },
    async create(record) {
      const { rowCount } = await run('INSERT INTO installation (id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING', [record.id, record.name]);
      return rowCount === 1;
    },
  };
}

// Global setup of the projects on PostgreSQL: one migrated template database per run.
import type { TestProject } from 'vitest/node';
import { createPostgresTemplate, testDatabaseUrl } from './database-templates.ts';
import { acquireShared } from './shared-resource.ts';
import './provided-context.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = await acquireShared(
    'postgres-template',
    () => createPostgresTemplate(testDatabaseUrl()),
    (t) => t.drop(),
  );
  project.provide('postgresTemplate', template.value.name);
  return template.release;
}

// Global setup of the `pglite` project: one migrated PGlite data directory per run.
import type { TestProject } from 'vitest/node';
import { createPgliteTemplate } from './database-templates.ts';
import { acquireShared } from './shared-resource.ts';
import './provided-context.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = await acquireShared('pglite-template', createPgliteTemplate, (t) => t.remove());
  project.provide('pgliteTemplate', template.value.path);
  return template.release;
}

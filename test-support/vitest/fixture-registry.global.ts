// Global setup of the projects that install plugins (runtime, e2e): one verdaccio with the
// fixture plugins per run, shared by every file of both projects.
import type { TestProject } from 'vitest/node';
import { startFixtureRegistry } from '../npm-registry.ts';
import { acquireShared } from './shared-resource.ts';
import './provided-context.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const registry = await acquireShared('fixture-registry', startFixtureRegistry, (r) => r.close());
  project.provide('fixtureRegistry', { url: registry.value.url, published: registry.value.published });
  return registry.release;
}

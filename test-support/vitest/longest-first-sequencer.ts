import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take minutes (real deploys through OpenClaw), longest first as measured in the
 * last clean-clone CI (its slowest-files report). Started first, they overlap the many short files instead of starting last and
 * leaving one worker busy after the others are done. A file missing here still runs, only later.
 */
const LONGEST_FILES = [
  // Ordered by the clean-clone CI at 7538219 (2081 s; seconds of file time under that load).
  // Four starts of one Agent on a real sshd, one of them cut by killing sshd (458 s).
  'apps/controller/test/e2e/ssh-compute.test.ts',
  // One Agent through four prepares, a prepare beside the serving revision among them (381 s).
  'apps/controller/test/e2e/openclaw-lifecycle.test.ts',
  'apps/controller/test/e2e/codex-lifecycle.test.ts',
  // Two Agents one after the other, then two restarts of one. The first docker file to start
  // builds the runtime image when it is not there; the others wait for that build.
  'apps/controller/test/docker/docker-isolation.test.ts',
  // A Codex Agent as two containers: its harness install, its gateway, two turns and an app-server restart.
  'apps/controller/test/docker/codex-docker.test.ts',
  // A Codex start (harness install included, local and hosted selections), two turns and an app-server restart.
  'apps/runtime/test/codex-runtime.test.ts',
  // A Codex Agent's two-container pod: its harness install, its gateway and an app-server restart.
  'apps/controller/test/e2e/kubernetes-codex.test.ts',
  // A Codex revision as two runtime processes: two app-server starts and two gateway starts.
  'apps/runtime/test/codex-runtime-roles.test.ts',
  'apps/controller/test/e2e/agent-turn.test.ts',
  // Two Agents at once, an attacking model's turns and a restart after it edits its configuration (239 s;
  // 491–576 s while that restart waited out OpenClaw's plugin lifecycle lease, docs/deployments.md).
  'apps/controller/test/e2e/agent-breakout.test.ts',
  // One Agent through four prepares.
  'apps/controller/test/docker/docker-deploy.test.ts',
  'apps/cli/test/e2e/cli-flow.test.ts',
  'apps/controller/test/e2e/public-npm-registry.test.ts',
  'apps/console/test/browser/console-flow.test.ts',
  // One real deploy since its integrity-mismatch test moved onto agent-turn's failing candidate.
  'apps/controller/test/e2e/openclaw-plugin-failures.test.ts',
  // Shorter than those above in that run (not among its 15 slowest), in the earlier runs' order.
  'apps/controller/test/docker/two-controllers.test.ts',
  'apps/runtime/test/openclaw-runtime.test.ts',
  'apps/runtime/test/install-failures.test.ts',
  'apps/runtime/test/runtime-network.test.ts',
  'apps/controller/test/e2e/kubernetes-deploy.test.ts',
];

/**
 * Vitest's own order groups files by project name (e2e, pglite, postgres, runtime, unit) and, on
 * a clean clone with no timing cache, keeps the listing order within a project: the runtime
 * project's long files then start after every database file. This puts the known long files first.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(relative(this.ctx.config.root, file.moduleId));
      return at === -1 ? LONGEST_FILES.length : at;
    };
    return base
      .map((file, index) => ({ file, index, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
  }
}

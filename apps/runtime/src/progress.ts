import { RUNTIME_PROGRESS_MAX, type DeploymentStepName, type PluginInstallResult, type RuntimeProgressStep } from '@occ/contracts';
import { logEvent, type LogFields } from './log.ts';

/**
 * One startup's progress, reported twice from one call: as typed entries in the startup status
 * (closed step names, selection keys, install results and failure codes: what deployment events
 * are made of), and as the runtime's log line a person reads (with its timings and details).
 * Both harnesses report through this, with the same fields: a selection is its selection key.
 */
export class StartupProgress {
  private readonly entries: RuntimeProgressStep[] = [];

  /** A startup step finished. */
  stepDone(step: DeploymentStepName, fields: LogFields = {}): void {
    this.add({ step });
    logEvent('startup.step', { step, ...fields });
  }

  /** One selection's install came to `result`. */
  installed(selectionKey: string, result: PluginInstallResult, fields: LogFields = {}): void {
    this.add({ step: 'install', pluginId: selectionKey, result });
    logEvent(`plugin.install.${result}`, { selectionKey, ...fields });
  }

  /** The gateway serves (or, for a Codex app-server runtime, the peer is prepared). */
  ready(fields: LogFields = {}): void {
    this.add({ step: 'gateway' });
    logEvent('startup.ready', fields);
  }

  /** The startup failed with `code`. */
  failed(code: string, fields: LogFields = {}): void {
    this.add({ code });
    logEvent('startup.failed', { code, ...fields });
  }

  /** The entries so far, oldest first. */
  list(): RuntimeProgressStep[] {
    return [...this.entries];
  }

  private add(entry: Omit<RuntimeProgressStep, 'at'>): void {
    // Past the bound the log still tells; the status keeps the first entries, so what a reader saw never moves.
    if (this.entries.length < RUNTIME_PROGRESS_MAX) this.entries.push({ at: new Date().toISOString(), ...entry });
  }
}

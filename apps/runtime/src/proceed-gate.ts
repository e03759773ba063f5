/**
 * The driver's go for a runtime that prepares beside an earlier revision's gateway
 * (OCC_RUNTIME_HOLD_BEFORE_GATEWAY): installs and verification run while the old gateway serves
 * the Agent's state; what would change that state under it (removing plugins it loaded, starting a
 * second gateway) waits here until the driver has stopped it and sent `POST /proceed`
 * (docs/deployments.md, "A redeploy prepares beside the serving revision").
 */
export class ProceedGate {
  private opened: boolean;
  private release: () => void = () => {};
  private readonly given: Promise<void>;

  /** `holds`: false for a runtime started without the setting (it never waits). */
  constructor(readonly holds: boolean) {
    this.opened = !holds;
    this.given = new Promise<void>((resolve) => (this.release = resolve));
  }

  /** The go (idempotent; before the runtime reached the gate, it passes straight through). */
  open(): void {
    this.opened = true;
    this.release();
  }

  /**
   * Returns at once when the go was given (or nothing holds); else calls `onHold` and waits for the
   * go or `signal` (the runtime stopping). True when the runtime may go on.
   */
  async pass(signal: AbortSignal, onHold: () => void): Promise<boolean> {
    if (this.opened) return true;
    if (signal.aborted) return false;
    onHold();
    let stopWaiting = () => {};
    const aborted = new Promise<void>((resolve) => {
      stopWaiting = () => signal.removeEventListener('abort', onAbort);
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
    });
    await Promise.race([this.given, aborted]).finally(stopWaiting);
    return this.opened && !signal.aborted;
  }
}

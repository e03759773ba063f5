import { ApiError } from '@occ/contracts/client';

/** 412: the If-Match ETag no longer matches — someone else saved in between. */
export function isStale(error: unknown): boolean {
  return error instanceof ApiError && error.status === 412;
}

/** Says the thing changed elsewhere and offers the reload that shows its current state. */
export function StaleNotice({ what, onReload }: { what: string; onReload: () => void }) {
  return (
    <div class="warning" role="alert">
      <p>{what} changed elsewhere — reload to see the current version, then make your change again.</p>
      <button type="button" onClick={onReload}>
        Reload
      </button>
    </div>
  );
}

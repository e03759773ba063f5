/** An attempt's claim: its number and when it was first claimed (null: stored before claim times were kept). */
export interface AttemptClaim {
  attempt: number;
  time: number | null;
}

export type Happening<S> = { kind: 'claim'; claim: AttemptClaim } | { kind: 'step'; step: S };

/**
 * A deploy's claims and runtime steps in the order they happened. Steps keep the runtime log's
 * order (a step's position there is part of the resume cursor); each claim goes before the first
 * step logged after it, and before a step of the same instant (an attempt's runtime starts after
 * its claim). A claim without a time goes before every step, as all claims once did.
 *
 * Only the next claim and the next step are ever compared, so ordering what follows a cursor
 * gives exactly the rest of the order from the start: a resumed stream repeats and skips nothing.
 */
export function inOrderOfHappening<S extends { time: number }>(claims: readonly AttemptClaim[], steps: readonly S[]): Happening<S>[] {
  const out: Happening<S>[] = [];
  let c = 0;
  for (const step of steps) {
    while (c < claims.length && (claims[c]!.time ?? -Infinity) <= step.time) out.push({ kind: 'claim', claim: claims[c++]! });
    out.push({ kind: 'step', step });
  }
  while (c < claims.length) out.push({ kind: 'claim', claim: claims[c++]! });
  return out;
}

/** Attempts `from`…`to` of an item, each with the time it was first claimed (`attemptClaimedAt[n − 1]`). */
export function attemptClaims(attemptClaimedAt: ReadonlyArray<string | null>, from: number, to: number): AttemptClaim[] {
  const claims: AttemptClaim[] = [];
  for (let attempt = from; attempt <= to; attempt++) {
    const at = attemptClaimedAt[attempt - 1];
    claims.push({ attempt, time: at ? Date.parse(at) : null });
  }
  return claims;
}

/** The middle value (the mean of the two middle ones for an even count): what every bench reports. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Milliseconds as seconds with two decimals, right-aligned in 7 columns. */
export const seconds = (ms: number) => (ms / 1000).toFixed(2).padStart(7);

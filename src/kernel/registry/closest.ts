/**
 * "Did you mean …?" for boot errors: a misspelt model, field or event name (`res.usr`,
 * `helpdesk.ticket.feild_changed`) is told the nearest name it could have meant.
 */

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours count 1). */
export function editDistance(a: string, b: string): number {
  // optimal string alignment: a transposed pair (`feild` → `field`) is one typo, not two
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate nearest to `name`, or undefined when none is near enough to be a typo of it
 * (at most a third of the name's length changed, and at least one character kept): suggesting
 * `res.user` for `storage.folder` would mislead more than it helps. Ties go to the first candidate.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === name) continue;
    const distance = editDistance(name.toLowerCase(), c.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean res.user?)`, or nothing when no candidate is close: to append to a message. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = closest(name, candidates);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

/**
 * ` (did you mean datetime?)` when a candidate is close, else the whole list of them
 * (` (one of char, text, …)`): for a closed set small enough to read, such as field types.
 */
export function didYouMeanOrList(name: string, candidates: readonly string[]): string {
  return didYouMean(name, candidates) || ` (one of ${candidates.join(', ')})`;
}

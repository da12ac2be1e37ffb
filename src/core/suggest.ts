/** "Did you mean …?": the closest names to a mistyped one, for unknown flags and operations. */

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two strings. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Up to `max` names close to `typed`, closest first: within a third of the name's length in
 * edits, or containing it (`ot` → `out`, `list` → `list_buses`), and at most one edit worse
 * than the closest.
 */
export function closest(typed: string, names: Iterable<string>, max = 3): string[] {
  const t = typed.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(names)) {
    const n = name.toLowerCase();
    const dist = editDistance(t, n);
    const limit = Math.max(1, Math.floor(Math.max(t.length, n.length) / 3));
    if (dist <= limit) scored.push({ name, score: dist });
    else if (t.length >= 2 && (n.startsWith(t) || n.includes(t))) scored.push({ name, score: limit + 1 });
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  // Far worse candidates than the best one are noise ("chek_task" means check_task, not get_task).
  const best = scored[0]?.score ?? 0;
  return scored
    .filter((s) => s.score <= best + 1)
    .slice(0, max)
    .map((s) => s.name);
}

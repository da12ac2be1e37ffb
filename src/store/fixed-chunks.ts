/**
 * How many rows each multi-row statement of a batch takes, from a few fixed sizes. A statement
 * text per batch size would be prepared, and kept, for every size a process met; a few sizes
 * keep a few texts and still write a batch in few statements.
 */

/** `count` as chunks of `sizes` (largest first), as few as they allow; a remainder they leave comes last (none when the last size is 1). */
export function fixedChunks(count: number, sizes: readonly number[]): number[] {
  const chunks: number[] = [];
  for (const size of sizes) for (; count >= size; count -= size) chunks.push(size);
  if (count > 0) chunks.push(count);
  return chunks;
}

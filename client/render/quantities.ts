/** `1 step`, `2 steps`, `1,234 tokens`: a count and its noun, singular for exactly one. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

/** A size as people read it: `512 B`, `3.2 KiB`, `10.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Dollars as a person reads them: cents for a dollar and up, four places below, `<$0.0001` for crumbs. */
export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (dollars < 0.0001) return '<$0.0001';
  return `$${dollars.toFixed(dollars >= 1 ? 2 : 4)}`;
}

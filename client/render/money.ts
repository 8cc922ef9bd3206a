/** Dollars as a person reads them: cents for a dollar and up, four places below, `<$0.0001` for crumbs. */
export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (dollars < 0.0001) return '<$0.0001';
  return `$${dollars.toFixed(dollars >= 1 ? 2 : 4)}`;
}

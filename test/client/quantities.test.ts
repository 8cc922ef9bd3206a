import { expect, it } from 'vitest';
import { formatCost } from '../../client/render/quantities.js';

it.each([
  [0, '$0'],
  [0.00004, '<$0.0001'],
  [0.01234, '$0.0123'],
  [12.345, '$12.35'],
])('shows $%s as %s', (dollars, shown) => {
  expect(formatCost(dollars)).toBe(shown);
});

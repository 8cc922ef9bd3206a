import { createTwoFilesPatch } from 'diff';

export type FileDiff = {
  diff: string;
  additions: number;
  deletions: number;
};

/** A unified diff of a file's change, with counts of added and removed lines. */
export function unifiedDiff(name: string, before: string, after: string): FileDiff {
  const diff = createTwoFilesPatch(name, name, before, after, undefined, undefined, { context: 3 });
  let additions = 0;
  let deletions = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) additions++;
    if (line.startsWith('-') && !line.startsWith('---')) deletions++;
  }
  return { diff, additions, deletions };
}

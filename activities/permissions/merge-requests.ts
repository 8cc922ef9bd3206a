import type { PermissionRequest } from '../../core/rules/permission.js';

/** Requests merged by permission: every pattern of both, in order, without repeats. */
export function mergeRequests(...lists: PermissionRequest[][]): PermissionRequest[] {
  const merged: PermissionRequest[] = [];
  for (const request of lists.flat()) {
    const same = merged.find((candidate) => candidate.permission === request.permission);
    if (!same) merged.push({ ...request, patterns: [...request.patterns], always: [...request.always] });
    else {
      same.patterns = [...new Set([...same.patterns, ...request.patterns])];
      same.always = [...new Set([...same.always, ...request.always])];
    }
  }
  // A folder outside the project is asked about before what is done there, as the specs order it.
  return [
    ...merged.filter((r) => r.permission === 'external_directory'),
    ...merged.filter((r) => r.permission !== 'external_directory'),
  ];
}

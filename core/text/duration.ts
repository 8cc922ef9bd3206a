/**
 * `90s`, `30m`, `2h`, `1h30m`, `1500ms`, or a bare number of seconds (`90`), as milliseconds;
 * undefined for anything else, and for durations that are not positive.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return positive(Number(trimmed) * 1000);
  const form = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(trimmed);
  if (!form || trimmed === '') return undefined;
  const [hours = 0, minutes = 0, seconds = 0, ms = 0] = form.slice(1).map((part) => Number(part ?? 0));
  return positive(((hours * 60 + minutes) * 60 + seconds) * 1000 + ms);
}

function positive(ms: number): number | undefined {
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

/** `800 ms`, `5 s`, `1 min 30 s`, `2 h`: a limit as people read it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 10_000) return `${Math.round(ms / 100) / 10} s`;
  const seconds = Math.round(ms / 1000);
  const parts: [number, string][] = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor(seconds / 60) % 60, 'min'],
    [seconds % 60, 's'],
  ];
  return parts
    .filter(([count]) => count > 0)
    .map(([count, unit]) => `${count} ${unit}`)
    .join(' ');
}

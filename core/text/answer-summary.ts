/** Lines that carry no words of their own: a code fence, a rule, a table's separator row. */
const NOT_TEXT = /^(```|~~~|([-*_]\s*){3,}$|\|?\s*:?-{3,})/;

/** One line of markdown as words: no heading, list or quote marker, no emphasis, code or link marks. */
export function plainLine(line: string): string {
  let plain = line
    .replace(/^\s*(#{1,6}\s+|>\s*|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+#+\s*$/, '');
  // Marks inside marks (`**fix the `login` bug**`) come off one layer a pass.
  for (let layer = 0; layer < 3; layer++) plain = plain.replace(/(\*\*|__|\*|_|`)(\S(?:.*?\S)?)\1/g, '$2');
  return plain.trim();
}

/**
 * The one-line gist of an agent's markdown answer, as a list of results shows it: the first line
 * with words that is not a heading (the first heading when there is nothing else), marks stripped,
 * cut at `max` characters.
 */
export function answerSummary(text: string, max = 100): string {
  const lines = text.split('\n').filter((line) => line.trim() && !NOT_TEXT.test(line.trim()));
  const line = lines.find((candidate) => !/^\s*#{1,6}\s/.test(candidate)) ?? lines[0] ?? '';
  const plain = plainLine(line);
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

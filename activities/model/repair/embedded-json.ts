/** A JSON value found in a text: where it stands, and what it parsed to. */
export interface EmbeddedJson {
  start: number;
  end: number;
  value: unknown;
}

/**
 * Every outermost `{…}` or `[…]` of a text that parses as JSON, in order: an answer that is only
 * JSON, a fenced block, JSON inside any tags, several objects one per line. What small models get
 * wrong is forgiven where the meaning is plain: doubled braces (`{{…}}`, a template's escaping),
 * commas before a closing bracket, and a Python docstring's `"""` left unescaped
 * in a string. A stretch that does not parse is skipped, and the
 * objects inside it are looked at instead.
 */
export function embeddedJson(text: string): EmbeddedJson[] {
  const found: EmbeddedJson[] = [];
  let index = 0;
  while (index < text.length) {
    const open = nextOpening(text, index);
    if (open < 0) break;
    const end = closingOf(text, open);
    const value = end < 0 ? undefined : lenientParse(text.slice(open, end));
    if (value === undefined) {
      index = open + 1;
      continue;
    }
    found.push({ start: open, end, value });
    index = end;
  }
  return found;
}

function nextOpening(text: string, from: number): number {
  const brace = text.indexOf('{', from);
  const bracket = text.indexOf('[', from);
  if (brace < 0) return bracket;
  if (bracket < 0) return brace;
  return Math.min(brace, bracket);
}

/** The index after the bracket that closes the one at `open`, strings skipped; -1 if it never closes. */
function closingOf(text: string, open: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') stack.push(char === '{' ? '}' : ']');
    else if (char === '}' || char === ']') {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return closeDoubled(text, index + 1, char);
    }
  }
  return -1;
}

/** `{{…}}}}`: closing braces doubled past the balance belong to the same value. */
function closeDoubled(text: string, end: number, char: string): number {
  while (char === '}' && text[end] === '}') end++;
  return end;
}

/**
 * JSON, else the same with doubled braces, trailing commas and Python's `"""` in strings undone;
 * undefined when none parses.
 */
function lenientParse(source: string): unknown {
  const quoted = escapeTripleQuotes(source);
  for (const candidate of [source, undouble(source), ...(quoted === source ? [] : [quoted, undouble(quoted)])]) {
    const parsed = parse(candidate) ?? parse(candidate.replace(/,(\s*[}\]])/g, '$1'));
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

/** `"""` never stands in JSON: it is a docstring's quotes written into a string unescaped. */
function escapeTripleQuotes(source: string): string {
  return source.replace(/"""/g, '\\"\\"\\"');
}

function undouble(source: string): string {
  return source.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

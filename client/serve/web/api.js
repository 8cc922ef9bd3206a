// Calls to the Loom server. The token comes from the page's `#token=…` fragment (kept for this tab
// in sessionStorage and taken off the address bar), or from a prompt when the server says 401.

const TOKEN_KEY = 'loom.token';
let token = takeTokenFromFragment() ?? sessionStorage.getItem(TOKEN_KEY) ?? undefined;

/** `#token=abc`, `#/session/ses_x?token=abc` or `#/session/ses_x&token=abc`: the token, removed from the URL. */
function takeTokenFromFragment() {
  const match = /([#?&])token=([^&]*)/.exec(location.hash);
  if (!match) return undefined;
  const found = decodeURIComponent(match[2]);
  const rest =
    location.hash.slice(0, match.index + (match[1] === '#' ? 1 : 0)) +
    location.hash.slice(match.index + match[0].length);
  history.replaceState(null, '', `${location.pathname}${location.search}${rest === '#' ? '' : rest}`);
  sessionStorage.setItem(TOKEN_KEY, found);
  return found;
}

function askForToken() {
  const given = prompt('This Loom server wants a token (LOOM_SERVER_TOKEN, or the one `loom serve` printed):');
  if (!given) return false;
  token = given.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  return true;
}

/** An error the server answered with: its `{error}` text, and the status. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** JSON from the API; throws `ApiError` with the server's message on any non-2xx answer. */
export async function api(path, { method = 'GET', body } = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401 && attempt === 0 && askForToken()) continue;
    const data = await response.json().catch(() => undefined);
    if (!response.ok) throw new ApiError(response.status, data?.error ?? `${method} ${path}: HTTP ${response.status}`);
    return data;
  }
}

/** The event stream's URL: EventSource cannot send headers, so the token goes in the query. */
export function eventsUrl() {
  return token ? `/event?token=${encodeURIComponent(token)}` : '/event';
}

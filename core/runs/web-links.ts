/**
 * Links to the pages of `loom serve`'s web view (hash routes, so any static host of the page
 * works), for the Temporal UI's run details and the CLI. `webUrl` is where the view is served,
 * e.g. `https://loom.example.com` (`LOOM_WEB_URL`); links never carry the server's token.
 */
export function sessionPageUrl(webUrl: string, sessionId: string): string {
  return `${webUrl.replace(/\/+$/, '')}/#/session/${encodeURIComponent(sessionId)}`;
}

export function batchPageUrl(webUrl: string, batchId: string): string {
  return `${webUrl.replace(/\/+$/, '')}/#/batch/${encodeURIComponent(batchId)}`;
}

/** The line that ends a run's details in the Temporal UI when the web view's address is known. */
export function webLinkDetails(url: string | undefined): string {
  return url ? `\n\n[Open in Loom](${url})` : '';
}

// The web view of `loom serve`: pages by the URL fragment (`#/`, `#/session/<id>`, `#/batches`,
// `#/batch/<id>`), so the server needs no route per page and never shadows its API.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { connected as streamUp, connectEvents } from './events.js';
import { href, html } from './html.js';
import { loadConfig, loadStatuses, useStore } from './state.js';
import { BatchPage, BatchesPage } from './views/batches.js';
import { SessionPage } from './views/session.js';
import { SessionsPage } from './views/sessions.js';

function route(hash) {
  const [page = '', id] = hash.replace(/^#\/?/, '').split(/[?&]/)[0].split('/').map(decodeURIComponent);
  if (page === 'session' && id) return html`<${SessionPage} id=${id} key=${id} />`;
  if (page === 'batches') return html`<${BatchesPage} />`;
  if (page === 'batch' && id) return html`<${BatchPage} id=${id} key=${id} />`;
  return html`<${SessionsPage} />`;
}

function App() {
  const [hash, setHash] = useState(location.hash);
  const { connected, epoch } = useStore();
  // Whatever the page shows, a session waiting for a person reads so from the first paint.
  useEffect(() => {
    streamUp.then(loadStatuses).catch(() => undefined);
  }, [epoch]);
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return html`
    <header class="top">
      <a class="brand" href=${href('')}>Loom</a>
      <nav><a href=${href('')}>Sessions</a><a href=${href('batches')}>Batches</a></nav>
      <span
        class=${connected ? 'live on' : 'live off'}
        title=${connected ? 'Live: following the event stream' : 'Not connected to the event stream; retrying'}
      >
        ${connected ? '● live' : '○ offline'}
      </span>
    </header>
    <main>${route(hash)}</main>
  `;
}

connectEvents();
void loadConfig();
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);

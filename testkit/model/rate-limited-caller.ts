// A worker's model request in a process of its own, for tests that kill it mid-wait:
// `node --import tsx testkit/model/rate-limited-caller.ts <store file> <url> <rpm>` sends one request
// through the shared gates and prints the answer's status.
import { RateGates } from '../../activities/model/rate-gates.js';
import { rateLimitedFetch } from '../../activities/model/rate-limited-fetch.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';

const [file, url, rpm] = process.argv.slice(2);
const store = new SqliteSessionStore(file);
const gates = new RateGates(
  store,
  { providerID: 'p', modelID: 'm', apiKey: 'sk-1', baseURL: 'http://x' },
  { provider: Number(rpm) > 0 ? { rpm: Number(rpm) } : undefined },
);
const response = await rateLimitedFetch(gates, globalThis.fetch)(url, { method: 'POST', body: '{}' });
console.log(response.status);
await store.close();

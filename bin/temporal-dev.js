#!/usr/bin/env node
// What `temporal-dev.sh` runs: client/dev-server/main.ts, from the build or the sources (bin/entry.js decides).
import { runEntry } from './entry.js';

await runEntry('client/dev-server/main');

#!/usr/bin/env node
// What `temporal-dev.sh` runs: dev-server/main.ts, from the build or the sources (bin/entry.js decides).
import { runEntry } from './entry.js';

await runEntry('dev-server/main');

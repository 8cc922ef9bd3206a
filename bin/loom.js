#!/usr/bin/env node
// The `loom` command: the build's bundle (dist/cli/), or the TypeScript sources in a checkout (bin/entry.js decides).
import { runEntry } from './entry.js';

await runEntry('client/main', 'cli/main');

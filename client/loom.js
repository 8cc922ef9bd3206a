#!/usr/bin/env node
// The `loom` command: runs the TypeScript CLI through tsx, so a checkout needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');

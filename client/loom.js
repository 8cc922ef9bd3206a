#!/usr/bin/env node
// The `loom` command: runs the TypeScript CLI through tsx, so a checkout needs no build step.
import { fileURLToPath, URL } from 'node:url';
import { register } from 'tsx/esm/api';

// Loom's own tsconfig whatever the current directory: it says how the terminal UI's JSX compiles.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('./main.ts');

// Types of bin/entry.js, plain JavaScript so that it runs before tsx is registered.
export function builtAt(): number;
export function sourcesChangedAt(): number;
export function runEntry(module: string, builtAs?: string): Promise<void>;

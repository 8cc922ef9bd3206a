import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { configDir } from '../paths.js';
import { LoomConfig } from './schema.js';

const FILE_NAMES = ['opencode.jsonc', 'opencode.json', 'loom.jsonc', 'loom.json'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Loads the configuration that applies to a project directory. Later sources override earlier
 * ones: the global config folder, then config files from the filesystem root down to the
 * directory, then `LOOM_CONFIG_CONTENT`.
 */
export function loadConfig(directory: string, env: NodeJS.ProcessEnv = process.env): LoomConfig {
  const sources: { label: string; text: string }[] = [];
  for (const folder of [configDir(env), ...ancestors(resolve(directory)).reverse()]) {
    for (const name of FILE_NAMES) {
      const file = join(folder, name);
      if (existsSync(file)) sources.push({ label: file, text: readFileSync(file, 'utf8') });
    }
  }
  if (env.LOOM_CONFIG_CONTENT) sources.push({ label: 'LOOM_CONFIG_CONTENT', text: env.LOOM_CONFIG_CONTENT });
  return sources.map((source) => parseConfig(source.text, source.label, env)).reduce(mergeConfig, {});
}

export function parseConfig(text: string, label: string, env: NodeJS.ProcessEnv = process.env): LoomConfig {
  const substituted = text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
  const errors: ParseError[] = [];
  const value = parseJsonc(substituted, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const first = errors[0];
    const line = substituted.slice(0, first.offset).split('\n').length;
    throw new ConfigError(`${label}: invalid JSON at line ${line}: ${printParseErrorCode(first.error)}`);
  }
  const parsed = LoomConfig.safeParse(value ?? {});
  if (!parsed.success) throw new ConfigError(describeIssues(label, parsed.error));
  return parsed.data;
}

function describeIssues(label: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const key = issue.path.length ? issue.path.join('.') : '(top level)';
    return `  ${key}: ${issue.message}`;
  });
  return `${label}: invalid configuration\n${lines.join('\n')}`;
}

function mergeConfig(base: LoomConfig, next: LoomConfig): LoomConfig {
  return deepMerge(base, next) as LoomConfig;
}

function deepMerge(base: unknown, next: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(next)) return next;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) merged[key] = key in base ? deepMerge(base[key], value) : value;
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ancestors(directory: string): string[] {
  const folders = [directory];
  while (dirname(folders[folders.length - 1]) !== folders[folders.length - 1]) {
    folders.push(dirname(folders[folders.length - 1]));
  }
  return folders;
}

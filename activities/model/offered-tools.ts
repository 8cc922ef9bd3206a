import type { JSONSchema7, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { z } from 'zod';
import type { FindTool } from '../../core/tool-call/check.js';
import type { ToolSpec } from '../../core/tool-call/spec.js';
import { findTool } from '../../core/tools/index.js';
import { sampleFile, SMALL_MODEL_TOOLS } from '../../core/tools/small-model.js';

/**
 * The tools offered to the model, as the provider takes them: no `execute`, since the model's
 * calls go back to the workflow, which runs them. Names the finder does not know are left out.
 */
export function functionTools(
  names: string[],
  find: FindTool,
  describe: (spec: ToolSpec) => string,
): LanguageModelV3FunctionTool[] {
  const tools: LanguageModelV3FunctionTool[] = [];
  for (const name of names) {
    const spec = find(name);
    if (spec) tools.push({ type: 'function', name, description: describe(spec), inputSchema: inputSchemaOf(spec) });
  }
  return tools;
}

/**
 * The tools offered to a small model: each of Loom's with its short description and only the
 * parameters named for it (`describeTask` fills in the `task` tool's agents; `entries`, what the
 * project holds, give the examples a real file); MCP tools as they are.
 */
export function smallModelTools(
  names: string[],
  find: FindTool,
  describeTask: (template: string) => string,
  entries?: string[],
): LanguageModelV3FunctionTool[] {
  const file = sampleFile(entries);
  const tools: LanguageModelV3FunctionTool[] = [];
  for (const name of names) {
    const spec = find(name);
    if (!spec) continue;
    const small =
      Object.hasOwn(SMALL_MODEL_TOOLS, name) && findTool(name) === spec ? SMALL_MODEL_TOOLS[name] : undefined;
    if (!small) {
      tools.push({ type: 'function', name, description: spec.description, inputSchema: inputSchemaOf(spec) });
      continue;
    }
    const description = name === 'task' ? describeTask(small.description(file)) : small.description(file);
    tools.push({
      type: 'function',
      name,
      description,
      inputSchema: onlyParameters(inputSchemaOf(spec), small.parameters),
    });
  }
  return tools;
}

/**
 * A tool's schema with only the named properties (and of the required ones, only those), and none
 * of what tells a small model nothing: the `$schema` line, a bound that is just the largest integer.
 */
function onlyParameters(schema: JSONSchema7, keep: string[]): JSONSchema7 {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {})
      .filter(([key]) => keep.includes(key))
      .map(([key, property]) => {
        if (typeof property !== 'object' || property.maximum !== Number.MAX_SAFE_INTEGER) return [key, property];
        const { maximum: _, ...bounded } = property;
        return [key, bounded];
      }),
  );
  const { $schema: _, ...rest } = schema;
  return { ...rest, properties, required: (schema.required ?? []).filter((key) => keep.includes(key)) };
}

const inputSchemas = new Map<ToolSpec, JSONSchema7>();

/** A tool's parameters as JSON Schema; specs never change, so each is converted once per process. */
function inputSchemaOf(spec: ToolSpec): JSONSchema7 {
  if (spec.inputSchema) return spec.inputSchema as JSONSchema7;
  let schema = inputSchemas.get(spec);
  if (!schema)
    inputSchemas.set(
      spec,
      (schema = z.toJSONSchema(spec.parameters, { target: 'draft-7', io: 'input' }) as JSONSchema7),
    );
  return schema;
}

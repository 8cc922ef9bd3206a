import type { JSONSchema7, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { z } from 'zod';
import type { FindTool } from '../../core/tool-call.js';
import type { ToolSpec } from '../../core/tool-spec.js';

/**
 * The tools offered to the model, as the provider takes them: no `execute`, since the model's
 * calls go back to the workflow, which runs them. Names the finder does not know are left out.
 */
export function functionTools(names: string[], find: FindTool, describe: (spec: ToolSpec) => string): LanguageModelV3FunctionTool[] {
  const tools: LanguageModelV3FunctionTool[] = [];
  for (const name of names) {
    const spec = find(name);
    if (spec) tools.push({ type: 'function', name, description: describe(spec), inputSchema: inputSchemaOf(spec) });
  }
  return tools;
}

const inputSchemas = new Map<ToolSpec, JSONSchema7>();

/** A tool's parameters as JSON Schema; specs never change, so each is converted once per process. */
function inputSchemaOf(spec: ToolSpec): JSONSchema7 {
  if (spec.inputSchema) return spec.inputSchema as JSONSchema7;
  let schema = inputSchemas.get(spec);
  if (!schema) inputSchemas.set(spec, (schema = z.toJSONSchema(spec.parameters, { target: 'draft-7', io: 'input' }) as JSONSchema7));
  return schema;
}

import { z } from 'zod';

export const ModelLimits = z.strictObject({
  context: z.number().int().positive(),
  output: z.number().int().positive(),
});

export const ProviderConfig = z.looseObject({
  name: z.string().optional(),
  options: z
    .looseObject({
      baseURL: z.url().optional(),
      apiKey: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  models: z
    .record(
      z.string(),
      z.looseObject({
        name: z.string().optional(),
        limit: ModelLimits.optional(),
        /** Whether the model accepts images and PDFs (default: true for openai, false otherwise). */
        attachment: z.boolean().optional(),
      }),
    )
    .optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** Loom's configuration file (`loom.json`, or `opencode.json` for compatibility). */
export const LoomConfig = z.looseObject({
  $schema: z.string().optional(),
  /** The default model, `provider/model`. */
  model: z.string().optional(),
  provider: z.record(z.string(), ProviderConfig).optional(),
});
export type LoomConfig = z.infer<typeof LoomConfig>;

import { z } from 'zod';
import { ConfigFilesRecord } from '../config/files.js';

/** Config files that changed during an agent's work and wait for a person to confirm them. */
export const ConfigChange = z.object({
  /** The id of the project's config files as they were then (see `projectConfigId`). */
  id: z.string(),
  /** The files and folders that differ from the trusted ones: changed, added or removed. */
  files: z.array(z.string()),
  /** The session whose work it happened in. */
  sessionId: z.string().optional(),
  time: z.number(),
});
export type ConfigChange = z.infer<typeof ConfigChange>;

/**
 * What a person trusts of a project's configuration: the config files as they last ran with them
 * or confirmed them, and the change an agent's work made since, if any (see activities/config/trust.ts).
 */
export const ConfigTrust = z.object({
  /** The session directory the configuration is read for. */
  directory: z.string(),
  trustedId: z.string(),
  trusted: ConfigFilesRecord,
  /** When a person last trusted the files (epoch ms). */
  time: z.number(),
  pending: ConfigChange.optional(),
});
export type ConfigTrust = z.infer<typeof ConfigTrust>;

/** When `trustConfig` replaces what is trusted. */
export type TrustWhen =
  /** Only when nothing is trusted yet for the directory: the first run there. */
  | 'first'
  /** Unless a change waits for a person: a person's own edit, taken at the run they start. */
  | 'unless-pending'
  /** Always, clearing what waits: a person confirmed the files. */
  | 'always';

export interface ConfigTrustRecords {
  configTrust(directory: string): Promise<ConfigTrust | undefined>;
  /** Trusts `trusted` (with its id) for `directory` as `when` allows; whether it did. */
  trustConfig(
    directory: string,
    trusted: { id: string; record: ConfigFilesRecord; time: number },
    when: TrustWhen,
  ): Promise<boolean>;
  /**
   * Records a change waiting for a person, while what is trusted is still `trustedId` (a person who
   * trusted something else meanwhile decided already); whether it did.
   */
  markConfigChanged(directory: string, trustedId: string, change: ConfigChange): Promise<boolean>;
}

/** Trust rows as a dialect stores them; what it is given is already validated. */
export interface ConfigTrustRows {
  get(directory: string): Promise<ConfigTrust | undefined>;
  /** Inserts or replaces the trusted files; `when` as `trustConfig`. Whether a row changed. */
  trust(record: Omit<ConfigTrust, 'pending'>, when: TrustWhen): Promise<boolean>;
  /** Sets the pending change where the trusted id is still `trustedId`. Whether a row changed. */
  setPending(directory: string, trustedId: string, change: ConfigChange): Promise<boolean>;
}

export function configTrustRecords(rows: ConfigTrustRows): ConfigTrustRecords {
  return {
    configTrust: (directory) => rows.get(directory),
    trustConfig: (directory, trusted, when) =>
      rows.trust(
        { directory, trustedId: trusted.id, trusted: ConfigFilesRecord.parse(trusted.record), time: trusted.time },
        when,
      ),
    markConfigChanged: (directory, trustedId, change) =>
      rows.setPending(directory, trustedId, ConfigChange.parse(change)),
  };
}

import { z } from 'zod';

export const PermissionReplyKind = z.enum(['once', 'always', 'reject']);
export type PermissionReplyKind = z.infer<typeof PermissionReplyKind>;

/** A person's answer to a permission request. */
export const PermissionReply = z.object({
  requestId: z.string(),
  reply: PermissionReplyKind,
  /** With `reject`: feedback the model sees, and the turn goes on. */
  message: z.string().optional(),
});
export type PermissionReply = z.infer<typeof PermissionReply>;

/** A tool call waiting for a person's approval, as the store keeps it. */
export const PermissionRequestRecord = z.object({
  id: z.string(),
  sessionID: z.string(),
  /** The root of the session tree: where replies are answered from and `always` rules live. */
  rootID: z.string(),
  messageID: z.string(),
  partID: z.string(),
  callID: z.string(),
  tool: z.string(),
  agent: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  always: z.array(z.string()),
  /** What the call does, e.g. `bash · npm publish`. */
  title: z.string(),
  /** Why Loom asks when the rules alone would not say (`the line does not parse`). */
  reason: z.string().optional(),
  /** The change a write of a config file makes, as a unified diff. */
  diff: z.string().optional(),
  /** For `external_directory`: what approving grants, in words (`write access to /srv/out`). */
  grants: z.array(z.string()).optional(),
  status: z.enum(['pending', 'approved', 'rejected', 'cancelled', 'expired']),
  reply: PermissionReply.omit({ requestId: true }).optional(),
  time: z.object({ created: z.number(), replied: z.number().optional() }),
});
export type PermissionRequestRecord = z.infer<typeof PermissionRequestRecord>;

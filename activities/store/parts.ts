import { Part } from '../../core/records/part.js';
import { NotFoundError } from './not-found-error.js';

export interface PartRecords {
  /** A message's parts, in order. */
  parts(messageId: string): Promise<Part[]>;
  savePart(part: Part): Promise<void>;
  getPart(id: string): Promise<Part | undefined>;
  /**
   * Reads, changes and writes a part as one step: no other write of it falls between. Returns the
   * new part. `update` may be called more than once (a store may try again when the part changed
   * under it), so it must only compute the new part.
   */
  updatePart(id: string, update: (part: Part) => Part): Promise<Part>;
  /** Removes a message's parts (a retried model call starts its answer again). */
  deleteParts(messageId: string): Promise<void>;
}

/** Part rows as a dialect stores them; what it is given is already validated. */
export interface PartRows {
  ofMessage(messageId: string): Promise<Part[]>;
  /** Writes the part at a new revision. */
  upsert(part: Part): Promise<void>;
  /** Reads the part, and writes what `change` makes of it at a new revision, in one transaction; returns that. */
  modify(id: string, change: (current: Part | undefined) => Part): Promise<Part>;
  get(id: string): Promise<Part | undefined>;
  /** Deletes a message's parts, leaving a removal row of each at its own revision. */
  deleteOfMessage(messageId: string): Promise<void>;
}

export function partRecords(rows: PartRows): PartRecords {
  return {
    parts: async (messageId) => rows.ofMessage(messageId),
    savePart: async (part) => rows.upsert(Part.parse(part)),
    getPart: async (id) => rows.get(id),
    updatePart: async (id, update) =>
      rows.modify(id, (current) => {
        if (!current) throw new NotFoundError(`Unknown part "${id}"`);
        return Part.parse(update(current));
      }),
    deleteParts: async (messageId) => rows.deleteOfMessage(messageId),
  };
}

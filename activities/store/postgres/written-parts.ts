import { Part } from '../../../core/records/part.js';

/** How many parts a store remembers having written. */
const KEPT = 256;

/** A part as this store last wrote it, and the revision that write took. */
export interface WrittenPart {
  rev: string;
  sessionID: string;
  /** A fresh copy of the part, for an update to change. */
  part(): Part;
}

/**
 * The parts this store wrote last, each at the revision it took, so that `updatePart` of one (a
 * tool's state after the model's answer wrote its call, its output after "running") can try its
 * conditional write at once instead of reading the part first. If anyone wrote the part since,
 * that write fails and the update reads it as usual: a stale entry costs a round trip, never an update.
 */
export class WrittenParts {
  private readonly parts = new Map<string, { rev: string; sessionID: string; json: string }>();

  get(id: string): WrittenPart | undefined {
    const kept = this.parts.get(id);
    if (!kept) return undefined;
    return { rev: kept.rev, sessionID: kept.sessionID, part: () => Part.parse(JSON.parse(kept.json)) };
  }

  remember(id: string, sessionId: string, json: string, rev: string): void {
    this.parts.delete(id);
    this.parts.set(id, { rev, sessionID: sessionId, json });
    if (this.parts.size > KEPT) this.parts.delete(this.parts.keys().next().value!);
  }

  forget(id: string): void {
    this.parts.delete(id);
  }
}

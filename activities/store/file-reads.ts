/**
 * When each session last read each file, so edits of files changed since then are
 * refused. A dialect implements it as it is: there is no step around its SQL.
 */
export interface FileReadTimes {
  /** Remembers the modification time of a file the session has read (or written). */
  recordFileRead(sessionId: string, path: string, mtimeMs: number): Promise<void>;
  /** The modification time the file had when the session last read it. */
  fileReadMtime(sessionId: string, path: string): Promise<number | undefined>;
}

import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import type { PermissionRecords } from '../../activities/store/permissions.js';
import type { PermissionReply, PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { InputError } from '../input-error.js';
import { replyToRequest } from '../services/permissions.js';
import { answerHint, describeRequest } from './permission-request.js';

/**
 * Watches a session tree for permission requests. In a terminal it asks the person at it (one
 * request at a time); otherwise it prints each request once with the command that answers it, so
 * a script never waits without saying why.
 */
export class PermissionPrompter {
  private readonly seen = new Set<string>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Client,
    private readonly store: PermissionRecords,
    private readonly rootId: string,
    private readonly interactive: boolean,
    private readonly report: (line: string) => void,
  ) {}

  async check(): Promise<void> {
    for (const request of await this.store.permissionRequests({ status: 'pending', rootID: this.rootId })) {
      if (this.seen.has(request.id)) continue;
      this.seen.add(request.id);
      if (!this.interactive) {
        this.report(`\n${describeRequest(request)}\n  ${answerHint(request)}`);
        continue;
      }
      this.queue = this.queue.then(() => this.ask(request));
    }
  }

  private async ask(request: PermissionRequestRecord): Promise<void> {
    const current = await this.store.getPermissionRequest(request.id);
    if (current?.status !== 'pending') return;
    const prompt = createInterface({
      input: process.stdin,
      output: process.stderr,
      terminal: Boolean(process.stdin.isTTY),
    });
    prompt.on('SIGINT', () => process.emit('SIGINT'));
    try {
      this.report(`\n${describeRequest(request)}`);
      const answer = (await prompt.question('  Allow? [o]nce, [a]lways, [r]eject, reject with [f]eedback: '))
        .trim()
        .toLowerCase();
      const reply: PermissionReply = answer.startsWith('a')
        ? { requestId: request.id, reply: 'always' }
        : answer.startsWith('f')
          ? {
              requestId: request.id,
              reply: 'reject',
              message: (await prompt.question('  Feedback for the agent: ')).trim(),
            }
          : answer.startsWith('r')
            ? { requestId: request.id, reply: 'reject' }
            : { requestId: request.id, reply: 'once' };
      await replyToRequest(this.client, this.store, reply);
      this.report(`  → ${reply.reply}${reply.message ? `: ${reply.message}` : ''}`);
    } catch (error) {
      // Answered elsewhere (another terminal, `loom approve`) or the run ended: nothing to do.
      if (error instanceof InputError) this.report(`  ${error.message}`);
      // The reply could not be sent (the server is unreachable, say): the request still waits.
      else this.report(`  Could not send the reply (${(error as Error).message}). ${answerHint(request)}`);
    } finally {
      prompt.close();
    }
  }
}

import { condition } from '@temporalio/workflow';

/** A counting semaphore in workflow state: at most `limit` holders; others wait their turn. */
export class Slots {
  private used = 0;

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    await condition(() => this.used < this.limit);
    this.used++;
  }

  release(): void {
    this.used--;
  }
}

/**
 * A counting semaphore in workflow state: at most `limit` holders; the others wait in order. A
 * released slot passes straight to the next waiter, so no two waiters can take the same slot.
 */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.used < this.limit) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
}

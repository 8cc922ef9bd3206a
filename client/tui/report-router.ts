/**
 * Where the lines Loom reports go while the terminal UI is up: to the screen's status row rather
 * than over the screen. Before the screen opens and after it closes, to stderr as usual.
 */
class ReportRouter {
  private target: ((line: string) => void) | undefined;

  readonly report = (line: string): void => {
    if (this.target) this.target(line);
    else process.stderr.write(`${line}\n`);
  };

  /** Sends reports to `target` until the returned function is called. */
  routeTo(target: (line: string) => void): () => void {
    this.target = target;
    return () => {
      this.target = undefined;
    };
  }
}

export const reportRouter = new ReportRouter();

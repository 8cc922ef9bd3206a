/** A benchmark's result: a value per measured run, summarised as median, min and max. */
export interface Row {
  name: string;
  unit: string;
  samples: number[];
  note?: string;
}

export interface Summary {
  name: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  samples: number[];
  note?: string;
}

export function summarize(row: Row): Summary {
  const sorted = [...row.samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return {
    name: row.name,
    unit: row.unit,
    median,
    min: sorted[0],
    max: sorted.at(-1)!,
    samples: row.samples,
    note: row.note,
  };
}

/**
 * Runs `warmUp` (by default `measure` itself) once, then `measure` `runs` times, collecting each run's values by name.
 */
export async function repeat(
  runs: number,
  measure: () => Promise<Record<string, number>>,
  warmUp: () => Promise<unknown> = measure,
): Promise<Record<string, number[]>> {
  await warmUp();
  const samples: Record<string, number[]> = {};
  for (let run = 0; run < runs; run++) {
    for (const [name, value] of Object.entries(await measure())) (samples[name] ??= []).push(value);
  }
  return samples;
}

/** A benchmark measured a run at a time, so that measurements on different stores can take turns. */
export interface Measurement {
  /** Run once before any measured run; `measure` itself unless given. */
  warmUp?(): Promise<unknown>;
  measure(): Promise<Record<string, number>>;
  /** The table's rows from each measured run's values, collected by name. */
  rows(samples: Record<string, number[]>): Row[];
}

/**
 * Warms each measurement up, then measures them in turns `runs` times, swapping who goes first
 * every run: on a machine that gets busier or quieter, run i of each is taken at about the same
 * time, which is what a run-by-run ratio between them needs.
 */
export async function takeTurns(measurements: Measurement[], runs: number): Promise<Row[][]> {
  for (const measurement of measurements) await (measurement.warmUp ?? measurement.measure)();
  const samples = measurements.map((): Record<string, number[]> => ({}));
  for (let run = 0; run < runs; run++) {
    const order = measurements.map((_, index) => index);
    if (run % 2) order.reverse();
    for (const index of order) {
      for (const [name, value] of Object.entries(await measurements[index].measure()))
        (samples[index][name] ??= []).push(value);
    }
  }
  return measurements.map((measurement, index) => measurement.rows(samples[index]));
}

export async function timed(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

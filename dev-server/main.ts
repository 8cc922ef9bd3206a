// The program behind `temporal-dev.sh`: `./temporal-dev.sh --help` for usage.
import { processOutput } from './output.js';
import { runDevServer } from './run.js';

// A reader that stops early (`| head -1`) ends the output, as SIGPIPE ends a shell script.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runDevServer(process.argv.slice(2), process.env, processOutput);

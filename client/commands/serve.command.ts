import { Option, type Command } from 'commander';
import { execute } from './execute.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the web view and the HTTP API over the sessions (GET /doc describes it), with a worker unless one runs; a token is required off 127.0.0.1',
    )
    .option('-p, --port <port>', 'the port', '4096')
    .option(
      '--hostname <host>',
      'the address to listen on; anything but loopback needs a token (LOOM_SERVER_TOKEN, or one printed at start)',
      '127.0.0.1',
    )
    .option(
      '--no-worker',
      'run no worker in this process (by default one runs unless one already polls the task queue)',
    )
    // The default since `--no-worker` came; still accepted, so older scripts keep working.
    .addOption(new Option('--worker').hideHelp())
    .option(
      '--cors <origins>',
      'let web pages from these origins call the API (comma-separated, e.g. https://app.example.com); off by default',
    )
    .action(async (options) =>
      execute(async (context) => (await import('../serve/command.js')).serveCommand(context, options)),
    );
}

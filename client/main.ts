import { Command, Option } from 'commander';
import { LOOM_VERSION } from '../activities/package-root.js';
import pc from 'picocolors';
import { InputError } from './input-error.js';
import { endQuietlyWhenReaderCloses, exitWhenWritten } from './process-output.js';
import type { ClientContext } from './context.js';
import { tracingWanted } from '../worker/tracing/wanted.js';
import { errorMessage } from '../core/error-message.js';

endQuietlyWhenReaderCloses();

const program = new Command('loom')
  .description('Durable OpenCode-style agents and subagents on Temporal.')
  .version(LOOM_VERSION)
  .showHelpAfterError()
  .addHelpText(
    'after',
    `
Environment:
  TEMPORAL_ADDRESS     Temporal server, host:port (default: the embedded dev server on localhost:7233, started when needed)
  TEMPORAL_NAMESPACE   namespace (default: default)
  TEMPORAL_API_KEY     API key (Temporal Cloud); turns TLS on
  TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH, …_CLIENT_KEY_PATH, …_SERVER_CA_CERT_PATH, …_SERVER_NAME
                       TLS and mutual TLS, as Temporal's CLI reads them (also _DATA instead of _PATH)
  TEMPORAL_PROFILE     a profile of TEMPORAL_CONFIG_FILE (default: ~/.config/temporalio/temporal.toml)
                       \`loom status\` shows which Temporal is used and where each setting came from
  OTEL_EXPORTER_OTLP_ENDPOINT  send traces to an OpenTelemetry collector (OTLP/HTTP, e.g. http://localhost:4318)
  LOOM_METRICS_PORT    serve Prometheus metrics from workers on this port (or loom worker --metrics-port)
  LOOM_TASK_QUEUE      task queue (default: loom)
  LOOM_SERVER_TOKEN    the token loom serve requires (Authorization: Bearer …)
  LOOM_WEB_URL         where loom serve's web view is reached: runs link to their pages from the Temporal UI
  LOOM_DATA_DIR        sessions and the dev server's database (default: ~/.local/share/loom)
  LOOM_TEMPORAL_PORT, LOOM_TEMPORAL_UI_PORT  ports of the embedded dev server and its UI (default: 7233, 8233)
  LOOM_STORE_URL       postgres://user:password@host:5432/db: keep sessions in PostgreSQL (for several machines) instead of LOOM_DATA_DIR/loom.db
  LOOM_MODEL           the model when neither --model nor loom.json names one, e.g. anthropic/claude-sonnet-4-5
  OPENAI_API_KEY       key for openai/* models (OPENAI_BASE_URL for a compatible server)
  ANTHROPIC_API_KEY    key for anthropic/* models
  GOOGLE_GENERATIVE_AI_API_KEY  key for google/* models (or GEMINI_API_KEY)
  OPENROUTER_API_KEY   key for openrouter/<maker>/<model> models
                       With no model named, the first key set picks its provider's default model.
  LOOM_MAX_PROMPT_BYTES          largest prompt accepted (default: 8 MiB, or max_prompt_bytes in the config)
  LOOM_FOLLOW_RECONNECT_MS       how long to wait for an unreachable Temporal server while following a run (default: 120000)
  LOOM_MODEL_IDLE_TIMEOUT_MS     silence mid-answer before a model request is retried (default: 60000)
  LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS  silence before a model answer's first byte (default: 300000)
  Every variable Loom reads: docs/configuration.md

Where the model comes from (first found wins):
  --model              loom run -m anthropic/claude-sonnet-4-5 "fix the failing test"
  the agent, loom.json {"model": "openai/gpt-4.1"} in loom.json (or "model" on an agent)
  LOOM_MODEL           LOOM_MODEL=google/gemini-2.5-pro loom run "…"
  a provider key       OPENAI_API_KEY set, nothing else: openai/gpt-4.1 (ANTHROPIC_API_KEY: anthropic/claude-sonnet-4-5)`,
  );

program
  .command('run')
  .description('start a session and follow it until the agent answers')
  .argument('[prompt...]', 'what to ask (read from stdin when omitted)')
  .option('-a, --agent <name>', 'the agent to run (default: build)')
  .option(
    '-m, --model <provider/model>',
    'the model, e.g. anthropic/claude-sonnet-4-5 (default: the agent\'s, loom.json\'s "model", LOOM_MODEL, or the first provider key set)',
  )
  .option('-t, --title <title>', 'a title for the session')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option(
    '--max-tokens <n>',
    'a token budget for the session and all its subagents; runs stop at a step boundary when it is reached',
  )
  .option('--max-cost <usd>', "a budget in dollars for the session and all its subagents (needs the models' prices)")
  .option(
    '--timeout <duration>',
    'cancel the run past this long (90s, 30m, 2h, 1h30m; a bare number is seconds; 1s at least); its work is kept',
  )
  .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
  .option(
    '--detach',
    'do not wait for background subagents still running when the run ends (they need a worker: `loom worker`)',
  )
  .addHelpText(
    'after',
    `
Background subagents: when this command runs the worker itself (no \`loom worker\` is running), it
waits for the background subagents the run started and the answers their reports wake, printing
each; Ctrl-C (or --detach) leaves them, to go on once a worker runs.

The model: --model, else the agent's, else "model" in loom.json, else LOOM_MODEL, else the first
provider key set (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY).
  loom run -m anthropic/claude-sonnet-4-5 "fix the failing test"
  LOOM_MODEL=openai/gpt-4.1 loom run "what does this project do?"`,
  )
  .action(async (words: string[], options) =>
    execute(async (context) =>
      (await import('./commands/run.js')).runCommand(context, await promptFrom(words), options),
    ),
  );

program
  .command('resume')
  .description('continue a session with a new prompt (queued if the session is busy)')
  .argument('<sessionId>', 'the session to continue')
  .argument(
    '[prompt...]',
    'what to ask (read from stdin when omitted); none: the prompt of a run that failed before the model answered, again, or a run that timed out, continued',
  )
  .option('-a, --agent <name>', 'switch agent for this run')
  .option('-m, --model <provider/model>', 'switch model for this run')
  .option('--max-tokens <n>', "a new token budget for the session's tree (above what it has used)")
  .option('--max-cost <usd>', "a new budget in dollars for the session's tree (above what it has spent)")
  .option(
    '--timeout <duration>',
    'cancel the run this resume starts past this long (90s, 30m, 2h, 1h30m; a bare number is seconds); a busy session only queues the prompt, under its own run',
  )
  .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
  .option('--detach', 'do not wait for background subagents still running when the run ends')
  .option(
    '--dir <folder>',
    "run in this folder rather than the session's own (moving the session there): when that is gone",
  )
  .action(async (sessionId: string, words: string[], options) =>
    execute(async (context) =>
      (await import('./commands/resume.js')).resumeCommand(context, sessionId, await promptFrom(words, true), options),
    ),
  );

program
  .command('show')
  .description("print a session's messages and parts")
  .argument('<sessionId>')
  .option('--full', 'print tool outputs in full')
  .option('--json', 'print the session, its messages and parts as JSON')
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/show.js')).showCommand(context, sessionId, options)),
  );

program
  .command('tree')
  .description('show a session and its subagents, with tokens and cost per session and subtree')
  .argument('<sessionId>')
  .option('--json', 'print the tree as JSON')
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/tree.js')).treeCommand(context, sessionId, options)),
  );

program
  .command('ls')
  .description("list this project folder's sessions, most recent first")
  .option('--all', 'include child sessions')
  .option('--all-projects', 'list the sessions of every project folder, with a directory column')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('-n, --limit <count>', 'how many to list', '50')
  .option('--json', 'print the sessions as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/ls.js')).lsCommand(context, options)),
  );

program
  .command('compact')
  .description('summarise an idle session, so its model sees the summary instead of the whole history')
  .argument('<sessionId>')
  .option('-m, --model <provider/model>', 'the model that writes the summary')
  .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/compact.js')).compactCommand(context, sessionId, options)),
  );

program
  .command('diff')
  .description('print the files a session and its subagents changed, as unified diffs')
  .argument('<sessionId>')
  .option('--step <n>', "only the session's n-th step (as `loom show` numbers them)")
  .option(
    '--message <turn|messageId>',
    "only one message's changes: a turn's number or a message id, as `loom show` prints them (a prompt's: its whole turn)",
  )
  .option('--json', 'print {sessionId, files: [{file, status, additions, deletions, diff}]}')
  .addHelpText(
    'after',
    '\nExamples:\n  loom diff ses_… \n  loom diff ses_… --step 3\n  loom diff ses_… --message 2\n  loom diff ses_… --json | jq .files[].file',
  )
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/diff.js')).diffCommand(context, sessionId, options)),
  );

program
  .command('revert')
  .description(
    'undo a turn: put back the files the session (and its subagents) changed from a message on, and hide those messages from the model',
  )
  .argument('<sessionId>')
  .argument(
    '[turn|messageId]',
    "where to go back to: a turn's number or a message id, as `loom show` prints them (default: the last prompt)",
  )
  .option('--force', 'also overwrite files someone changed after the agent (otherwise reported and left alone)')
  .option('--json', 'print {sessionId, messageID, restored, conflicts}')
  .addHelpText(
    'after',
    '\nOnly files the agents changed are touched. `loom unrevert` brings files and messages back, until the next prompt drops them.\nExamples:\n  loom revert ses_…\n  loom revert ses_… 3\n  loom revert ses_… msg_…',
  )
  .action(async (sessionId: string, messageId: string | undefined, options) =>
    execute(async (context) =>
      (await import('./commands/revert.js')).revertCommand(context, sessionId, messageId, options),
    ),
  );

program
  .command('unrevert')
  .description("undo the session's last revert: its files and messages come back")
  .argument('<sessionId>')
  .option('--force', 'also overwrite files someone changed after the revert')
  .option('--json', 'print {sessionId, messageID, restored, conflicts}')
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/revert.js')).unrevertCommand(context, sessionId, options)),
  );

program
  .command('fork')
  .description(
    "start a new session from a session's history before a message, optionally with the files of that moment",
  )
  .argument('<sessionId>')
  .argument(
    '[turn|messageId]',
    'the fork keeps the messages before this turn or message, as `loom show` prints them (default: all)',
  )
  .option(
    '--dir <path>',
    'write the files as they were at that point into this new folder (a git worktree on a new branch in a git project) and work there',
  )
  .option('--json', 'print {sessionId, directory}')
  .addHelpText(
    'after',
    '\nExamples:\n  loom fork ses_…\n  loom fork ses_… 2 --dir ../try-again\n  loom resume $(loom fork ses_… msg_…) "try it another way"',
  )
  .action(async (sessionId: string, messageId: string | undefined, options) =>
    execute(async (context) =>
      (await import('./commands/fork.js')).forkCommand(context, sessionId, messageId, options),
    ),
  );

program
  .command('cancel')
  .description("cancel a session's running run, with its tools and subagents")
  .argument('<sessionId>')
  .option(
    '--terminate',
    'end the run and its busy subagents at once, without a worker (for runs of a build that is gone); running tools are not stopped',
  )
  .action(async (sessionId: string, options: { terminate?: boolean }) =>
    execute(async (context) => (await import('./commands/cancel.js')).cancelCommand(context, sessionId, options)),
  );

program
  .command('rm')
  .description('delete a session with its subagent sessions, stored messages and snapshots (refused while busy)')
  .argument('<sessionId>')
  .option('--json', 'print {removed: [session ids, children first]}')
  .addHelpText(
    'after',
    `
Every session below it (its subagents', recursively) goes too, children first. A session that is
busy, or whose run is still open in Temporal, is refused: \`loom cancel\` it first. Snapshots of
the session's files are let go when its folder is on this machine.
  loom rm ses_01…
  loom ls --json | jq -r '.[] | select(.status == "failed") | .id' | xargs -n1 loom rm`,
  )
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/rm.js')).rmCommand(context, sessionId, options)),
  );

program
  .command('export')
  .description("write a session as JSON in OpenCode's export shape {info, messages: [{info, parts}], todos}")
  .argument('<sessionId>')
  .option('-o, --output <file>', 'write it to this file (default: stdout)')
  .addHelpText(
    'after',
    `
The session's own messages and parts; its subagents' sessions are not exported (the task calls
that started them keep their results). \`loom import\` brings the file back as a new session.
  loom export ses_01… > session.json
  loom export ses_01… --output session.json`,
  )
  .action(async (sessionId: string, options) =>
    execute(async (context) => (await import('./commands/export.js')).exportCommand(context, sessionId, options)),
  );

program
  .command('import')
  .description('store a session written by `loom export` as a new session (new ids), and print its id')
  .argument('<file>', 'the JSON file `loom export` wrote')
  .option('-d, --dir <path>', "the folder the session works in (default: the exported session's)")
  .option('--json', 'print {sessionId} and nothing else')
  .addHelpText(
    'after',
    `
The new session has the same title and transcript, new ids, and is idle: \`loom resume\` continues it.
  loom import session.json
  loom import session.json --dir ~/src/other-checkout --json`,
  )
  .action(async (file: string, options) =>
    execute(async (context) => (await import('./commands/import.js')).importCommand(context, file, options)),
  );

program
  .command('pending')
  .description('list permission requests waiting for an answer, in every session')
  .option('--json', 'print the requests as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/pending.js')).pendingCommand(context, options)),
  );

program
  .command('approve')
  .description('answer a permission request: allow once (default), always, or reject')
  .argument('<requestId>', 'the request (per_…), from `loom pending` or the run that asked')
  .option('--always', 'allow it, and the same kind of call, for the rest of the session tree')
  .option('--reject', 'refuse it; without --message the turn stops')
  .option('--message <feedback>', 'with --reject: tell the agent why; it carries on with that')
  .action(async (requestId: string, options) =>
    execute(async (context) => (await import('./commands/approve.js')).approveCommand(context, requestId, options)),
  );

program
  .command('agents')
  .description("list the project's agents: mode, model, description and permissions")
  .option('--all', 'include hidden agents')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('--json', 'print the agents as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/agents.js')).agentsCommand(context, options)),
  );

program
  .command('skills')
  .description('list the skills the skill tool offers in this project, and the SKILL.md files skipped as malformed')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('--json', 'print {skills, skipped} as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/skills.js')).skillsCommand(context, options)),
  );

const config = program
  .command('config')
  .description("the project's configuration: whether a change an agent made waits for you, and confirming it");

config
  .command('status', { isDefault: true })
  .description('show whether the config files are the ones you trust, and the diff of a change that waits for you')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('--json', 'print {directory, current, trusted, waiting} as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/config.js')).configStatusCommand(context, options)),
  );

config
  .command('trust')
  .description('use the config files as they are now: runs take a change an agent made only once you trust it')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('-y, --yes', 'trust without showing the change and asking')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/config.js')).configTrustCommand(context, options)),
  );

const mcp = program.command('mcp').description("the project's MCP servers");

mcp
  .command('ls')
  .alias('list')
  .description('start the MCP servers as a worker here would, and list each with its state and tools')
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('--json', 'print {servers} as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/mcp.js')).mcpListCommand(context, options)),
  );

const batch = program.command('batch').description('run many tasks as one durable batch of sessions');

batch
  .command('run')
  .description(
    'start a batch from a JSONL file of {description, prompt, agent?, model?, session_id?, directory?, timeout?} and follow it',
  )
  .argument('<file>', 'the tasks, one JSON object per line')
  .option('-a, --agent <name>', 'the agent for tasks that name none (default: the default agent)')
  .option('-m, --model <provider/model>', 'the model for tasks that name none')
  .option('-c, --concurrency <n>', 'tasks running at once', '8')
  .option('-r, --retries <n>', 'times a failed task is tried again', '1')
  .option(
    '--task-timeout <duration>',
    'cancel a task\'s run past this long (90s, 30m, 2h, 1h30m; a bare number is seconds; a line\'s "timeout" in ms wins); it fails and may be retried',
  )
  .option('-d, --dir <path>', 'the project directory (default: the current directory)')
  .option('--max-tokens <n>', 'a token budget for all the tasks together; no task starts once it is reached')
  .option('--max-cost <usd>', "a budget in dollars for all the tasks together (needs the models' prices)")
  .option('--task-max-tokens <n>', "a token budget for each task's session and its subagents")
  .option('--task-max-cost <usd>', "a budget in dollars for each task's session and its subagents")
  .option('--json', 'no progress bar; print the final progress as JSON')
  .option(
    '--isolate',
    'run each task in its own copy of the project, taken when the batch starts (uncommitted changes included; ignored files and files over 2 MiB left out); the project is untouched until `loom batch apply`',
  )
  .action(async (file: string, options) =>
    execute(async (context) => (await import('./commands/batch/run.js')).batchRunCommand(context, file, options)),
  );

batch
  .command('status')
  .description("a batch's progress")
  .argument('<batchId>')
  .option('-w, --watch', 'follow it with a progress bar until it ends (Ctrl-C detaches)')
  .option('--json', 'print the progress as JSON')
  .action(async (batchId: string, options) =>
    execute(async (context) =>
      (await import('./commands/batch/manage.js')).batchStatusCommand(context, batchId, options),
    ),
  );

batch
  .command('results')
  .description("a batch's tasks and their outcomes (JSONL with --json)")
  .argument('<batchId>')
  .option('--json', 'one JSON object per task: index, status, sessionId, attempts, text, tokens, error')
  .action(async (batchId: string, options) =>
    execute(async (context) =>
      (await import('./commands/batch/manage.js')).batchResultsCommand(context, batchId, options),
    ),
  );

for (const action of ['pause', 'resume', 'cancel'] as const) {
  batch
    .command(action)
    .description(
      action === 'cancel'
        ? 'cancel a batch: running tasks are cancelled, finished results kept'
        : `${action} starting new tasks`,
    )
    .argument('<batchId>')
    .action(async (batchId: string) =>
      execute(async (context) =>
        (await import('./commands/batch/manage.js')).batchControlCommand(context, batchId, { action }),
      ),
    );
}

batch
  .command('concurrency')
  .description('change how many tasks of a batch run at once')
  .argument('<batchId>')
  .argument('<n>')
  .action(async (batchId: string, n: string) =>
    execute(async (context) => {
      const { batchControlCommand, concurrencyControl } = await import('./commands/batch/manage.js');
      return batchControlCommand(context, batchId, concurrencyControl(n));
    }),
  );

batch
  .command('diff')
  .description(
    "what an isolated batch's tasks changed in their copies, as unified diffs (paths from the project's root)",
  )
  .argument('<batchId>')
  .argument('[tasks...]', 'task numbers, as `loom batch results` shows them (default: every completed task)')
  .option('--json', 'print [{index, description, files, diff}] as JSON')
  .action(async (batchId: string, tasks: string[], options) =>
    execute(async (context) =>
      (await import('./commands/batch/isolated.js')).batchDiffCommand(context, batchId, tasks, options),
    ),
  );

batch
  .command('apply')
  .description(
    "apply an isolated batch's changes to the project: a file still as it was when the batch started takes the task's version, one changed since (by you, or by a task applied before) is merged when both are text and it merges cleanly, else reported as a conflict and left alone (exit 1)",
  )
  .argument('<batchId>')
  .argument(
    '[tasks...]',
    'task numbers, as `loom batch results` shows them (default: every completed task not applied yet)',
  )
  .option('--json', 'print {batchId, tasks: [{index, applied, merged, unchanged, conflicts}], removed} as JSON')
  .action(async (batchId: string, tasks: string[], options) =>
    execute(async (context) =>
      (await import('./commands/batch/isolated.js')).batchApplyCommand(context, batchId, tasks, options),
    ),
  );

batch
  .command('discard')
  .description("delete an isolated batch's copies without applying anything")
  .argument('<batchId>')
  .action(async (batchId: string) =>
    execute(async (context) => (await import('./commands/batch/isolated.js')).batchDiscardCommand(context, batchId)),
  );

batch
  .command('ls')
  .description('list batches, newest first')
  .option('--json', 'print the batches as JSON')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/batch/manage.js')).batchLsCommand(context, options)),
  );

program
  .command('worker')
  .description(
    "run a worker until stopped: the shared task queue and this host's workspace tools (start several to scale out)",
  )
  .option('--host-id <id>', "this machine's host id (default: LOOM_HOST_ID, else the machine's name)")
  .option(
    '--shared-only',
    'serve only the shared queue: workflows and model calls, no workspace tools (a machine without checkouts)',
  )
  .option('--host-only', "serve only this host's workspace tools")
  .option(
    '--max-cached-workflows <n>',
    'runs kept in memory between their tasks (default: LOOM_MAX_CACHED_WORKFLOWS, else sized from the heap); fewer use less memory and replay more',
  )
  .option(
    '--metrics-port <[host:]port>',
    "serve Prometheus metrics at /metrics on this port: Temporal's and Loom's (default: LOOM_METRICS_PORT; off when unset)",
  )
  .option(
    '--make-current',
    "make this worker's build the current version once it polls, as `loom deploy` does (the embedded dev server always does)",
  )
  .action(async (options) =>
    execute(async (context) => (await import('./commands/worker.js')).workerCommand(context, options)),
  );

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
  .option('--no-worker', 'run no worker in this process (by default one runs unless one already polls the task queue)')
  // The default since `--no-worker` came; still accepted, so older scripts keep working.
  .addOption(new Option('--worker').hideHelp())
  .option(
    '--cors <origins>',
    'let web pages from these origins call the API (comma-separated, e.g. https://app.example.com); off by default',
  )
  .action(async (options) =>
    execute(async (context) => (await import('./serve/command.js')).serveCommand(context, options)),
  );

program
  .command('acp')
  .description(
    'serve an editor (Zed, JetBrains, …) over the Agent Client Protocol on stdin/stdout; sessions are Loom sessions',
  )
  .addHelpText(
    'after',
    `
The editor starts it: in Zed, settings.json "agent_servers": { "Loom": { "command": "loom", "args": ["acp"] } }.
Stdout carries the protocol only; everything else goes to stderr. With no worker polling, this
process runs one (as \`loom run\` does); when the editor goes while a turn runs on it, it stays until
the turn ends (Ctrl-C leaves it). docs/editors.md says what maps to what.`,
  )
  .action(async () => execute(async (context) => (await import('./acp/command.js')).acpCommand(context)));

program
  .command('status')
  .description('which Temporal (and where each setting came from), its workers, the store, and the versions')
  .option('--json', 'print it as one JSON object')
  .action(async (options) =>
    execute(async (context) => (await import('./commands/status.js')).statusCommand(context, options)),
  );

program
  .command('deploy')
  .description("make this installation's build the current version of its worker deployment: new runs go to it")
  .option('--build-id <id>', 'make this build current instead (one whose workers still run: a roll-back)')
  .option('--status', 'only list the versions and where each stands (current, draining, drained)')
  .option('--json', 'print it as one JSON object')
  .addHelpText(
    'after',
    `
Each worker runs its build pinned: a run stays on the build it started on, and new runs go to the
current build. The embedded dev server makes each new build current by itself; against another
Temporal, start the new build's workers (\`loom worker\`), run \`loom deploy\`, and stop the old
workers once \`loom deploy --status\` says their build drained.`,
  )
  .action(async (options) =>
    execute(async (context) => (await import('./commands/deploy.js')).deployCommand(context, options)),
  );

program
  .command('down')
  .description('stop the background Temporal dev server')
  .action(async () => execute(async (context) => (await import('./commands/down.js')).downCommand(context)));

async function execute(action: (context: ClientContext) => Promise<number>): Promise<never> {
  let exitCode = 1;
  let context: ClientContext | undefined;
  try {
    // Each command loads only what it uses, so that `loom --help` and light commands start at once.
    if (tracingWanted()) (await import('../worker/tracing/setup.js')).startTracing();
    context = await (await import('./context.js')).ClientContext.open();
    exitCode = await action(context);
  } catch (error) {
    exitCode = error instanceof InputError ? error.exitCode : 1;
    const message = errorMessage(error);
    process.stderr.write(`${pc.red('Error:')} ${message}\n`);
    if (!(error instanceof InputError) && process.env.LOOM_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
  } finally {
    await context?.close().catch(() => undefined);
    // What the command traced leaves before it exits.
    if (tracingWanted())
      await (
        await import('../worker/tracing/setup.js')
      )
        .activeTracing()
        ?.shutdown()
        .catch(() => undefined);
  }
  return exitWhenWritten(exitCode);
}

/** The prompt from the arguments, else stdin; `optional`: '' when there is none (the command decides). */
async function promptFrom(words: string[], optional = false): Promise<string> {
  const prompt = words.join(' ').trim();
  if (prompt) return prompt;
  const none = () => {
    if (optional) return '';
    throw new InputError('No prompt given. Pass it as an argument or on stdin.', 2);
  };
  if (process.stdin.isTTY) return none();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const fromStdin = Buffer.concat(chunks).toString('utf8').trim();
  return fromStdin || none();
}

await program.parseAsync();

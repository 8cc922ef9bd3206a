import { Command } from 'commander';
import { LOOM_VERSION } from '../activities/process/package-root.js';
import { endQuietlyWhenReaderCloses } from './process-output.js';
import { registerRun } from './commands/run.command.js';
import { registerResume } from './commands/resume.command.js';
import { registerShow } from './commands/show.command.js';
import { registerTree } from './commands/tree.command.js';
import { registerLs } from './commands/ls.command.js';
import { registerCompact } from './commands/compact.command.js';
import { registerDiff } from './commands/diff.command.js';
import { registerRevert, registerUnrevert } from './commands/revert.command.js';
import { registerFork } from './commands/fork.command.js';
import { registerCancel } from './commands/cancel.command.js';
import { registerRm } from './commands/rm.command.js';
import { registerExport } from './commands/export.command.js';
import { registerImport } from './commands/import.command.js';
import { registerPending } from './commands/pending.command.js';
import { registerApprove } from './commands/approve.command.js';
import { registerAgents } from './commands/agents.command.js';
import { registerSkills } from './commands/skills.command.js';
import { registerConfig } from './commands/config.command.js';
import { registerMcp } from './commands/mcp.command.js';
import { registerBatch } from './commands/batch.command.js';
import { registerWorker } from './commands/worker.command.js';
import { registerServe } from './commands/serve.command.js';
import { registerAcp } from './commands/acp.command.js';
import { registerStatus } from './commands/status.command.js';
import { registerDeploy } from './commands/deploy.command.js';
import { registerDown } from './commands/down.command.js';
import { registerTui, opensTuiByDefault } from './commands/tui.command.js';

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

// In the order `loom --help` lists them. Each `*.command.ts` declares its command beside the code it runs,
// which it loads only when the command runs, so that `loom --help` and light commands start at once.
for (const register of [
  registerTui,
  registerRun,
  registerResume,
  registerShow,
  registerTree,
  registerLs,
  registerCompact,
  registerDiff,
  registerRevert,
  registerUnrevert,
  registerFork,
  registerCancel,
  registerRm,
  registerExport,
  registerImport,
  registerPending,
  registerApprove,
  registerAgents,
  registerSkills,
  registerConfig,
  registerMcp,
  registerBatch,
  registerWorker,
  registerServe,
  registerAcp,
  registerStatus,
  registerDeploy,
  registerDown,
])
  register(program);

// `loom` alone in a terminal opens the terminal UI; anywhere else (a pipe, a script, TERM=dumb) it prints the help.
await program.parseAsync(opensTuiByDefault(process.argv) ? [...process.argv, 'tui'] : process.argv);

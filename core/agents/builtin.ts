import type { PermissionConfig } from '../rules/permission.js';
import type { AgentMode } from './agent.js';
import { BUILD_PROMPT } from './prompts/build.js';
import { COMPACTION_PROMPT, SUMMARY_PROMPT, TITLE_PROMPT } from './prompts/hidden.js';
import { EXPLORE_PROMPT } from './prompts/explore.js';
import { GENERAL_PROMPT } from './prompts/general.js';

/**
 * The permission set every agent starts from (OpenCode's defaults, less the rules of tools Loom
 * does not have: question, plan_enter, plan_exit, websearch, codesearch).
 */
export const DEFAULT_PERMISSION: PermissionConfig = {
  '*': 'allow',
  doom_loop: 'ask',
  external_directory: { '*': 'ask' },
  read: { '*': 'allow', '*.env': 'ask', '*.env.*': 'ask', '*.env.example': 'allow' },
  // Loom: starting a batch of many sessions is off unless configuration allows it.
  batch: 'deny',
  // Loom: a bash call that asks to run outside the sandbox (`sandbox: false`) asks a person first.
  unsandboxed: 'ask',
  // Loom: a write of Loom's own configuration asks a person, whatever `edit` allows.
  config: 'ask',
};

export interface BuiltinAgent {
  name: string;
  description?: string;
  mode: AgentMode;
  hidden?: boolean;
  prompt?: string;
  temperature?: number;
  /** Changes to the default permission set. */
  permission: PermissionConfig;
}

/** Loom's built-in agents, in listing order. */
export const BUILTIN_AGENTS: BuiltinAgent[] = [
  {
    name: 'build',
    description: 'The default agent: works on the project with every tool it is allowed to use.',
    mode: 'primary',
    prompt: BUILD_PROMPT,
    permission: {},
  },
  {
    name: 'plan',
    description: 'Plans without changing anything: reads, searches and proposes; edits only plan files.',
    mode: 'primary',
    prompt: BUILD_PROMPT,
    permission: {
      edit: { '*': 'deny', '.loom/plans/*.md': 'allow', '.opencode/plans/*.md': 'allow' },
    },
  },
  {
    name: 'general',
    description:
      'General-purpose agent for researching complex questions and executing multi-step tasks. Use this agent to execute multiple units of work in parallel.',
    mode: 'subagent',
    prompt: GENERAL_PROMPT,
    permission: { todoread: 'deny', todowrite: 'deny' },
  },
  {
    name: 'explore',
    description:
      'Fast agent for exploring codebases: finds files by pattern, searches code for keywords, answers questions about how the code works. Say how thorough it should be: "quick", "medium" or "very thorough".',
    mode: 'subagent',
    prompt: EXPLORE_PROMPT,
    permission: {
      '*': 'deny',
      grep: 'allow',
      glob: 'allow',
      list: 'allow',
      // As in OpenCode: explore reads through the shell too, so it is not strictly read-only.
      bash: 'allow',
      webfetch: 'allow',
      read: { '*': 'allow', '*.env': 'ask', '*.env.*': 'ask', '*.env.example': 'allow' },
      external_directory: { '*': 'ask' },
    },
  },
  { name: 'compaction', mode: 'primary', hidden: true, prompt: COMPACTION_PROMPT, permission: { '*': 'deny' } },
  { name: 'title', mode: 'primary', hidden: true, prompt: TITLE_PROMPT, temperature: 0.5, permission: { '*': 'deny' } },
  { name: 'summary', mode: 'primary', hidden: true, prompt: SUMMARY_PROMPT, permission: { '*': 'deny' } },
];

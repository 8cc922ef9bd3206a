import { bash } from './bash.js';
import { edit } from './edit.js';
import { glob } from './glob.js';
import { grep } from './grep.js';
import { list } from './list.js';
import { read } from './read.js';
import { skill } from './skill.js';
import { taskStatus } from './task-status.js';
import { todoread, todowrite } from './todo.js';
import type { ToolHandler } from './running/tool-handler.js';
import { webfetch } from './webfetch.js';
import { write } from './write.js';

/** Handlers by tool name; each tool's spec is in `core/tools/`. */
export const toolHandlers: Record<string, ToolHandler<never>> = {
  read,
  write,
  edit,
  list,
  glob,
  grep,
  bash,
  webfetch,
  todowrite,
  todoread,
  skill,
  task_status: taskStatus,
};
